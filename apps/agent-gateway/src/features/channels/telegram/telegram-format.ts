// The provider writes Markdown; Telegram takes a small HTML subset (parse_mode HTML) and refuses a whole message
// whose markup it cannot parse. So everything is escaped first and only well-formed tags are produced: bold,
// italic, strikethrough, inline code and links; code blocks and tables become <pre> blocks (tables aligned as
// text); headings are bold lines; list bullets are plain "•". A line whose markup would not nest properly is sent
// as escaped text. Messages are at most `limit` characters of HTML, split on line boundaries (a <pre> block split
// across two messages is closed and reopened); the sender still resends a message as plain text if Telegram
// refuses it anyway.

export const TELEGRAM_MESSAGE_LIMIT = 4000;

export interface TelegramMessage {
  html: string;
  /** the same message as plain text, for a resend when Telegram cannot parse the HTML */
  plain: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function htmlToPlain(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

const PLACEHOLDER = /\uE000(\d+)\uE000/g;

/** One line of Markdown as Telegram HTML (code spans and links first, so that their text is left alone). */
export function inlineHtml(line: string): string {
  const kept: string[] = [];
  const keep = (html: string) => `\uE000${kept.push(html) - 1}\uE000`;
  let s = line.replace(/\uE000/g, '');
  s = s.replace(/`([^`\n]+)`/g, (_m, code: string) => keep(`<code>${escapeHtml(code)}</code>`));
  s = s.replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, (_m, label: string, url: string) =>
    keep(`<a href="${escapeHtml(url).replace(/"/g, '&quot;')}">${escapeHtml(label)}</a>`),
  );
  s = escapeHtml(s);
  s = s.replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, '<b>$1</b>');
  s = s.replace(/(^|[^\w])__(?=\S)(.+?)(?<=\S)__(?!\w)/g, '$1<b>$2</b>');
  s = s.replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '<s>$1</s>');
  s = s.replace(/(^|[^\w*])\*(?=[^\s*])([^*\n]*?[^\s*])?\*(?![\w*])/g, (m, pre: string, body?: string) =>
    body === undefined ? m : `${pre}<i>${body}</i>`,
  );
  s = s.replace(/(^|[^\w])_(?=[^\s_])([^_\n]*?[^\s_])?_(?!\w)/g, (m, pre: string, body?: string) =>
    body === undefined ? m : `${pre}<i>${body}</i>`,
  );
  s = s.replace(PLACEHOLDER, (_m, i: string) => kept[Number(i)]!);
  return wellFormed(s) ? s : escapeHtml(line);
}

/** Whether the tags this formatter makes open and close in order (Telegram refuses crossed tags). */
function wellFormed(html: string): boolean {
  const open: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-z]+)[^>]*>/g)) {
    if (!m[1]) open.push(m[2]!);
    else if (open.pop() !== m[2]) return false;
  }
  return open.length === 0;
}

/** A Markdown line's block-level meaning, then its inline markup. */
function lineHtml(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return heading[1] ? `<b>${inlineHtml(heading[1])}</b>` : '';
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '──────────';
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}• ${inlineHtml(bullet[2]!)}`;
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  if (quote) return `▎ ${inlineHtml(quote[1]!)}`;
  return inlineHtml(line);
}

const stripInline = (cell: string) => cell.replace(/\*\*|__|`/g, '').trim();

/** A Markdown table as aligned text lines. */
function tableLines(rows: string[]): string[] {
  const cells = rows
    .filter((r) => !/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(r))
    .map((r) => r.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map(stripInline));
  const widths: number[] = [];
  for (const row of cells) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return cells.map((row) =>
    row
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

type Block = { pre: false; html: string } | { pre: true; lines: string[] };

function blocks(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trim().startsWith(fence[1]!); i++) body.push(lines[i]!);
      out.push({ pre: true, lines: body });
      continue;
    }
    if (/^\s*\|.*\|\s*$/.test(line) && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '')) {
      const rows: string[] = [];
      for (; i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i]!); i++) rows.push(lines[i]!);
      i--;
      out.push({ pre: true, lines: tableLines(rows) });
      continue;
    }
    out.push({ pre: false, html: lineHtml(line) });
  }
  return out;
}

/** Cuts escaped text into pieces of at most `limit` characters, never inside an entity (&amp;). */
function hardSplit(escaped: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = escaped;
  while (rest.length > limit) {
    let cut = rest.lastIndexOf(' ', limit);
    if (cut < limit / 2) cut = limit;
    const amp = rest.lastIndexOf('&', cut);
    if (amp > cut - 6 && rest.indexOf(';', amp) >= cut) cut = amp;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^ /, '');
  }
  pieces.push(rest);
  return pieces;
}

/** Self-contained HTML pieces (tags balanced in each), each at most `limit` long. */
function pieces(markdown: string, limit: number): string[] {
  const out: string[] = [];
  for (const block of blocks(markdown)) {
    if (!block.pre) {
      if (block.html.length <= limit) out.push(block.html);
      else out.push(...hardSplit(escapeHtml(htmlToPlain(block.html)), limit));
      continue;
    }
    const room = limit - '<pre></pre>'.length;
    let current: string[] = [];
    let size = 0;
    const flush = () => {
      if (current.length) out.push(`<pre>${current.join('\n')}</pre>`);
      current = [];
      size = 0;
    };
    for (const raw of block.lines.length ? block.lines : ['']) {
      for (const line of hardSplit(escapeHtml(raw), room)) {
        if (current.length && size + 1 + line.length > room) flush();
        size += (current.length ? 1 : 0) + line.length;
        current.push(line);
      }
    }
    flush();
  }
  return out;
}

/** The Markdown reply as Telegram messages, in order; none for an empty reply. */
export function formatForTelegram(markdown: string, limit = TELEGRAM_MESSAGE_LIMIT): TelegramMessage[] {
  const messages: string[] = [];
  let current = '';
  for (const piece of pieces(markdown, limit)) {
    if (current && current.length + 1 + piece.length > limit) {
      messages.push(current);
      current = piece;
    } else current = current ? `${current}\n${piece}` : piece;
  }
  messages.push(current);
  return messages
    .map((m) => m.replace(/^\n+|\s+$/g, ''))
    .filter((m) => htmlToPlain(m).trim() !== '')
    .map((html) => ({ html, plain: htmlToPlain(html) }));
}
