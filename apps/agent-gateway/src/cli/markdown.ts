import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

// Replies are markdown (headings, bold, lists, pipe tables). At a terminal the chat shows them drawn by
// marked-terminal: styled headings without their `#`s, tables with borders, text wrapped to the window. Colours
// follow chalk's detection (none when NO_COLOR is set or stdout is not a colour terminal).

/** A markdown-to-terminal-text function for a window `columns` wide (80 when unknown, as a bare pty says 0). */
export function terminalRenderer(columns: number | undefined): (markdown: string) => string {
  const width = Math.max(40, Math.min(columns || 80, 120));
  const marked = new Marked(
    markedTerminal({ width, reflowText: true, showSectionPrefix: false, emoji: false }),
  );
  return (markdown) => marked.parse(markdown, { async: false }).replace(/\n+$/, '');
}
