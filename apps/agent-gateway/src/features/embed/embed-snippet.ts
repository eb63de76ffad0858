// The HTML an admin pastes into the host page (docs/embedding.md): the loader script with the key. The key is
// public, and the gateway's address is the one the host page's visitors reach it at (PUBLIC_BASE_URL, else the
// address the admin used), so the snippet works as pasted.

const ATTRIBUTE_ESCAPES: Record<string, string> = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };
const escapeAttribute = (value: string) => value.replace(/[&"<>]/g, (c) => ATTRIBUTE_ESCAPES[c]!);

/** `<script src="<base>/embed.js" data-embed-key="gwe_…" async></script>` */
export function embedSnippet(gatewayBaseUrl: string, embedKey: string): string {
  const src = `${gatewayBaseUrl.replace(/\/+$/, '')}/embed.js`;
  return `<script src="${escapeAttribute(src)}" data-embed-key="${escapeAttribute(embedKey)}" async></script>`;
}
