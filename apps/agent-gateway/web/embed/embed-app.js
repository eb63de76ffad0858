// The chat in embed mode (/embed, in an iframe on another site: docs/embedding.md). It talks to /api/embed/* with
// the embed key and the visitor: the host's visitor token, which arrives by postMessage from the loader (never in a
// URL), or an anonymous id, which the loader keeps in the host page's storage and hands over the same way (an
// iframe placed by hand keeps its own). Replies stream over fetch (a POST
// body, so no token or message ever sits in a URL). On load it shows the visitor's latest conversation again.
//
// Messages from the parent are taken only from the origins the embed key allows (written into the page by the
// server) and only from the parent window itself.
//
// A key that requires a visitor token (data-require-token) refuses anonymous visitors: until the host hands a token
// over, the panel says the visitor must be signed in on the host's site and asks the server nothing.
import { renderMarkdownInto } from '../markdown.js';

const TOKEN_MESSAGE = 'porter-embed:visitor-token';
const VISITOR_MESSAGE = 'porter-embed:visitor';
// how long the page waits for the loader to say who the visitor is before it says so (or makes do)
const TOKEN_WAIT_MS = 10_000;
const MAX_TOKEN_LENGTH = 4096;

const body = document.body;
const config = {
  key: body.dataset.embedKey ?? '',
  /** @type {string[]} */
  origins: JSON.parse(body.dataset.origins || '[]'),
  accent: body.dataset.accent ?? '',
  conversations: body.dataset.conversations === 'true',
  launcher: body.dataset.mode === 'launcher',
  /** token: the host's visitor token; host: an anonymous id the loader keeps; frame: one kept here */
  identity: body.dataset.identity ?? 'frame',
  /** the key refuses anonymous visitors: only the host's visitor token will do */
  requireToken: body.dataset.requireToken === 'true',
};

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const log = byId('log');
const welcome = byId('welcome');
const notice = byId('notice');
const composer = /** @type {HTMLFormElement} */ (byId('composer'));
const input = /** @type {HTMLTextAreaElement} */ (byId('message-input'));
const sendButton = /** @type {HTMLButtonElement} */ (byId('send-button'));
const stopButton = /** @type {HTMLButtonElement} */ (byId('stop-button'));
const closeButton = /** @type {HTMLButtonElement} */ (byId('close-button'));
const newButton = /** @type {HTMLButtonElement} */ (byId('new-conversation'));
const conversationsButton = /** @type {HTMLButtonElement} */ (byId('conversations-button'));
const conversationsNav = byId('conversations');
const conversationList = byId('conversation-list');
const conversationsEmpty = byId('conversations-empty');
const PLACEHOLDER = input.placeholder;

/** @type {string | null} */
let sessionId = null;
/** @type {string | null} */
let visitorToken = null;
/** @type {AbortController | null} */
let running = null;
/** set while the chat cannot be used (a refused sign-in, a revoked key): the composer stays off */
let blocked = false;
/** set while a conversation is being loaded: a message sent meanwhile would be wiped by it */
let loading = false;
/** the loader opened the panel and wants the message box focused (once it can take focus) */
let focusWanted = false;

// ---- the host's accent ---------------------------------------------------------------------------------------

/** @param {string} hex `#rgb` or `#rrggbb` @returns {number[]} */
const rgbOf = (hex) => {
  const full = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join('') : hex.slice(1);
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
};
/** WCAG relative luminance @param {number[]} rgb */
const luminance = (rgb) => {
  const [r = 0, g = 0, b = 0] = rgb.map((c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
/** @param {number[]} a @param {number[]} b */
const contrast = (a, b) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return ((x ?? 0) + 0.05) / ((y ?? 0) + 0.05);
};
/** @param {number[]} rgb */
const hexOf = (rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

const dark = matchMedia('(prefers-color-scheme: dark)');
/**
 * The host's colour as the accent, moved towards white on the dark background (towards black on the light one)
 * just as far as it takes to stand out (3:1, WCAG's contrast for controls), with black or white text on it,
 * whichever reads better. Set through the CSSOM, which the page's CSP (style-src 'self') allows.
 */
function applyAccent() {
  const background = dark.matches ? [27, 31, 30] : [255, 255, 255];
  const towards = dark.matches ? 255 : 0;
  const base = rgbOf(config.accent);
  let rgb = base;
  for (let step = 1; step <= 10 && contrast(rgb, background) < 3; step++) {
    rgb = base.map((c) => c + (towards - c) * step * 0.1);
  }
  const root = document.documentElement.style;
  root.setProperty('--accent', hexOf(rgb));
  // white text wins below a luminance of about 0.179
  root.setProperty('--accent-text', luminance(rgb) < 0.179 ? '#ffffff' : '#111111');
}
if (config.accent) {
  applyAccent();
  dark.addEventListener('change', applyAccent);
}

// ---- the visitor ---------------------------------------------------------------------------------------------

const ANONYMOUS_ID = /^[0-9A-Za-z_-]{22,64}$/;

/**
 * An anonymous visitor's id, made once and kept (per embed key) in this iframe's own storage: for an iframe placed
 * without the loader. A browser that blocks third-party storage refuses it, and the visitor is then new on every
 * load; the loader keeps the id in the host page's storage instead and hands it over (identity "host").
 */
function frameVisitor() {
  const name = `porter-embed:visitor:${config.key.slice(0, 12)}`;
  try {
    const kept = localStorage.getItem(name);
    if (kept && ANONYMOUS_ID.test(kept)) return kept;
  } catch {
    // storage refused: a new id below, for this load only
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
/** @type {string | null} */
let anonymousId = config.identity === 'frame' ? frameVisitor() : null;

/** @returns {Record<string, string>} */
function headers() {
  return {
    'Content-Type': 'application/json',
    'X-Embed-Key': config.key,
    ...(visitorToken ? { 'X-Embed-Visitor-Token': visitorToken } : {}),
    ...(!visitorToken && anonymousId ? { 'X-Embed-Visitor': anonymousId } : {}),
  };
}

// ---- the parent page -----------------------------------------------------------------------------------------

/**
 * Tells the host page something (nothing secret). The parent's exact origin is unknown here, so the message is
 * addressed to each origin the key allows: only the one the parent is on receives it.
 * @param {Record<string, unknown>} message
 */
function tellParent(message) {
  if (window.parent === window) return;
  for (const origin of config.origins) window.parent.postMessage(message, origin);
}

window.addEventListener('message', (event) => {
  if (event.source !== window.parent || !config.origins.includes(event.origin)) return;
  const data = event.data;
  if (!data || typeof data !== 'object') return;
  if (
    data.type === VISITOR_MESSAGE &&
    config.identity === 'host' &&
    anonymousId === null &&
    typeof data.id === 'string' &&
    ANONYMOUS_ID.test(data.id)
  ) {
    // the host has no token for this visitor: a key for signed-in visitors only cannot take them (the panel has
    // said so since it started)
    if (config.requireToken) return;
    anonymousId = data.id;
    unblock();
    void restore();
  } else if (
    data.type === TOKEN_MESSAGE &&
    typeof data.token === 'string' &&
    data.token.length <= MAX_TOKEN_LENGTH
  ) {
    const first = visitorToken === null;
    const changed = visitorToken !== data.token;
    visitorToken = data.token;
    if (first || (changed && blocked)) {
      unblock();
      void restore();
    }
  } else if (data.type === 'porter-embed:focus') {
    focusWanted = true;
    input.focus();
  }
});

// ---- the conversation ----------------------------------------------------------------------------------------

/**
 * @param {'user' | 'assistant'} role
 * @param {string} text
 * @returns {HTMLElement} the message's body
 */
function addMessage(role, text) {
  welcome.hidden = true;
  const item = document.createElement('article');
  item.className = `message message-${role}`;
  const author = document.createElement('p');
  author.className = 'message-author';
  author.textContent = role === 'user' ? 'You' : 'Porter';
  const content = document.createElement('div');
  content.className = 'message-body';
  if (role === 'user') content.textContent = text;
  else renderMarkdownInto(content, text);
  item.append(author, content);
  log.append(item);
  log.scrollTop = log.scrollHeight;
  return content;
}

/** @param {string} text */
function addError(text) {
  const item = document.createElement('p');
  item.className = 'message message-error';
  item.textContent = text;
  log.append(item);
  log.scrollTop = log.scrollHeight;
}

function clearConversation() {
  sessionId = null;
  log.replaceChildren();
  // the sign-in notice keeps the welcome's place until a token comes
  welcome.hidden = notice.dataset.kind === 'sign-in';
}

/**
 * Stops the chat with a notice: an error (a refused token, a revoked key), or the visitor's next step (sign in),
 * which takes the welcome's place: "Ask about…" would invite a question the chat cannot take.
 * @param {string} text @param {'error' | 'sign-in'} [kind] @param {string} [next] what to do, a line of its own
 */
function block(text, kind = 'error', next) {
  blocked = true;
  notice.textContent = text;
  if (next) {
    const lead = document.createElement('strong');
    lead.className = 'embed-notice-lead';
    lead.textContent = text;
    notice.replaceChildren(lead, ` ${next}`);
  }
  notice.dataset.kind = kind;
  notice.hidden = false;
  if (kind === 'sign-in') welcome.hidden = true;
  input.placeholder = kind === 'sign-in' ? 'Sign in to ask a question' : PLACEHOLDER;
  setBusy(false);
}

function unblock() {
  blocked = false;
  notice.hidden = true;
  notice.textContent = '';
  delete notice.dataset.kind;
  welcome.hidden = log.childElementCount > 0;
  input.placeholder = PLACEHOLDER;
  setBusy(false);
}

/** @param {string} url @returns {string | null} */
function originOf(url) {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}

/**
 * The host site's name as its visitor knows it (`intranet.example.co.uk`): the parent's origin (Chromium and
 * Safari tell it; others give it as the referrer, which the loader limits to the origin), believed only when the
 * key names it; else the key's one origin; else null.
 */
function hostSite() {
  const ancestors = /** @type {DOMStringList | undefined} */ (location.ancestorOrigins);
  const origin =
    [ancestors?.[0], originOf(document.referrer)].find((o) => o && config.origins.includes(o)) ??
    (config.origins.length === 1 ? config.origins[0] : null);
  return origin ? new URL(origin).host : null;
}

/** The key takes signed-in visitors only, and this one has no token: say so, and let the host hand one over. */
function needSignIn() {
  const site = hostSite();
  block(
    `This chat needs you to be signed in on ${site ?? 'this website'}.`,
    'sign-in',
    'Sign in to the site, then reload this page.',
  );
  // the same event as a refused token: a host that can mint one hands it to PorterEmbed.setVisitorToken
  tellParent({ type: 'porter-embed:visitor-token-refused' });
}

/** @param {boolean} busy */
function setBusy(busy) {
  input.disabled = blocked || loading;
  sendButton.disabled = busy || blocked || loading;
  sendButton.hidden = busy;
  stopButton.hidden = !busy;
}

/**
 * What a refusal means to the visitor. Refusals of the embed itself (the sign-in, the key, the site) stop the
 * chat with a notice; the others are said in the conversation, and the visitor may try again.
 * @param {Response} res
 */
async function refusal(res) {
  /** @type {{ code?: string; detail?: string }} */
  let problem = {};
  try {
    problem = await res.json();
  } catch {
    // not a problem document: the words below do
  }
  switch (problem.code) {
    case 'embed-visitor-token-invalid':
      block(
        /expired/.test(problem.detail ?? '')
          ? 'Your sign-in to this chat has expired. Reload the page to continue.'
          : 'Your sign-in to this chat was not accepted. Reload the page to try again.',
      );
      tellParent({ type: 'porter-embed:visitor-token-refused' });
      return;
    case 'embed-visitor-token-required':
      needSignIn();
      return;
    case 'embed-key-invalid':
      block('This chat is no longer available on this site.');
      return;
    case 'embed-origin-not-allowed':
      block('This chat is not enabled for this site.');
      return;
    case 'session-not-found':
      clearConversation();
      addError('That conversation is no longer available. Ask again to start a new one.');
      return;
    default:
      addError(problem.detail ?? 'Something went wrong. Try again in a moment.');
  }
}

/** @param {string} path @param {unknown} payload @param {AbortSignal} [signal] */
function post(path, payload, signal) {
  return fetch(path, { method: 'POST', headers: headers(), body: JSON.stringify(payload), signal });
}

/**
 * Shows the visitor's conversation again: the named one, else the latest.
 * @param {string} [id]
 */
async function restore(id) {
  loading = true;
  setBusy(false);
  try {
    await load(id);
  } finally {
    loading = false;
    setBusy(false);
    // a disabled box could not take the focus the loader asked for while loading
    if (focusWanted && !blocked) input.focus();
  }
}

/** @param {string} [id] */
async function load(id) {
  let res;
  try {
    res = await post('/api/embed/session', id ? { sessionId: id } : {});
  } catch {
    addError('The chat could not be reached. Check your connection and reload the page.');
    return;
  }
  if (!res.ok) return refusal(res);
  /** @type {{ sessionId: string | null; turns: { role: 'user' | 'assistant'; content: string; status: string }[] }} */
  const data = await res.json();
  log.replaceChildren();
  sessionId = data.sessionId;
  welcome.hidden = data.turns.length > 0;
  for (const turn of data.turns) {
    if (turn.role === 'assistant' && !turn.content && turn.status !== 'complete') {
      addError('This answer was interrupted.');
    } else {
      addMessage(turn.role, turn.content);
    }
  }
}

/** @param {string} message */
async function send(message) {
  addMessage('user', message);
  const answer = addMessage('assistant', '');
  const item = /** @type {HTMLElement} */ (answer.parentElement);
  item.classList.add('message-pending');
  running = new AbortController();
  setBusy(true);
  let text = '';
  try {
    const res = await post(
      '/api/embed/chat/stream',
      { message, ...(sessionId ? { sessionId } : {}), requestId: crypto.randomUUID() },
      running.signal,
    );
    if (!res.ok || !res.body) {
      item.remove();
      await refusal(res);
      return;
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (!data || data === '[DONE]') continue;
        const chunk = JSON.parse(data);
        if (chunk.error) {
          addError(chunk.error.message || 'The answer failed. Try again.');
          continue;
        }
        if (chunk.session_id) sessionId = chunk.session_id;
        const delta = chunk.choices?.[0]?.delta?.content;
        if (delta) {
          text += delta;
          renderMarkdownInto(answer, text);
          log.scrollTop = log.scrollHeight;
        }
      }
    }
  } catch (err) {
    if (running?.signal.aborted) {
      if (!text) addError('Stopped.');
    } else {
      addError('The connection was lost before the answer finished. Try again.');
    }
    void err;
  } finally {
    item.classList.remove('message-pending');
    // an answer that never began leaves no empty "Porter" behind (the error, if any, says what happened)
    if (!text) item.remove();
    running = null;
    setBusy(false);
    if (!blocked) input.focus();
  }
}

// ---- the conversation list (data-conversations) --------------------------------------------------------------

async function showConversations() {
  conversationsNav.hidden = false;
  conversationsButton.setAttribute('aria-expanded', 'true');
  const res = await post('/api/embed/sessions', {});
  if (!res.ok) {
    closeConversations();
    return refusal(res);
  }
  /** @type {{ sessions: { sessionId: string; title: string; lastActiveAt: string }[] }} */
  const data = await res.json();
  conversationList.replaceChildren(
    ...data.sessions.map((s) => {
      const li = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      if (s.sessionId === sessionId) button.setAttribute('aria-current', 'true');
      const when = document.createElement('small');
      when.textContent = new Date(s.lastActiveAt).toLocaleString('en-GB', {
        dateStyle: 'medium',
        timeStyle: 'short',
      });
      button.append(s.title, when);
      button.addEventListener('click', () => {
        closeConversations();
        void restore(s.sessionId);
        input.focus();
      });
      li.append(button);
      return li;
    }),
  );
  conversationsEmpty.hidden = data.sessions.length > 0;
  /** @type {HTMLElement | null} */ (conversationList.querySelector('button'))?.focus();
}

function closeConversations() {
  conversationsNav.hidden = true;
  conversationsButton.setAttribute('aria-expanded', 'false');
}

// ---- wiring --------------------------------------------------------------------------------------------------

composer.addEventListener('submit', (event) => {
  event.preventDefault();
  const message = input.value.trim();
  if (!message || running || blocked) return;
  input.value = '';
  fitInput();
  void send(message);
});

input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    composer.requestSubmit();
  }
});

function fitInput() {
  input.style.height = 'auto';
  input.style.height = `${Math.min(input.scrollHeight + 2, 144)}px`;
}
input.addEventListener('input', fitInput);

stopButton.addEventListener('click', () => running?.abort());

newButton.addEventListener('click', () => {
  running?.abort();
  clearConversation();
  closeConversations();
  input.focus();
});

if (config.conversations) {
  conversationsButton.hidden = false;
  conversationsButton.addEventListener('click', () => {
    if (conversationsNav.hidden) void showConversations();
    else closeConversations();
  });
}

if (config.launcher) {
  closeButton.hidden = false;
  closeButton.addEventListener('click', () => tellParent({ type: 'porter-embed:close' }));
}

document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  if (!conversationsNav.hidden) {
    closeConversations();
    conversationsButton.focus();
  } else if (config.launcher) {
    tellParent({ type: 'porter-embed:close' });
  }
});

// ---- start ---------------------------------------------------------------------------------------------------

tellParent({ type: 'porter-embed:ready' });
if (config.requireToken && config.identity !== 'token') {
  // no token is coming unless the host calls PorterEmbed.setVisitorToken (which unblocks the chat)
  needSignIn();
} else if (config.identity === 'frame') {
  void restore();
} else {
  // nothing is asked of the server before the parent has said who the visitor is
  blocked = true;
  setBusy(false);
  setTimeout(() => {
    if (config.identity === 'token' && visitorToken === null) {
      if (config.requireToken) needSignIn();
      else block('Waiting for this site to sign you in to the chat. If this stays, reload the page.');
    } else if (config.identity === 'host' && anonymousId === null && visitorToken === null) {
      // the loader did not answer: a visitor of this load only
      anonymousId = frameVisitor();
      unblock();
      void restore();
    }
  }, TOKEN_WAIT_MS);
}
