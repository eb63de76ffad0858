import type { MessageStructureObject } from 'imapflow';

// What is kept of a message (docs/email.md): its envelope, the names of its attachments and a snippet of at most 255
// characters of its text. Never the body: only the first few KiB of the text part are downloaded to cut it from.

export const SNIPPET_CHARS = 255;

/** The part to take the snippet from: the first text/plain, else the first text/html; null when none. */
export function snippetPart(
  structure: MessageStructureObject | undefined,
): { part: string; html: boolean } | null {
  let html: string | null = null;
  const walk = (node: MessageStructureObject | undefined): string | null => {
    if (!node) return null;
    if (!isAttachment(node)) {
      if (node.type === 'text/plain') return node.part ?? '1';
      if (node.type === 'text/html' && html === null) html = node.part ?? '1';
    }
    for (const child of node.childNodes ?? []) {
      const found = walk(child);
      if (found) return found;
    }
    return null;
  };
  const plain = walk(structure);
  if (plain) return { part: plain, html: false };
  return html ? { part: html, html: true } : null;
}

function isAttachment(node: MessageStructureObject): boolean {
  return node.disposition === 'attachment' || Boolean(node.dispositionParameters?.filename);
}

/** The file names of the message's attachments (at most 20, each at most 200 characters). */
export function attachmentNames(structure: MessageStructureObject | undefined): string[] {
  const names: string[] = [];
  const walk = (node: MessageStructureObject | undefined) => {
    if (!node) return;
    if (isAttachment(node) || (node.parameters?.name && !node.type.startsWith('multipart/'))) {
      const name = node.dispositionParameters?.filename ?? node.parameters?.name ?? 'attachment';
      names.push(name.slice(0, 200));
    }
    for (const child of node.childNodes ?? []) walk(child);
  };
  walk(structure);
  return names.slice(0, 20);
}

/** Text as a one-line snippet: tags (for HTML) and runs of whitespace collapsed, cut to 255 characters. */
export function snippetOf(text: string, html: boolean): string {
  const plain = html
    ? text.replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>/gi, ' ').replace(/<[^>]*>/g, ' ')
    : text;
  const oneLine = plain
    .replace(/&nbsp;/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return oneLine.length <= SNIPPET_CHARS ? oneLine : `${oneLine.slice(0, SNIPPET_CHARS - 1)}…`;
}
