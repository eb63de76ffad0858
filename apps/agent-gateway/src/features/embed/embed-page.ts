import path from 'node:path';
import { quietLog } from '@pa/http-kit';
import { type Request, type Response, Router } from 'express';
import type { ActiveEmbedKey, EmbedKeysService } from './embed-keys-service.ts';

// The embed's two files (docs/embedding.md). `/embed.js` is the loader a host page includes: served so that
// another origin may run it (Cross-Origin-Resource-Policy: cross-origin). `/embed?key=gwe_…` is the chat in
// embed mode, in an iframe on the host page: its Content-Security-Policy allows exactly the key's origins as
// frame-ancestors, so a page anywhere else gets no chat at all, and the allowed origins are written into the page
// (the iframe takes postMessage from those only). A key that requires a visitor token says so in the page too, so
// that a visitor the host has not signed in is told to sign in there rather than meet a chat that refuses every
// question (the page itself holds nothing of the visitor's). An unknown or revoked key gets a short 404 that no
// page may frame.

const TITLE_MAX = 60;
const DEFAULT_TITLE = 'Porter';
const ACCENT = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** The page's CSP: the gateway's own defaults, and who may frame it. */
function pageCsp(frameAncestors: string): string {
  return [
    "default-src 'self'",
    "connect-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

const one = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** What the loader asks of the page (all optional, all checked: a bad value falls back to the default). */
export function pageOptions(query: Request['query']) {
  const title = one(query.title)?.trim().slice(0, TITLE_MAX);
  const accent = one(query.accent);
  return {
    title: title || DEFAULT_TITLE,
    accent: accent && ACCENT.test(accent) ? accent : null,
    conversations: one(query.conversations) === '1' || one(query.conversations) === 'true',
    mode: one(query.mode) === 'launcher' ? 'launcher' : 'inline',
    // who says who the visitor is: the host's token, an anonymous id the loader keeps in the host page's storage
    // (a cross-site iframe's own storage is blocked by browsers that block third-party cookies), or the frame
    identity: (['token', 'host'] as const).find((v) => v === one(query.identity)) ?? 'frame',
  } as const;
}

const ICON = (d: string) =>
  `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path d="${d}"/></svg>`;

function embedPage(rawKey: string, key: ActiveEmbedKey, opts: ReturnType<typeof pageOptions>): string {
  const title = escapeHtml(opts.title);
  const data = {
    'data-embed-key': rawKey,
    'data-origins': JSON.stringify(key.origins),
    'data-accent': opts.accent ?? '',
    'data-conversations': String(opts.conversations),
    'data-mode': opts.mode,
    'data-identity': opts.identity,
    'data-require-token': String(key.requireVisitorToken),
  };
  const attrs = Object.entries(data)
    .map(([k, v]) => `${k}="${escapeHtml(v)}"`)
    .join(' ');
  const toolset = key.allowProposals
    ? 'It can read the platform and propose changes, which a person reviews before anything changes.'
    : 'It reads the platform only: it cannot change anything.';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover" />
    <meta name="color-scheme" content="light dark" />
    <meta name="referrer" content="no-referrer" />
    <title>${title}</title>
    <link rel="stylesheet" href="/theme.css" />
    <link rel="stylesheet" href="/messages.css" />
    <link rel="stylesheet" href="/reply-tables.css" />
    <link rel="stylesheet" href="/embed/embed.css" />
    <script type="module" src="/embed/embed-app.js"></script>
  </head>
  <body ${attrs}>
    <div class="embed" id="embed">
      <header class="embed-header">
        <button type="button" id="conversations-button" class="icon-button" aria-label="Your conversations" aria-controls="conversations" aria-expanded="false" hidden>${ICON('M4 6h16M4 12h16M4 18h10')}</button>
        <svg class="embed-mark" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8" /><path d="M9 25V12l7-5 7 5v13h-5v-7h-4v7z" /></svg>
        <h1 class="embed-title">${title}</h1>
        <button type="button" id="new-conversation" class="icon-button" aria-label="New conversation" title="New conversation">${ICON('M12 5v14M5 12h14')}</button>
        <button type="button" id="close-button" class="icon-button" aria-label="Close the chat" title="Close" hidden>${ICON('M6 6l12 12M18 6L6 18')}</button>
      </header>
      <nav id="conversations" class="embed-conversations" aria-label="Your conversations" hidden>
        <ul id="conversation-list" class="embed-conversation-list"></ul>
        <p id="conversations-empty" class="embed-muted" hidden>No earlier conversations yet.</p>
      </nav>
      <main class="embed-main">
        <div id="welcome" class="embed-welcome">
          <p class="embed-welcome-lead">Hello. Ask about properties, compliance certificates, tenancies, deals or rent.</p>
          <p class="embed-muted">${escapeHtml(toolset)}</p>
        </div>
        <div id="log" class="embed-log" role="log" aria-live="polite" aria-relevant="additions text" aria-label="Conversation" tabindex="0"></div>
        <p id="notice" class="embed-notice" role="alert" hidden></p>
      </main>
      <form id="composer" class="embed-composer" autocomplete="off" novalidate>
        <label for="message-input" class="visually-hidden">Message</label>
        <textarea id="message-input" class="embed-input" name="message" rows="1" maxlength="8000" placeholder="Ask a question" aria-describedby="composer-hint"></textarea>
        <button type="submit" id="send-button" class="embed-send">Send</button>
        <button type="button" id="stop-button" class="embed-stop" hidden>Stop</button>
        <p id="composer-hint" class="visually-hidden">Enter sends, Shift+Enter adds a new line.</p>
      </form>
    </div>
  </body>
</html>
`;
}

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8" /><title>Chat not available</title></head>
<body><p>This chat is not available: its embed key is unknown or was revoked.</p></body></html>
`;

export function createEmbedPageRouter(deps: {
  embedKeys: Pick<EmbedKeysService, 'authenticate'>;
  webDir: string;
}): Router {
  const router = Router();
  const loader = path.join(deps.webDir, 'embed', 'embed.js');

  router.get('/embed.js', quietLog, (_req, res) => {
    res.set({
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Cache-Control': 'public, max-age=300',
    });
    res.type('text/javascript').sendFile(loader);
  });

  router.get('/embed', async (req: Request, res: Response) => {
    const raw = one(req.query.key)?.trim() ?? '';
    const key = raw ? await deps.embedKeys.authenticate(raw) : null;
    res.set({ 'Cache-Control': 'no-store', 'Cross-Origin-Resource-Policy': 'cross-origin' });
    if (!key) {
      res.set('Content-Security-Policy', pageCsp("'none'"));
      res.status(404).type('html').send(NOT_FOUND_PAGE);
      return;
    }
    res.set('Content-Security-Policy', pageCsp(key.origins.join(' ')));
    res.type('html').send(embedPage(raw, key, pageOptions(req.query)));
  });

  return router;
}
