// The follow-up line a reply may end with (docs/gateway-api.md, "The chat UI"), e.g.
//   Ask next: “Which EPCs are below E?” · “What needs attention at MAN-004?”
// The web chat shows its questions as buttons instead of the text; other channels show the text as it is.

const QUESTION = '“([^“”\\n]{1,120})”';
const LINE = new RegExp(`^Ask next:\\s*${QUESTION}(?:\\s*·\\s*${QUESTION})?(?:\\s*·\\s*${QUESTION})?\\s*$`);

/**
 * Splits a reply into the text to render and the follow-up questions of its last line (none when the last line
 * is not exactly of that form).
 * @param {string} reply
 * @returns {{ text: string, questions: string[] }}
 */
export function splitFollowUps(reply) {
  const trimmed = reply.replace(/\s+$/, '');
  const cut = trimmed.lastIndexOf('\n');
  const last = trimmed.slice(cut + 1).trim();
  const match = LINE.exec(last);
  if (!match) return { text: reply, questions: [] };
  const questions = match
    .slice(1)
    .filter((q) => q !== undefined)
    .map((q) => q.trim())
    .filter(Boolean);
  return { text: cut === -1 ? '' : trimmed.slice(0, cut).replace(/\s+$/, ''), questions };
}

/**
 * While a reply streams, its last line may be the start of the follow-up line: it is held back until the reply
 * is complete, so that it does not flash up as text before it becomes buttons.
 * @param {string} partial
 */
export function withoutPendingFollowUps(partial) {
  const cut = partial.lastIndexOf('\n');
  const last = partial.slice(cut + 1);
  const started = last.length > 0 && ('Ask next:'.startsWith(last) || last.startsWith('Ask next:'));
  return started ? partial.slice(0, cut + 1) : partial;
}
