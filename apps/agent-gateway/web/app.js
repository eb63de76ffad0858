// The web chat: wires the message log, the composer, the command palette, the conversation history and the tabs
// to the API.
import { ApiError, clearSession, getProviders, getSessionHistory, streamChat } from './chat-api.js';
import { COMMANDS, isKnownCommand, parseCommand } from './commands.js';
import { currentId, makeCurrent, remember, startNew } from './conversation-store.js';
import { splitFollowUps, withoutPendingFollowUps } from './follow-ups.js';
import { createHistoryList } from './history-list.js';
import { renderMarkdownInto } from './markdown.js';
import { createPalette } from './palette.js';
import { createPairingScreen } from './pairing.js';
import { startEventFeed } from './event-feed.js';
import { copyToClipboard } from './dom.js';
import { createSettings } from './settings.js';
import { getWebContext } from './settings-api.js';
import { setupTabs } from './tabs.js';

/** Turns read per page when a conversation is shown again. */
const HISTORY_PAGE = 30;

const els = {
  log: /** @type {HTMLElement} */ (document.getElementById('log')),
  welcome: /** @type {HTMLElement} */ (document.getElementById('welcome')),
  greeting: /** @type {HTMLElement} */ (document.getElementById('welcome-greeting')),
  form: /** @type {HTMLFormElement} */ (document.getElementById('composer')),
  input: /** @type {HTMLTextAreaElement} */ (document.getElementById('message-input')),
  send: /** @type {HTMLButtonElement} */ (document.getElementById('send-button')),
  stop: /** @type {HTMLButtonElement} */ (document.getElementById('stop-button')),
  palette: /** @type {HTMLUListElement} */ (document.getElementById('command-palette')),
  provider: /** @type {HTMLElement} */ (document.getElementById('active-provider')),
  tablist: /** @type {HTMLElement} */ (document.querySelector('[role="tablist"]')),
  settingsRoot: /** @type {HTMLElement} */ (document.getElementById('settings-root')),
  newConversation: /** @type {HTMLButtonElement} */ (document.getElementById('new-conversation')),
};

const state = {
  /** the provider chosen with `/provider NAME`, sent with every following turn */
  provider: /** @type {string | null} */ (null),
  /** the turn being streamed */
  turn: /** @type {{ controller: AbortController } | null} */ (null),
  busy: false,
  /** counts the conversations shown, so that a page read for one that is no longer shown is dropped */
  shown: 0,
  /** a conversation is being read from the server */
  loading: false,
  /** the cursor of the page before the oldest turn shown; null when the first turn is shown */
  earlier: /** @type {string | null} */ (null),
};

// --- session id ---------------------------------------------------------------------------------------------

const sessionId = currentId;

/**
 * Keeps the server-issued session id so that the conversation continues after a refresh and is listed.
 * @param {string | null} id
 */
function storeSessionId(id) {
  if (!id) return;
  const changed = id !== sessionId();
  makeCurrent(id); // also when unchanged: the conversation just used moves to the top of the browser's list
  if (changed) conversations.render();
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

/** The welcome screen and its suggested questions stand in for an empty conversation. */
function updateEmptyHint() {
  els.welcome.hidden = els.log.querySelector('article') !== null || state.loading;
  els.log.hidden = !els.welcome.hidden;
}

function greet() {
  const hour = new Date().getHours();
  const part = hour < 12 ? 'Good morning' : hour < 18 ? 'Good afternoon' : 'Good evening';
  els.greeting.textContent = `${part}. What would you like to know?`;
}

const AUTHORS = { user: 'You', assistant: 'Porter', notice: 'Porter', error: 'Porter' };

/**
 * Adds a message to the log and returns its parts. `fill(body)` puts the content in before the message is
 * shown, so that scrolling accounts for its height.
 * @param {'user' | 'assistant' | 'notice' | 'error'} role
 * @param {(body: HTMLElement) => void} [fill]
 * @param {{ before?: Element | null }} [at] put it before this element instead of at the end (older turns)
 */
function addMessage(role, fill, at = {}) {
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
  if (at.before !== undefined) {
    els.log.insertBefore(article, at.before);
    return { article, body };
  }
  els.log.append(article);
  updateEmptyHint();
  // The user's own message always brings the log to the bottom; anything else only when the reader was there.
  scrollToBottom(wasNearBottom || role === 'user');
  return { article, body };
}

/**
 * @param {string} text
 * @param {{ before?: Element | null }} [at]
 */
function addUserMessage(text, at) {
  return addMessage(
    'user',
    (body) => {
      body.textContent = text; // plain text, never HTML
    },
    at,
  ).article;
}

/**
 * A question to the assistant (not a command): the one "Ask again" sends again.
 * @param {string} text
 * @param {{ before?: Element | null }} [at]
 */
function addQuestion(text, at) {
  addUserMessage(text, at).dataset.question = 'true';
}

// --- a reply's actions: Copy, and Ask again on the last one ------------------------------------------------

/** What each reply's Copy button copies: its Markdown as written, without the follow-up line. */
const copyText = new WeakMap();

/**
 * @param {string} label
 * @param {string} path an SVG path
 */
function actionButton(label, path) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'message-action';
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', '16');
  svg.setAttribute('height', '16');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const shape = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  shape.setAttribute('d', path);
  svg.append(shape);
  const text = document.createElement('span');
  text.className = 'message-action-label';
  // the "Copied" that replaces "Copy" is read out
  text.setAttribute('aria-live', 'polite');
  text.textContent = label;
  button.append(svg, text);
  return button;
}
const COPY_ICON = 'M9 9h10v11H9zM5 15V4h10';
const AGAIN_ICON = 'M4 12a8 8 0 0 1 14-5.3M20 4v4h-4M20 12a8 8 0 0 1-14 5.3M4 20v-4h4';

/**
 * The bar of actions under a message (made when missing), after its status line if it has one.
 * @param {HTMLElement} article
 */
function actionsOf(article) {
  const existing = article.querySelector('.message-actions');
  if (existing instanceof HTMLElement) return existing;
  const bar = document.createElement('div');
  bar.className = 'message-actions';
  const statuses = article.querySelectorAll('.message-status');
  const anchor = statuses[statuses.length - 1] ?? article.querySelector('.message-body');
  anchor?.after(bar);
  return bar;
}

/**
 * Gives a reply its Copy button (a reply with no text has nothing to copy).
 * @param {HTMLElement} article
 * @param {string} text
 */
function addCopyButton(article, text) {
  article.querySelector('.copy-button')?.remove();
  if (!text.trim()) return;
  copyText.set(article, text);
  const button = actionButton('Copy', COPY_ICON);
  button.classList.add('copy-button');
  button.setAttribute('aria-label', 'Copy reply');
  button.addEventListener('click', () => void copyReply(article, button));
  actionsOf(article).prepend(button);
}

/**
 * @param {HTMLElement} article
 * @param {HTMLButtonElement} button
 */
async function copyReply(article, button) {
  const text = copyText.get(article) ?? '';
  const label = /** @type {HTMLElement} */ (button.querySelector('.message-action-label'));
  const copied = await copyToClipboard(text);
  label.textContent = copied ? 'Copied' : 'Could not copy';
  button.classList.toggle('is-done', copied);
  clearTimeout(Number(button.dataset.timer ?? 0));
  button.dataset.timer = String(
    window.setTimeout(() => {
      label.textContent = 'Copy';
      button.classList.remove('is-done');
    }, 2000),
  );
}

/** The last question asked in the conversation shown (a command is not a question); null when none. */
function lastQuestion() {
  const questions = [...els.log.querySelectorAll('article[data-question]')];
  const last = questions[questions.length - 1];
  return last ? (last.querySelector('.message-body')?.textContent ?? null) : null;
}

/** Only the conversation's last message, when it is a finished reply or an error, offers to ask again. */
function updateAskAgain() {
  for (const el of els.log.querySelectorAll('.ask-again')) el.remove();
  for (const bar of els.log.querySelectorAll('.message-actions')) if (!bar.firstChild) bar.remove();
  if (state.busy) return;
  const articles = els.log.querySelectorAll('article');
  const last = /** @type {HTMLElement | undefined} */ (articles[articles.length - 1]);
  const question = lastQuestion();
  if (!last || !question || !['assistant', 'error'].includes(last.dataset.role ?? '')) return;
  const button = actionButton('Ask again', AGAIN_ICON);
  button.classList.add('ask-again');
  button.setAttribute('aria-label', `Ask again: ${question.slice(0, 100)}`);
  button.addEventListener('click', () => void ask(question));
  actionsOf(last).append(button);
}

// --- replies and their follow-up questions ------------------------------------------------------------------

/**
 * Renders a complete reply: its Markdown, and its "Ask next:" line as buttons under it.
 * @param {HTMLElement} article
 * @param {HTMLElement} body
 * @param {string} reply
 */
function renderReply(article, body, reply) {
  const { text, questions } = splitFollowUps(reply);
  renderMarkdownInto(body, text);
  addCopyButton(article, text);
  article.querySelector('.follow-ups')?.remove();
  if (questions.length === 0) return;
  const list = document.createElement('div');
  list.className = 'follow-ups';
  list.setAttribute('role', 'group');
  list.setAttribute('aria-label', 'Ask next');
  for (const q of questions) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'chip';
    button.textContent = q;
    button.addEventListener('click', () => void ask(q));
    list.append(button);
  }
  article.append(list);
}

// Only the latest reply offers follow-up questions: older ones were about an earlier point of the conversation,
// so their buttons are removed once the conversation moves on.
function retireFollowUps() {
  for (const el of els.log.querySelectorAll('.follow-ups')) el.remove();
}

/**
 * Sends a question chosen from a button (a suggestion or a follow-up), as if typed.
 * @param {string} question
 */
async function ask(question) {
  if (state.busy) return;
  await sendMessage(question);
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

/**
 * A line under a message that says how it ended (stopped, failed).
 * @param {HTMLElement} article
 * @param {string} label
 * @param {string} kind
 */
function addStatus(article, label, kind) {
  const p = document.createElement('p');
  p.className = `message-status status-${kind}`;
  p.textContent = label;
  article.append(p);
}

// --- a conversation read back from the server ---------------------------------------------------------------

const STOPPED_SHORT = 'Stopped — the reply was cut short.';

/**
 * Adds stored turns, oldest first, before `before` (older pages) or at the end.
 * @param {import('./chat-api.js').HistoryTurn[]} turns
 * @param {Element | null} before
 */
function addStoredTurns(turns, before) {
  for (const turn of turns) {
    if (turn.role === 'user') {
      addQuestion(turn.content, { before });
      continue;
    }
    const { article, body } = addMessage('assistant', undefined, { before });
    if (turn.status === 'complete') {
      renderReply(article, body, turn.content);
      article.dataset.state = 'complete';
    } else if (turn.status === 'interrupted') {
      renderMarkdownInto(body, turn.content);
      article.dataset.state = 'stopped';
      addStatus(article, turn.content ? STOPPED_SHORT : 'Stopped before a reply arrived.', 'stopped');
      addCopyButton(article, turn.content);
    } else {
      renderMarkdownInto(body, turn.content);
      article.dataset.state = 'error';
      addStatus(article, 'This reply failed. Ask again to get an answer.', 'failed');
    }
  }
  // only the last message, when it is a reply, keeps its follow-up questions (see retireFollowUps)
  const articles = els.log.querySelectorAll('article');
  const last = articles[articles.length - 1];
  for (const el of els.log.querySelectorAll('.follow-ups')) if (el.parentElement !== last) el.remove();
  updateAskAgain();
}

/** The "Show earlier messages" button at the top of the log, present while older turns exist. */
function showEarlierButton() {
  els.log.querySelector('.earlier')?.remove();
  if (!state.earlier) return;
  const wrap = document.createElement('div');
  wrap.className = 'earlier';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button button-quiet';
  button.id = 'earlier-button';
  button.textContent = 'Show earlier messages';
  button.addEventListener('click', () => void loadEarlier(button));
  wrap.append(button);
  els.log.prepend(wrap);
}

/** @param {HTMLButtonElement} button */
async function loadEarlier(button) {
  const id = sessionId();
  if (!id || !state.earlier) return;
  const shown = state.shown;
  button.disabled = true;
  button.textContent = 'Loading…';
  try {
    const page = await getSessionHistory(id, { limit: HISTORY_PAGE, before: state.earlier });
    if (shown !== state.shown) return;
    // keep the reader's place: the older turns grow the log above what is on screen
    const fromBottom = els.log.scrollHeight - els.log.scrollTop;
    const first = els.log.querySelector('article');
    addStoredTurns(page.turns, first);
    state.earlier = page.nextBefore;
    showEarlierButton();
    els.log.scrollTop = els.log.scrollHeight - fromBottom;
  } catch (err) {
    button.disabled = false;
    button.textContent = 'Show earlier messages';
    addError(err instanceof ApiError ? err.message : 'Could not load the earlier messages.');
  }
}

/**
 * Shows a conversation: empty for a new one, otherwise its latest turns read back from the server.
 * @param {string | null} id
 */
async function showConversation(id) {
  const shown = ++state.shown;
  state.earlier = null;
  els.log.replaceChildren();
  if (!id) {
    updateEmptyHint();
    return;
  }
  state.loading = true;
  els.log.setAttribute('aria-busy', 'true');
  // a conversation shown again is not news: a screen reader should not read every stored turn out
  els.log.setAttribute('aria-live', 'off');
  updateEmptyHint();
  try {
    const page = await getSessionHistory(id, { limit: HISTORY_PAGE });
    if (shown !== state.shown) return;
    addStoredTurns(page.turns, null);
    state.earlier = page.nextBefore;
    showEarlierButton();
  } catch (err) {
    if (shown !== state.shown) return;
    // a conversation the server no longer holds (cleared by its idle sweep) simply starts again empty
    if (!(err instanceof ApiError && err.code === 'session-not-found')) {
      addError(err instanceof ApiError ? err.message : 'Could not load the conversation.');
    }
  } finally {
    if (shown === state.shown) {
      state.loading = false;
      els.log.setAttribute('aria-busy', String(state.busy));
      els.log.setAttribute('aria-live', 'polite');
      updateEmptyHint();
      scrollToBottom(true);
    }
  }
}

/**
 * Makes another conversation (or, with null, a new one) the current one.
 * @param {string | null} id
 */
function switchTo(id) {
  // a reply still streaming is stopped (and stored as interrupted): it belongs to the conversation being left
  if (state.turn) stopTurn();
  if (id) makeCurrent(id);
  else startNew();
  conversations.render();
  void showConversation(id);
  void refreshProvider();
  if (!window.matchMedia('(pointer: coarse)').matches) els.input.focus();
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
  retireFollowUps();
  addQuestion(text);
  const { article, body } = addMessage('assistant', (el) => {
    const typing = document.createElement('p');
    typing.className = 'typing';
    typing.textContent = 'Thinking…';
    el.append(typing);
  });
  article.dataset.state = 'waiting';

  const controller = new AbortController();
  const shown = state.shown;
  state.turn = { controller };
  setBusy(true); // the Stop button takes the Send button's place until the reply ends
  updateAskAgain();

  let reply = '';
  let frame = 0;
  const paint = () => {
    frame = 0;
    const follow = isNearBottom();
    renderMarkdownInto(body, withoutPendingFollowUps(reply));
    scrollToBottom(follow);
  };

  const status = (/** @type {string} */ label, /** @type {string} */ kind) => addStatus(article, label, kind);

  try {
    await streamChat({
      message: text,
      sessionId: sessionId(),
      provider: state.provider,
      requestId: newRequestId(),
      signal: controller.signal,
      onStart: ({ sessionId: issued }) => {
        // another conversation chosen meanwhile stays current; this one is still listed
        if (issued && shown === state.shown) storeSessionId(issued);
        else if (issued) remember(issued);
      },
      onDelta: (delta) => {
        reply += delta;
        article.dataset.state = 'streaming';
        if (!frame) frame = requestAnimationFrame(paint);
      },
    });
    if (frame) cancelAnimationFrame(frame);
    const follow = isNearBottom();
    renderReply(article, body, reply);
    if (!reply) body.textContent = '(no reply)';
    article.dataset.state = 'complete';
    scrollToBottom(follow);
  } catch (err) {
    if (frame) cancelAnimationFrame(frame);
    if (reply) paint();
    else body.replaceChildren();
    if (controller.signal.aborted) {
      article.dataset.state = 'stopped';
      status(reply ? 'Stopped — the reply was cut short.' : 'Stopped before a reply arrived.', 'stopped');
      addCopyButton(article, withoutPendingFollowUps(reply));
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
    if (shown === state.shown) updateAskAgain();
    updateEmptyHint();
    scrollToBottom();
    void conversations.refresh();
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
  state.shown++; // a page still being read for the cleared conversation is dropped
  state.earlier = null;
  els.log.replaceChildren();
  void conversations.refresh();
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
      updateAskAgain();
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

const conversations = createHistoryList({
  panel: /** @type {HTMLElement} */ (document.getElementById('history')),
  list: /** @type {HTMLUListElement} */ (document.getElementById('history-list')),
  empty: /** @type {HTMLElement} */ (document.getElementById('history-empty')),
  toggle: /** @type {HTMLButtonElement} */ (document.getElementById('conversations-button')),
  close: /** @type {HTMLButtonElement} */ (document.getElementById('history-close')),
  backdrop: /** @type {HTMLElement} */ (document.getElementById('history-backdrop')),
  search: /** @type {HTMLInputElement} */ (document.getElementById('history-search')),
  more: /** @type {HTMLButtonElement} */ (document.getElementById('history-more')),
  current: sessionId,
  onSelect: (id) => {
    if (id !== sessionId()) switchTo(id);
  },
  // a reply still streaming into the conversation being deleted is stopped first: it could not be stored after
  beforeDelete: (id) => {
    if (id === sessionId()) stopTurn();
  },
  // the conversation shown was deleted (here or in another browser): a new one takes its place
  onDeleted: (id) => {
    if (id === sessionId()) switchTo(null);
  },
});
els.newConversation.addEventListener('click', () => {
  conversations.close();
  switchTo(null);
});
for (const button of els.welcome.querySelectorAll('button.suggestion')) {
  button.addEventListener('click', () => void ask(button.textContent?.trim() ?? ''));
}

setupTabs(els.tablist);
// The Settings tab loads its contents each time it is opened, so that it shows the current bindings.
const settings = createSettings(els.settingsRoot);
els.tablist.addEventListener('tab-change', (e) => {
  if (/** @type {CustomEvent} */ (e).detail?.id === 'tab-settings') void settings.refresh();
});

// A gateway that asks for device tokens shows the pairing screen until this browser holds a session; a call that
// answers 401 later (the device was revoked) brings it back.
const pairing = createPairingScreen({
  screen: /** @type {HTMLElement} */ (document.getElementById('pairing')),
  app: /** @type {HTMLElement} */ (document.getElementById('app')),
});
let started = false;
window.addEventListener('pairing-needed', () => pairing.show({ revoked: started }));

/** @param {any} context the web context, when it could be read */
function start(context) {
  started = true;
  // what the page decided to show, once it knows (the chat is in the HTML before the context says whether this
  // browser must pair first); tests wait for it rather than for the chat to be visible
  document.body.dataset.state = 'chat';
  greet();
  void showConversation(sessionId());
  void conversations.refresh();
  void refreshProvider();
  if (!window.matchMedia('(pointer: coarse)').matches) els.input.focus();
  // Updates from the platform for the chat's assistant, when the gateway takes the platform's events.
  if (context?.features?.platformEvents && context.worker?.id && context.workspaceId) {
    startEventFeed({
      section: /** @type {HTMLElement} */ (document.getElementById('event-feed')),
      list: /** @type {HTMLUListElement} */ (document.getElementById('event-list')),
      workspaceId: context.workspaceId,
      workerId: context.worker.id,
    });
  }
}

getWebContext().then(
  (/** @type {any} */ context) => {
    if (context?.access?.mode === 'token' && context.access.caller === 'anonymous') pairing.show();
    else start(context);
  },
  // the context is for the settings and the pairing check: without it the chat still starts (and a 401 from
  // it would already have asked for pairing)
  () => {
    if (!pairing.shown) start(null);
  },
);
