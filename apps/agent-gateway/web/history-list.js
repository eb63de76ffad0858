// The list of past conversations: a sidebar on a wide screen, a drawer behind the Conversations button on a
// phone. It is the server's list of this device's conversations (so another browser of the same device sees the
// same), grouped by the day each was last active, searchable, and each can be renamed or deleted in place. The ids
// this browser keeps (conversation-store.js) add the conversations it had before the server recorded devices.
import { ApiError, deleteSession, listConversations, listSessions, renameSession } from './chat-api.js';
import { forget, knownIds } from './conversation-store.js';
import { DATE_GROUPS, dateGroup, lastActiveLabel } from './time-labels.js';

/** Conversations read per page. */
const PAGE = 30;
/** How long typing pauses before the search is sent. */
const SEARCH_PAUSE_MS = 250;
const TITLE_MAX = 80;

/** @typedef {import('./chat-api.js').SessionSummary} SessionSummary */

/**
 * @param {string} d an SVG path
 */
function icon(d) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', '16');
  svg.setAttribute('height', '16');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}
const PENCIL = 'M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4';
const BIN = 'M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13';

/**
 * @param {string} text
 * @param {string} className
 */
function textButton(text, className) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = text;
  return b;
}

/**
 * @param {{ panel: HTMLElement, list: HTMLUListElement, empty: HTMLElement, toggle: HTMLButtonElement,
 *           close: HTMLButtonElement, backdrop: HTMLElement, search: HTMLInputElement,
 *           more: HTMLButtonElement, current: () => string | null,
 *           onSelect: (sessionId: string) => void, beforeDelete: (sessionId: string) => void,
 *           onDeleted: (sessionId: string) => void }} opts
 */
export function createHistoryList(opts) {
  const { panel, list, empty, toggle, close, backdrop, search, more } = opts;
  /** @type {SessionSummary[]} */
  let sessions = [];
  /** the cursor of the next page; null when every conversation is shown */
  let nextBefore = /** @type {string | null} */ (null);
  let loading = 0;
  /** the conversation being renamed or asked about (its id and which), drawn in place of its entry */
  let editing = /** @type {{ id: string, kind: 'rename' | 'delete', error?: string } | null} */ (null);
  let searchTimer = 0;

  const phone = window.matchMedia('(max-width: 52rem)');

  /** @param {boolean} open */
  function setOpen(open) {
    panel.classList.toggle('is-open', open);
    backdrop.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (!open) return;
    const target = list.querySelector('[aria-current="true"]') ?? panel.querySelector('button');
    if (target instanceof HTMLElement) target.focus();
  }

  /** @param {string} id */
  const entryOf = (id) => list.querySelector(`li[data-session-id="${CSS.escape(id)}"]`);

  /**
   * Draws the list again; `focus` says what gets the keyboard focus afterwards (an entry's part).
   * @param {{ id: string, part: string } | null} [focus]
   */
  function render(focus = null) {
    const current = opts.current();
    /** @type {Map<string, SessionSummary[]>} */
    const groups = new Map(DATE_GROUPS.map((g) => [g, []]));
    for (const s of sessions) groups.get(dateGroup(s.lastActiveAt))?.push(s);
    list.replaceChildren(
      ...[...groups]
        .filter(([, items]) => items.length > 0)
        .map(([name, items]) => {
          const group = document.createElement('li');
          group.className = 'history-group';
          const heading = document.createElement('h3');
          heading.className = 'history-group-title';
          heading.id = `history-group-${name.toLowerCase().replace(/\W+/g, '-')}`;
          heading.textContent = name;
          const ul = document.createElement('ul');
          ul.className = 'history-group-list';
          ul.setAttribute('aria-labelledby', heading.id);
          ul.append(...items.map((s) => entry(s, s.sessionId === current)));
          group.append(heading, ul);
          return group;
        }),
    );
    const q = search.value.trim();
    empty.textContent = q ? `No conversations match “${q}”.` : 'Your conversations will appear here.';
    empty.hidden = sessions.length > 0;
    more.hidden = nextBefore === null;
    if (focus) {
      const target = entryOf(focus.id)?.querySelector(focus.part);
      if (target instanceof HTMLElement) target.focus();
    }
  }

  /**
   * @param {SessionSummary} s
   * @param {boolean} isCurrent
   */
  function entry(s, isCurrent) {
    const li = document.createElement('li');
    li.className = 'history-entry';
    li.dataset.sessionId = s.sessionId;
    if (editing?.id === s.sessionId && editing.kind === 'rename') li.append(renameForm(s));
    else if (editing?.id === s.sessionId) li.append(deleteConfirmation(s));
    else li.append(...item(s, isCurrent));
    return li;
  }

  /**
   * The conversation's button and its Rename and Delete buttons.
   * @param {SessionSummary} s
   * @param {boolean} isCurrent
   */
  function item(s, isCurrent) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'history-item';
    button.dataset.sessionId = s.sessionId;
    if (isCurrent) button.setAttribute('aria-current', 'true');
    const title = document.createElement('span');
    title.className = 'history-title';
    title.textContent = s.title;
    const when = document.createElement('span');
    when.className = 'history-when';
    when.textContent = lastActiveLabel(s.lastActiveAt);
    button.append(title, when);
    button.addEventListener('click', () => {
      if (phone.matches) setOpen(false);
      opts.onSelect(s.sessionId);
    });

    const actions = document.createElement('div');
    actions.className = 'history-actions';
    const rename = document.createElement('button');
    rename.type = 'button';
    rename.className = 'history-action history-rename';
    rename.setAttribute('aria-label', `Rename “${s.title}”`);
    rename.title = 'Rename';
    rename.append(icon(PENCIL));
    rename.addEventListener('click', () => {
      editing = { id: s.sessionId, kind: 'rename' };
      render({ id: s.sessionId, part: 'input' });
    });
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'history-action history-delete';
    remove.setAttribute('aria-label', `Delete “${s.title}”`);
    remove.title = 'Delete';
    remove.append(icon(BIN));
    remove.addEventListener('click', () => {
      editing = { id: s.sessionId, kind: 'delete' };
      render({ id: s.sessionId, part: '.history-cancel' });
    });
    actions.append(rename, remove);
    return [button, actions];
  }

  /**
   * Back from renaming or deleting to the entry, its own button focused.
   * @param {string} id
   * @param {string} part
   */
  function stopEditing(id, part) {
    editing = null;
    render({ id, part });
  }

  /**
   * An error under the form, read out as it appears.
   * @param {string | undefined} text
   */
  function errorLine(text) {
    const p = document.createElement('p');
    p.className = 'history-error';
    p.setAttribute('role', 'alert');
    p.textContent = text ?? '';
    p.hidden = !text;
    return p;
  }

  /** @param {SessionSummary} s */
  function renameForm(s) {
    const form = document.createElement('form');
    form.className = 'history-edit';
    const input = document.createElement('input');
    input.type = 'text';
    input.className = 'history-input';
    input.value = s.title;
    input.maxLength = TITLE_MAX;
    input.setAttribute('aria-label', 'New name for this conversation');
    const buttons = document.createElement('div');
    buttons.className = 'history-edit-buttons';
    const save = textButton('Save', 'button button-primary button-small');
    save.type = 'submit';
    const cancel = textButton('Cancel', 'button button-quiet button-small history-cancel');
    cancel.addEventListener('click', () => stopEditing(s.sessionId, '.history-rename'));
    buttons.append(save, cancel);
    form.append(input, buttons, errorLine(editing?.error));
    form.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation(); // the drawer stays open: only the renaming ends
      stopEditing(s.sessionId, '.history-rename');
    });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const title = input.value.replace(/\s+/g, ' ').trim();
      if (!title || title === s.title) return stopEditing(s.sessionId, '.history-rename');
      save.disabled = true;
      renameSession(s.sessionId, title).then(
        (renamed) => {
          sessions = sessions.map((x) => (x.sessionId === renamed.sessionId ? renamed : x));
          stopEditing(s.sessionId, '.history-rename');
        },
        (err) => {
          editing = { id: s.sessionId, kind: 'rename', error: message(err, 'Could not rename it.') };
          render({ id: s.sessionId, part: 'input' });
        },
      );
    });
    return form;
  }

  /** @param {SessionSummary} s */
  function deleteConfirmation(s) {
    const box = document.createElement('div');
    box.className = 'history-edit history-confirm';
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'Delete this conversation?');
    const question = document.createElement('p');
    question.className = 'history-question';
    question.textContent = `Delete “${s.title}”? Its messages will be deleted too. This cannot be undone.`;
    const buttons = document.createElement('div');
    buttons.className = 'history-edit-buttons';
    const confirm = textButton('Delete', 'button button-danger button-small');
    const cancel = textButton('Cancel', 'button button-quiet button-small history-cancel');
    cancel.addEventListener('click', () => stopEditing(s.sessionId, '.history-delete'));
    confirm.addEventListener('click', () => {
      confirm.disabled = true;
      opts.beforeDelete(s.sessionId);
      deleteSession(s.sessionId).then(
        () => removed(s.sessionId),
        (err) => {
          // already gone (another browser deleted it): the same as deleted here
          if (err instanceof ApiError && err.code === 'session-not-found') return removed(s.sessionId);
          editing = { id: s.sessionId, kind: 'delete', error: message(err, 'Could not delete it.') };
          render({ id: s.sessionId, part: '.history-cancel' });
        },
      );
    });
    buttons.append(confirm, cancel);
    box.append(question, buttons, errorLine(editing?.error));
    box.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      stopEditing(s.sessionId, '.history-delete');
    });
    return box;
  }

  /** @param {string} id */
  function removed(id) {
    const index = sessions.findIndex((x) => x.sessionId === id);
    sessions = sessions.filter((x) => x.sessionId !== id);
    editing = null;
    forget([id]);
    opts.onDeleted(id);
    render();
    // the keyboard goes on from the neighbour of the deleted conversation, or the search box
    const next = sessions[Math.min(index, sessions.length - 1)];
    const target = next ? entryOf(next.sessionId)?.querySelector('.history-item') : search;
    if (target instanceof HTMLElement) target.focus();
  }

  /**
   * @param {unknown} err
   * @param {string} fallback
   */
  const message = (err, fallback) => (err instanceof ApiError ? err.message : fallback);

  /**
   * The conversations this browser had that the server's list does not show (started before devices were
   * recorded), added in their place; ids the server no longer holds leave the browser's cache.
   * @param {SessionSummary[]} found
   */
  async function withCached(found) {
    const listed = new Set(found.map((s) => s.sessionId));
    const missing = knownIds().filter((id) => !listed.has(id));
    if (missing.length === 0) return found;
    const { sessions: cached } = await listSessions(missing);
    const held = new Set(cached.map((s) => s.sessionId));
    const current = opts.current();
    forget(missing.filter((id) => !held.has(id) && id !== current));
    return [...found, ...cached].sort((a, b) => Date.parse(b.lastActiveAt) - Date.parse(a.lastActiveAt));
  }

  /** Reads the list again from the server (after a reply, on switching); a failure keeps the last one shown. */
  async function refresh() {
    const mine = ++loading;
    const q = search.value.trim();
    try {
      const page = await listConversations({ q, limit: PAGE });
      const found = q ? page.sessions : await withCached(page.sessions);
      if (mine !== loading) return; // a later refresh has the newer answer
      sessions = found;
      nextBefore = page.nextBefore;
    } catch {
      // the list is a convenience: the conversation itself goes on without it
      if (mine !== loading) return;
    }
    // an entry being renamed or deleted is kept as it is unless it went
    if (editing && !sessions.some((s) => s.sessionId === editing?.id)) editing = null;
    if (!editing) render();
  }

  async function loadMore() {
    if (!nextBefore) return;
    const mine = loading;
    more.disabled = true;
    try {
      const page = await listConversations({ q: search.value.trim(), before: nextBefore, limit: PAGE });
      if (mine !== loading) return;
      const listed = new Set(sessions.map((s) => s.sessionId));
      sessions = [...sessions, ...page.sessions.filter((s) => !listed.has(s.sessionId))];
      nextBefore = page.nextBefore;
      render();
    } catch {
      // kept as it was: the button stays for another try
    } finally {
      more.disabled = false;
    }
  }

  toggle.addEventListener('click', () => setOpen(!panel.classList.contains('is-open')));
  close.addEventListener('click', () => {
    setOpen(false);
    toggle.focus();
  });
  backdrop.addEventListener('click', () => setOpen(false));
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && panel.classList.contains('is-open')) {
      setOpen(false);
      toggle.focus();
    }
  });
  phone.addEventListener('change', () => setOpen(false));
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => void refresh(), SEARCH_PAUSE_MS);
  });
  search.addEventListener('keydown', (e) => {
    // Escape empties the search first; a second Escape closes the drawer
    if (e.key === 'Escape' && search.value) {
      e.stopPropagation();
      search.value = '';
      void refresh();
    }
  });
  more.addEventListener('click', () => void loadMore());

  return { refresh, render: () => render(), close: () => setOpen(false) };
}
