// The provider writes Markdown; WhatsApp has a formatting of its own and shows everything else literally:
// *bold*, _italic_, ~strikethrough~, `inline code`, ```monospace blocks```, and "- " / "1. " lists. There is no
// escaping in WhatsApp, so the conversion only rewrites what Markdown marks up and leaves other text alone.
// Code (fenced or inline) is passed through untouched, since WhatsApp renders it as code too.

const BOLD = '\u0001'; // a placeholder for bold markers while single-star italics are rewritten

/** WhatsApp takes 4096 characters per text message; replies are split a little below, on line boundaries. */
export const WHATSAPP_MESSAGE_LIMIT = 4000;

/** The Markdown reply as WhatsApp messages, in order; none for an empty reply. */
export function formatForWhatsApp(markdown: string, limit = WHATSAPP_MESSAGE_LIMIT): string[] {
  return splitLines(markdownToWhatsApp(markdown), limit)
    .map((m) => m.replace(/^\n+|\s+$/g, ''))
    .filter((m) => m.trim() !== '');
}

// Whole lines go together while they fit. A code block cut by a split is closed at the end of one message and
// opened again at the start of the next, so that each message renders on its own. A line longer than a message
// is cut at its last space that fits (or hard, for a space-less run).
function splitLines(text: string, limit: number): string[] {
  const FENCE = '```';
  const messages: string[] = [];
  let current: string[] = [];
  let size = 0;
  let inFence = false;
  const room = limit - FENCE.length - 1; // space to close a block that is open at a split
  const flush = () => {
    if (!current.length) return;
    if (inFence) current.push(FENCE);
    messages.push(current.join('\n'));
    current = inFence ? [FENCE] : [];
    size = inFence ? FENCE.length : 0;
  };
  for (const line of text.split('\n')) {
    // a block's closing line may use the room kept for closing it
    const max = inFence && line.trim() === FENCE ? limit : room;
    for (const part of cutLine(line, room - FENCE.length - 1)) {
      if (current.length && size + 1 + part.length > max) flush();
      size += (current.length ? 1 : 0) + part.length;
      current.push(part);
    }
    if (line.trim() === FENCE) inFence = !inFence;
  }
  if (current.length && !(inFence && current.length === 1)) messages.push(current.join('\n'));
  return messages;
}

function cutLine(line: string, max: number): string[] {
  const parts: string[] = [];
  let rest = line;
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const at = space > max / 2 ? space : max;
    parts.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  parts.push(rest);
  return parts;
}

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
