// The Markdown the answers are written in: GitHub tables (a `|` in a cell escaped) and the closing
// `Ask next:` line, which the web chat turns into buttons and other channels show as text.

export const MAX_ROWS = 30;

function cell(value: string): string {
  return value.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim() || ' ';
}

/** A table of at most `maxRows` rows, then "and N more". */
export function table(headers: string[], rows: string[][], maxRows = MAX_ROWS): string {
  const lines = [
    `| ${headers.map(cell).join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.slice(0, maxRows).map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
  if (rows.length > maxRows) lines.push('', `and ${rows.length - maxRows} more`);
  return lines.join('\n');
}

const MAX_QUESTION = 120;

/** `Ask next: “…” · “…”` with one to three questions (curly quotes removed from them, each ≤ 120 characters). */
export function askNext(questions: string[]): string {
  const clean = [...new Set(questions.map((q) => q.replace(/[“”]/g, '').trim()).filter(Boolean))]
    .filter((q) => q.length <= MAX_QUESTION)
    .slice(0, 3);
  if (clean.length === 0) return '';
  return `Ask next: ${clean.map((q) => `“${q}”`).join(' · ')}`;
}

/** Joins blocks (paragraphs, tables, lists) with blank lines, the `Ask next:` line last. */
export function blocks(...parts: (string | null | undefined | false)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join('\n\n');
}
