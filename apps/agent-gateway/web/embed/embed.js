// Porter's embed loader (docs/embedding.md), served as /embed.js and run on the HOST page:
//
//   <script src="https://gateway.example/embed.js" data-embed-key="gwe_…" async></script>
//
// It draws a launcher button and a panel holding an iframe of the gateway's /embed page (data-mode="launcher", the
// default), or puts the iframe into an element the host placed (data-mode="inline" data-target="#css-selector").
// Attributes: data-accent (a #hex colour), data-position (bottom-right | bottom-left), data-title,
// data-conversations ("true": the visitor's conversation list), data-visitor-token (a JWT from the host's server).
// API: window.PorterEmbed.setVisitorToken(jwt), .open(), .close().
//
// The visitor token goes to the iframe by postMessage addressed to the gateway's origin only, never in a URL; an
// anonymous visitor's id is kept in this (the host's) page's storage and handed over the same way.
// Styles are set through the CSSOM (element.style), which a host's CSP allows even without 'unsafe-inline'. The
// launcher is a real button (aria-expanded, aria-controls); Escape closes the panel (the iframe reports it) and
// focus goes into the panel and back to the button; under 600 px the panel fills the screen; its frame follows
// the visitor's prefers-color-scheme, as the chat inside does.
(() => {
  const script = /** @type {HTMLScriptElement | null} */ (
    document.currentScript ?? document.querySelector('script[data-embed-key][src*="/embed.js"]')
  );
  const host = /** @type {Window & { PorterEmbed?: unknown }} */ (window);
  if (!script || host.PorterEmbed) return;
  const key = script.dataset.embedKey ?? '';
  const gateway = new URL(script.src, location.href).origin;
  const accent = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(script.dataset.accent ?? '')
    ? /** @type {string} */ (script.dataset.accent)
    : '';
  const left = script.dataset.position === 'bottom-left';
  const inline = script.dataset.mode === 'inline';
  const title = (script.dataset.title ?? '').slice(0, 60);
  const conversations = script.dataset.conversations === 'true';
  /** @type {string | null} */
  let token = script.dataset.visitorToken || null;
  const usesToken = token !== null || script.hasAttribute('data-visitor-token');
  if (!/^gwe_[0-9A-Za-z]{38}$/.test(key)) {
    console.error('Porter embed: data-embed-key must be the gwe_… key from the gateway’s Settings.');
    return;
  }

  const phone = matchMedia('(max-width: 599px)');
  const dark = matchMedia('(prefers-color-scheme: dark)');
  const panelId = `porter-embed-panel-${Math.random().toString(36).slice(2, 8)}`;

  /** @type {HTMLIFrameElement | null} */
  let frame = null;
  let frameReady = false;
  let isOpen = false;

  function frameSrc() {
    const q = new URLSearchParams({ key, mode: inline ? 'inline' : 'launcher' });
    if (accent) q.set('accent', accent);
    if (title) q.set('title', title);
    if (conversations) q.set('conversations', '1');
    // only whether a token will come: the token itself (or the anonymous id) goes by postMessage
    q.set('identity', usesToken ? 'token' : 'host');
    return `${gateway}/embed?${q}`;
  }

  function makeFrame() {
    const f = document.createElement('iframe');
    f.src = frameSrc();
    f.title = title || 'Chat with Porter';
    f.setAttribute('allow', 'clipboard-write');
    f.referrerPolicy = 'strict-origin';
    Object.assign(f.style, { border: '0', width: '100%', height: '100%', display: 'block' });
    return f;
  }

  /**
   * An anonymous visitor's id, kept per key in the HOST page's storage: the iframe is another site's, and browsers
   * that block third-party cookies refuse its own storage. Without storage here either, the id lasts this page.
   */
  function anonymousVisitor() {
    const name = `porter-embed:visitor:${key.slice(0, 12)}`;
    try {
      const kept = localStorage.getItem(name);
      if (kept && /^[0-9A-Za-z_-]{22,64}$/.test(kept)) return kept;
    } catch {
      // storage refused: a new id below
    }
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    const id = btoa(String.fromCharCode(...bytes))
      .replaceAll('+', '-')
      .replaceAll('/', '_')
      .replace(/=+$/, '');
    try {
      localStorage.setItem(name, id);
    } catch {
      // as above
    }
    return id;
  }

  /** Tells the iframe who the visitor is: the token when there is one, else the anonymous id. */
  function sendToken() {
    if (!frame?.contentWindow || !frameReady) return;
    if (token) frame.contentWindow.postMessage({ type: 'porter-embed:visitor-token', token }, gateway);
    else if (!usesToken) {
      frame.contentWindow.postMessage({ type: 'porter-embed:visitor', id: anonymousVisitor() }, gateway);
    }
  }

  window.addEventListener('message', (event) => {
    if (!frame || event.source !== frame.contentWindow || event.origin !== gateway) return;
    const type = event.data && typeof event.data === 'object' ? event.data.type : undefined;
    if (type === 'porter-embed:ready') {
      frameReady = true;
      sendToken();
      if (isOpen) frame.contentWindow?.postMessage({ type: 'porter-embed:focus' }, gateway);
    } else if (type === 'porter-embed:close') {
      close();
    } else if (type === 'porter-embed:visitor-token-refused') {
      // the host may listen and hand a fresh token to PorterEmbed.setVisitorToken
      script.dispatchEvent(new CustomEvent('porter-embed:token-refused', { bubbles: true }));
    }
  });

  // ---- inline: the host placed the panel ---------------------------------------------------------------------

  if (inline) {
    const selector = (script.dataset.target ?? '').trim();
    /** @type {Element | null} */
    let target = null;
    let problem = '';
    if (!selector) {
      problem =
        'data-mode="inline" needs data-target, a CSS selector of the element to hold the chat, such as data-target="#help-chat".';
    } else {
      try {
        target = document.querySelector(selector);
        if (!target) {
          problem = `data-target="${selector}" names no element on this page: the element must exist when the script runs.`;
        }
      } catch {
        // said in the console rather than thrown into the host page's own scripts
        problem = `data-target="${selector}" is not a CSS selector; use one such as #help-chat.`;
      }
    }
    if (!target) {
      console.error(`Porter embed: ${problem}`);
      return;
    }
    frame = makeFrame();
    if (!(target instanceof HTMLElement) || target.clientHeight < 200) {
      frame.style.minHeight = '480px';
    }
    target.append(frame);
    isOpen = true;
    expose();
    return;
  }

  // ---- launcher: a button and a panel ------------------------------------------------------------------------

  const button = document.createElement('button');
  button.type = 'button';
  button.setAttribute('aria-label', title ? `Open ${title}` : 'Open the chat');
  button.setAttribute('aria-expanded', 'false');
  button.setAttribute('aria-controls', panelId);
  const svgNs = 'http://www.w3.org/2000/svg';
  const icon = document.createElementNS(svgNs, 'svg');
  icon.setAttribute('viewBox', '0 0 24 24');
  icon.setAttribute('width', '28');
  icon.setAttribute('height', '28');
  icon.setAttribute('aria-hidden', 'true');
  icon.setAttribute('focusable', 'false');
  const path = document.createElementNS(svgNs, 'path');
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '2');
  path.setAttribute('stroke-linecap', 'round');
  path.setAttribute('stroke-linejoin', 'round');
  icon.append(path);
  button.append(icon);

  const panel = document.createElement('div');
  panel.id = panelId;
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-label', title || 'Chat with Porter');

  const colour = accent || '#0f766e';
  /** black or white on the accent, whichever reads better (WCAG luminance) */
  function onAccent() {
    const hex = colour.length === 4 ? [...colour.slice(1)].map((c) => c + c).join('') : colour.slice(1);
    const lum = [0, 2, 4]
      .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
      .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][/** @type {0 | 1 | 2} */ (i)], 0);
    return lum < 0.179 ? '#ffffff' : '#111111';
  }

  function layout() {
    const side = left ? 'left' : 'right';
    Object.assign(button.style, {
      position: 'fixed',
      bottom: '20px',
      [side]: '20px',
      [left ? 'right' : 'left']: 'auto',
      zIndex: '2147483000',
      width: '60px',
      height: '60px',
      borderRadius: '50%',
      border: '0',
      padding: '0',
      display: isOpen && phone.matches ? 'none' : 'grid',
      placeItems: 'center',
      background: colour,
      color: onAccent(),
      cursor: 'pointer',
      boxShadow: dark.matches ? '0 4px 16px rgba(0,0,0,0.6)' : '0 4px 16px rgba(0,0,0,0.25)',
      outlineOffset: '3px',
    });
    // a speech bubble while closed, a cross while open
    path.setAttribute('d', isOpen ? 'M6 6l12 12M18 6L6 18' : 'M4 5h16v11H9l-5 4zM8 9h8M8 12h5');
    button.setAttribute('aria-label', `${isOpen ? 'Close' : 'Open'} ${title || 'the chat'}`);
    const common = {
      // display, not the hidden attribute: a host's CSS may style [hidden]
      display: isOpen ? 'block' : 'none',
      position: 'fixed',
      zIndex: '2147483001',
      overflow: 'hidden',
      background: dark.matches ? '#1b1f1e' : '#ffffff',
      colorScheme: 'light dark',
    };
    if (phone.matches) {
      Object.assign(panel.style, common, {
        inset: '0',
        width: '100%',
        height: '100%',
        borderRadius: '0',
        border: '0',
        boxShadow: 'none',
      });
    } else {
      Object.assign(panel.style, common, {
        inset: 'auto',
        bottom: '92px',
        [side]: '20px',
        [left ? 'right' : 'left']: 'auto',
        width: '400px',
        height: 'min(640px, calc(100vh - 120px))',
        borderRadius: '16px',
        border: `1px solid ${dark.matches ? '#38403d' : '#d5d9d6'}`,
        boxShadow: dark.matches ? '0 12px 40px rgba(0,0,0,0.7)' : '0 12px 40px rgba(0,0,0,0.22)',
      });
    }
  }

  function open() {
    if (isOpen) return;
    isOpen = true;
    if (!frame) {
      frame = makeFrame();
      panel.append(frame);
    }
    button.setAttribute('aria-expanded', 'true');
    layout();
    frame.focus();
    if (frameReady) frame.contentWindow?.postMessage({ type: 'porter-embed:focus' }, gateway);
  }

  function close() {
    if (!isOpen) return;
    isOpen = false;
    button.setAttribute('aria-expanded', 'false');
    layout();
    button.focus();
  }

  button.addEventListener('click', () => (isOpen ? close() : open()));
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && isOpen) close();
  });
  phone.addEventListener('change', layout);
  dark.addEventListener('change', layout);

  function mount() {
    layout();
    document.body.append(panel, button);
    expose();
  }
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, { once: true });

  function expose() {
    host.PorterEmbed = {
      /** @param {string} jwt a visitor token from the host's server */
      setVisitorToken(jwt) {
        token = typeof jwt === 'string' && jwt ? jwt : null;
        sendToken();
      },
      open: inline ? () => {} : open,
      close: inline ? () => {} : close,
    };
  }
})();
