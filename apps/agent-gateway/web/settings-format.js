// Words and formats the Settings tab needs beyond dom.js's formatDate: a day alone (23 Nov 2026), a count with
// its noun, and the answering engine as a property manager would call it.

/**
 * A day as a UK reader writes it (23 Nov 2026), whatever the browser's language.
 * @param {string} iso
 */
export function formatDay(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
}

/** @param {number} n @param {string} one @param {string} many */
export const plural = (n, one, many) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

/** @type {Record<string, string>} */
const ENGINES = {
  local: 'built-in assistant (offline)',
  openai: 'OpenAI',
  anthropic: 'Anthropic Claude',
};

/**
 * The provider that answers, in words (its own name when it has no others).
 * @param {string} name
 */
export const engineWords = (name) => ENGINES[name] ?? name;
