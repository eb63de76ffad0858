/** The longest title a conversation gets in the history list. */
export const TITLE_MAX = 80;

/** What a conversation is called before it holds a question (e.g. after /clear). */
export const UNTITLED = 'New conversation';

/** A conversation's title: its first question on one line, shortened to 80 characters with an ellipsis. */
export function sessionTitle(firstQuestion: string | null): string {
  const line = (firstQuestion ?? '').replace(/\s+/g, ' ').trim();
  if (!line) return UNTITLED;
  const chars = Array.from(line); // by code point, so a surrogate pair is never cut in half
  return chars.length <= TITLE_MAX
    ? line
    : `${chars
        .slice(0, TITLE_MAX - 1)
        .join('')
        .trimEnd()}…`;
}
