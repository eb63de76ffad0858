// A secret shown once: a new key or an endpoint's signing secret, with what goes beside it, each value with a Copy
// button. The secret lives only in these elements: it is not stored anywhere, so closing the box, leaving or
// reloading the page loses it for good (the platform keeps only a hash or an encrypted copy).
import { h } from '../common/dom.js';
import { announce } from './page-kit.js';

/**
 * @typedef {{ label: string, value: string, name: string, copy: string, secret?: boolean }} RevealLine
 * `copy` is the Copy button's text, e.g. "Copy key".
 */

/**
 * Copies `value`: the Clipboard API where the page may use it, else the selected field with the older command.
 * @param {string} value
 * @param {HTMLInputElement} field
 * @returns {Promise<boolean>}
 */
async function copy(value, field) {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    field.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

/**
 * One value with its label and Copy button. The value sits in a read-only field so that it can also be selected
 * by hand (and by a phone's long press) when copying is not allowed.
 * @param {string} prefix ids of this box's fields start with it
 * @param {RevealLine} line
 */
function renderLine(prefix, line) {
  const fieldId = `${prefix}-${line.name}`;
  const field = h('input', {
    id: fieldId,
    class: `reveal-value${line.secret ? ' reveal-secret' : ''}`,
    type: 'text',
    readonly: true,
    spellcheck: 'false',
    autocomplete: 'off',
    'data-line': line.name,
  });
  field.value = line.value;
  const button = h(
    'button',
    { type: 'button', class: 'btn btn-secondary btn-small', 'data-copy': line.name },
    line.copy,
  );
  button.addEventListener('click', async () => {
    const done = await copy(line.value, field);
    announce(
      done ? `${line.label} copied.` : `Copying is not allowed here: select the ${line.label} and copy it.`,
    );
    if (done) button.textContent = 'Copied';
  });
  // a click in the field selects all of it, ready to copy by hand
  field.addEventListener('focus', () => field.select());
  return h(
    'div',
    { class: 'reveal-line' },
    h('label', { for: fieldId }, line.label),
    h('div', { class: 'reveal-row' }, field, button),
  );
}

/**
 * Fills a reveal box (its lines' container inside it) and shows it, moving the focus to it; `done` forgets the
 * values and hides it again.
 * @param {{ box: HTMLElement, lines: HTMLElement, done: HTMLButtonElement, prefix: string }} els
 */
export function createReveal({ box, lines, done, prefix }) {
  /** @type {HTMLElement | null} */
  let returnTo = null;
  function hide() {
    lines.replaceChildren();
    box.hidden = true;
  }
  done.addEventListener('click', () => {
    hide();
    returnTo?.focus();
  });
  return {
    /**
     * @param {RevealLine[]} values
     * @param {HTMLElement} after where the focus goes once the box is closed
     */
    show(values, after) {
      returnTo = after;
      lines.replaceChildren(...values.map((v) => renderLine(prefix, v)));
      box.hidden = false;
      box.focus();
    },
    hide,
  };
}
