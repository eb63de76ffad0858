// The list of past conversations: a sidebar on a wide screen, a drawer behind the Conversations button on a
// phone. It shows what the server still holds of the ids this browser keeps (conversation-store.js).
import { listSessions } from './chat-api.js';
import { knownIds } from './conversation-store.js';
import { lastActiveLabel } from './time-labels.js';

/**
 * @param {{ panel: HTMLElement, list: HTMLUListElement, empty: HTMLElement, toggle: HTMLButtonElement,
 *           close: HTMLButtonElement, backdrop: HTMLElement, current: () => string | null,
 *           onSelect: (sessionId: string) => void }} opts
 */
export function createHistoryList(opts) {
  const { panel, list, empty, toggle, close, backdrop } = opts;
  /** @type {import('./chat-api.js').SessionSummary[]} */
  let sessions = [];
  let loading = 0;

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

  function render() {
    const current = opts.current();
    list.replaceChildren(
      ...sessions.map((s) => {
        const li = document.createElement('li');
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'history-item';
        button.dataset.sessionId = s.sessionId;
        if (s.sessionId === current) button.setAttribute('aria-current', 'true');
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
        li.append(button);
        return li;
      }),
    );
    empty.hidden = sessions.length > 0;
  }

  /** Reads the list again from the server (after a reply, on switching); a failure keeps the last one shown. */
  async function refresh() {
    const mine = ++loading;
    try {
      const res = await listSessions(knownIds());
      if (mine !== loading) return; // a later refresh has the newer answer
      sessions = res.sessions;
    } catch {
      // the list is a convenience: the conversation itself goes on without it
    }
    render();
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

  return { refresh, render, close: () => setOpen(false) };
}
