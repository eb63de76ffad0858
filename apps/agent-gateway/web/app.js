// The web chat: wires the message log, the composer, the command palette and the tabs to the gateway API.
import { ApiError, clearSession, getProviders, streamChat } from './chat-api.js';
import { COMMANDS, isKnownCommand, parseCommand } from './commands.js';
import { renderMarkdownInto } from './markdown.js';
import { createPalette } from './palette.js';
import { createSettings } from './settings.js';
import { setupTabs } from './tabs.js';

const SESSION_KEY = 'agentSessionId';

const els = {
  log: /** @type {HTMLElement} */ (document.getElementById('log')),
  emptyHint: /** @type {HTMLElement} */ (document.getElementById('empty-hint')),
  form: /** @type {HTMLFormElement} */ (document.getElementById('composer')),
  input: /** @type {HTMLTextAreaElement} */ (document.getElementById('message-input')),
  send: /** @type {HTMLButtonElement} */ (document.getElementById('send-button')),
  stop: /** @type {HTMLButtonElement} */ (document.getElementById('stop-button')),
  palette: /** @type {HTMLUListElement} */ (document.getElementById('command-palette')),
  provider: /** @type {HTMLElement} */ (document.getElementById('active-provider')),
  tablist: /** @type {HTMLElement} */ (document.querySelector('[role="tablist"]')),
  settingsRoot: /** @type {HTMLElement} */ (document.getElementById('settings-root')),
};

const state = {
  /** the provider chosen with `/provider NAME`, sent with every following turn */
  provider: /** @type {string | null} */ (null),
  /** the turn being streamed */
  turn: /** @type {{ controller: AbortController } | null} */ (null),
  busy: false,
};

// --- session id ---------------------------------------------------------------------------------------------

function readSessionId() {
  try {
    return localStorage.getItem(SESSION_KEY);
  } catch {
    return null; // storage disabled: every page load is a new session
  }
}

let memorySessionId = readSessionId();
const sessionId = () => readSessionId() ?? memorySessionId;

/**
 * Keeps the server-issued session id so that the conversation continues after a refresh.
 * @param {string | null} id
 */
function storeSessionId(id) {
  if (!id || id === sessionId()) return;
  memorySessionId = id;
  try {
    localStorage.setItem(SESSION_KEY, id);
  } catch {
    // storage disabled; the session lasts as long as the page
  }
}

function newRequestId() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

// --- the log ------------------------------------------------------------------------------------------------

function isNearBottom() {
  const { scrollTop, scrollHeight, clientHeight } = els.log;
  return scrollHeight - scrollTop - clientHeight < 80;
}

function scrollToBottom(force = false) {
  if (force || isNearBottom()) els.log.scrollTop = els.log.scrollHeight;
}

function updateEmptyHint() {
  els.emptyHint.hidden = els.log.childElementCount > 0;
}

const AUTHORS = { user: 'You', assistant: 'Assistant', notice: 'Gateway', error: 'Gateway' };

/**
 * Adds a message to the log and returns its parts. `fill(body)` puts the content in before the message is
 * shown, so that scrolling accounts for its height.
 * @param {'user' | 'assistant' | 'notice' | 'error'} role
 * @param {(body: HTMLElement) => void} [fill]
 */
function addMessage(role, fill) {
  const wasNearBottom = isNearBottom();
  const article = document.createElement('article');
  article.className = `message message-${role}`;
  article.dataset.role = role;
  const author = document.createElement('p');
  author.className = 'message-author';
  author.textContent = AUTHORS[role];
  const body = document.createElement('div');
  body.className = role === 'assistant' ? 'message-body markdown' : 'message-body';
  article.append(author, body);
  if (role === 'error') article.setAttribute('role', 'alert');
  fill?.(body);
  els.log.append(article);
  updateEmptyHint();
  // The user's own message always brings the log to the bottom; anything else only when the reader was there.
  scrollToBottom(wasNearBottom || role === 'user');
  return { article, body };
}

/** @param {string} text */
function addUserMessage(text) {
  addMessage('user', (body) => {
    body.textContent = text; // plain text, never HTML
  });
}

/**
 * A local note (command output): a paragraph, and a list when `items` is given.
 * @param {string} text
 * @param {(string | Node[])[]} [items] each a line of text, or nodes to put in the line
 */
function addNotice(text, items) {
  return addMessage('notice', (body) => {
    const p = document.createElement('p');
    p.textContent = text;
    body.append(p);
    if (items && items.length > 0) {
      const ul = document.createElement('ul');
      for (const item of items) {
        const li = document.createElement('li');
        if (typeof item === 'string') li.textContent = item;
        else li.append(...item);
        ul.append(li);
      }
      body.append(ul);
    }
  }).article;
}

/** @param {string} text */
function addError(text) {
  return addMessage('error', (body) => {
    body.textContent = text;
  }).article;
}

/** @param {string} text */
function code(text) {
  const el = document.createElement('code');
  el.textContent = text;
  return el;
}

// --- header -------------------------------------------------------------------------------------------------

/** @param {string | null} name */
function showProvider(name) {
  els.provider.textContent = name || 'unknown';
}

async function refreshProvider() {
  try {
    const res = await getProviders(sessionId());
    showProvider(state.provider ?? res.active);
    return res;
  } catch {
    if (!state.provider) showProvider('unavailable');
    return null;
  }
}

// --- a chat turn --------------------------------------------------------------------------------------------

/** @param {boolean} busy */
function setBusy(busy) {
  state.busy = busy;
  els.send.hidden = busy;
  els.stop.hidden = !busy;
  els.send.disabled = busy;
  els.log.setAttribute('aria-busy', String(busy));
  els.form.classList.toggle('is-busy', busy);
}

/** @param {string} text */
async function sendMessage(text) {
  addUserMessage(text);
  const { article, body } = addMessage('assistant', (el) => {
    const typing = document.createElement('p');
    typing.className = 'typing';
    typing.textContent = 'Thinking…';
    el.append(typing);
  });
  article.dataset.state = 'waiting';

  const controller = new AbortController();
  state.turn = { controller };
  setBusy(true); // the Stop button takes the Send button's place until the reply ends

  let reply = '';
  let frame = 0;
  const paint = () => {
    frame = 0;
    const follow = isNearBottom();
    renderMarkdownInto(body, reply);
    scrollToBottom(follow);
  };

  const status = (/** @type {string} */ label, /** @type {string} */ kind) => {
    const p = document.createElement('p');
    p.className = `message-status status-${kind}`;
    p.textContent = label;
    article.append(p);
  };

  try {
    await streamChat({
      message: text,
      sessionId: sessionId(),
      provider: state.provider,
      requestId: newRequestId(),
      signal: controller.signal,
      onStart: ({ sessionId: issued }) => {
        if (issued) storeSessionId(issued);
      },
      onDelta: (delta) => {
        reply += delta;
        article.dataset.state = 'streaming';
        if (!frame) frame = requestAnimationFrame(paint);
      },
    });
    if (frame) cancelAnimationFrame(frame);
    paint();
    if (!reply) body.textContent = '(no reply)';
    article.dataset.state = 'complete';
  } catch (err) {
    if (frame) cancelAnimationFrame(frame);
    if (reply) paint();
    else body.replaceChildren();
    if (controller.signal.aborted) {
      article.dataset.state = 'stopped';
      status(reply ? 'Stopped — the reply was cut short.' : 'Stopped before a reply arrived.', 'stopped');
    } else {
      article.dataset.state = 'error';
      const message =
        err instanceof ApiError ? err.message : 'Something went wrong while reading the reply. Try again.';
      if (!reply) article.remove();
      addError(message);
      if (err instanceof ApiError && err.code === 'unknown-provider') {
        state.provider = null;
        void refreshProvider();
      }
    }
  } finally {
    state.turn = null;
    setBusy(false);
    updateEmptyHint();
    scrollToBottom();
    if (document.activeElement === els.stop || document.activeElement === document.body) els.input.focus();
  }
}

function stopTurn() {
  state.turn?.controller.abort();
}

// --- commands -----------------------------------------------------------------------------------------------

/** @param {string} text */
async function runCommand(text) {
  const cmd = parseCommand(text);
  if (!cmd) return;
  addUserMessage(text);
  if (!isKnownCommand(cmd.name)) {
    addError(`Unknown command ${cmd.name}. Type /help to see the commands.`);
    return;
  }
  switch (cmd.name) {
    case '/help':
      addNotice(
        'Commands:',
        COMMANDS.map((c) => [code(c.usage), document.createTextNode(` — ${c.description}`)]),
      );
      addNotice(
        'Enter sends, Shift+Enter adds a new line, Escape stops a reply, and typing / opens the command list.',
      );
      return;
    case '/provider':
      return providerCommand(cmd.args);
    case '/clear':
      return clearCommand();
  }
}

/** @param {string[]} args */
async function providerCommand(args) {
  let res;
  try {
    res = await getProviders(sessionId());
  } catch (err) {
    addError(err instanceof ApiError ? err.message : 'Could not load the providers.');
    return;
  }
  const active = state.provider ?? res.active;
  if (args.length === 0) {
    showProvider(active);
    addNotice(
      `Active provider: ${active}. Available:`,
      res.providers.map((/** @type {string} */ p) => (p === active ? `${p} (active)` : p)),
    );
    return;
  }
  const wanted = args[0].toLowerCase();
  if (args.length > 1 || !res.providers.includes(wanted)) {
    addError(`Unknown provider “${args.join(' ')}”. Available: ${res.providers.join(', ')}.`);
    return;
  }
  state.provider = wanted;
  showProvider(wanted);
  addNotice(`Provider set to ${wanted} for the next messages.`);
}

async function clearCommand() {
  const id = sessionId();
  let deleted = 0;
  if (id) {
    try {
      const res = await clearSession(id);
      deleted = res.turnsDeleted;
    } catch (err) {
      addError(err instanceof ApiError ? err.message : 'Could not clear the conversation.');
      return;
    }
  }
  els.log.replaceChildren();
  addNotice(
    deleted === 1
      ? 'Conversation cleared — 1 stored turn deleted.'
      : `Conversation cleared — ${deleted} stored turns deleted.`,
  );
}

// --- the composer -------------------------------------------------------------------------------------------

/** Grows the message box with its text (up to the CSS max-height); an empty box goes back to one line. */
function autosize() {
  els.input.style.height = '';
  if (els.input.value) els.input.style.height = `${Math.min(els.input.scrollHeight + 2, 200)}px`;
}

async function submit() {
  if (state.busy) return;
  const raw = els.input.value;
  const text = raw.trim();
  if (!text) return;
  if (text.length > 8000) {
    addError('The message is too long (at most 8000 characters).');
    return;
  }
  els.input.value = '';
  palette.close();
  autosize();
  if (text.startsWith('/')) {
    state.busy = true;
    els.send.disabled = true;
    try {
      await runCommand(text);
    } finally {
      state.busy = false;
      els.send.disabled = false;
    }
  } else {
    await sendMessage(text);
  }
}

const palette = createPalette({ input: els.input, list: els.palette, onPick: () => autosize() });

els.input.addEventListener('keydown', (e) => {
  if (e.isComposing) return;
  if (palette.handleKey(e)) {
    e.preventDefault();
    return;
  }
  if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
    e.preventDefault();
    void submit();
  } else if (e.key === 'Escape' && state.busy && state.turn) {
    e.preventDefault();
    stopTurn();
  }
});
els.input.addEventListener('input', autosize);
els.form.addEventListener('submit', (e) => {
  e.preventDefault();
  void submit();
});
els.stop.addEventListener('click', () => {
  stopTurn();
  els.input.focus();
});

setupTabs(els.tablist);
// The Settings tab loads its contents each time it is opened, so that it shows the current bindings.
const settings = createSettings(els.settingsRoot);
els.tablist.addEventListener('tab-change', (e) => {
  if (/** @type {CustomEvent} */ (e).detail?.id === 'tab-settings') void settings.refresh();
});
updateEmptyHint();
void refreshProvider();
if (!window.matchMedia('(pointer: coarse)').matches) els.input.focus();
