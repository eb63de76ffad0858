// The provider writes Markdown; WhatsApp has a formatting of its own and shows everything else literally:
// *bold*, _italic_, ~strikethrough~, `inline code`, ```monospace blocks```, and "- " / "1. " lists. There is no
// escaping in WhatsApp, so the conversion only rewrites what Markdown marks up and leaves other text alone.
// Code (fenced or inline) is passed through untouched, since WhatsApp renders it as code too.

const BOLD = '\u0001'; // a placeholder for bold markers while single-star italics are rewritten

export function markdownToWhatsApp(markdown: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const fence = /^\s*```/.test(line);
    if (fence) {
      // WhatsApp's block is ``` … ``` with no language name
      out.push('```');
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      out.push(line);
      continue;
    }
    // table separator rows (| --- | :-: |) say nothing in plain text
    if (line.includes('|') && line.includes('-') && /^[\s|:-]+$/.test(line)) continue;
    out.push(convertLine(line));
  }
  if (inFence) out.push('```');
  return out.join('\n');
}

function convertLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return heading[1] ? `*${stripEmphasis(inline(heading[1]))}*` : '';
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '———';
  // a "* item" bullet would read as bold in WhatsApp
  const bullet = /^(\s*)[*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}- ${inline(bullet[2]!)}`;
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  if (quote) return `> ${inline(quote[1]!)}`;
  return inline(line);
}

/** Inline Markdown → WhatsApp, outside code spans. */
function inline(text: string): string {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? part : spans(part)))
    .join('');
}

function spans(text: string): string {
  return text
    .replace(/!?\[([^\]\n]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_m, label: string, url: string) =>
      !label || label === url ? url : `${label} (${url})`,
    )
    .replace(/\*\*(?=\S)([^*\n]*?\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/(^|[^\w])__(?=\S)([^_\n]*?\S)__(?=[^\w]|$)/g, `$1${BOLD}$2${BOLD}`)
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?=[^\w*]|$)/g, '$1_$2_')
    .replace(/~~(?=\S)([^~\n]*?\S)~~/g, '~$1~')
    .replaceAll(BOLD, '*');
}

/** A heading is bold already: emphasis inside it would close the bold early. */
function stripEmphasis(text: string): string {
  return text.replace(/(^|[^\w])[*_](\S(?:[^*_\n]*\S)?)[*_](?=[^\w]|$)/g, '$1$2');
}
