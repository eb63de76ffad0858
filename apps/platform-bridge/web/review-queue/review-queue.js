// The review-queue settings page (docs/bridge-api.md): the admin pastes an admin key once (kept in this tab's
// sessionStorage), reads the proposals with their diff and warnings, and approves or rejects them; each result
// shows on its card without a reload and is announced in the status line.
import { ApiError, approveProposal, getAudit, getReviewQueue, rejectProposal } from './api.js';
import { markDecided, renderCard } from './cards.js';
import { createApproveDialog, createRejectDialog } from './dialogs.js';
import { h } from './dom.js';
import { formatDateTime, RECORD_LABELS, STATUS_LABELS } from './format.js';
import { KEY_REFUSED, problemMessage, QUEUE_OFF } from './messages.js';

/** @typedef {import('./types.js').ReviewItem} ReviewItem */
/** @typedef {import('./types.js').ProposalStatus} ProposalStatus */

const KEY_STORAGE = 'review-queue.admin-key';

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @returns {T}
 */
function $(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return /** @type {T} */ (el);
}

const ui = {
  main: $('main'),
  booting: $('booting'),
  account: $('account'),
  keyPreview: $('key-preview'),
  forgetKey: /** @type {HTMLButtonElement} */ ($('forget-key')),
  keyPanel: $('key-panel'),
  keyForm: /** @type {HTMLFormElement} */ ($('key-form')),
  keyInput: /** @type {HTMLInputElement} */ ($('key-input')),
  keySubmit: /** @type {HTMLButtonElement} */ ($('key-submit')),
  keyError: $('key-input-error'),
  queuePanel: $('queue-panel'),
  status: /** @type {HTMLSelectElement} */ ($('status-filter')),
  kind: /** @type {HTMLSelectElement} */ ($('kind-filter')),
  refresh: /** @type {HTMLButtonElement} */ ($('refresh')),
  count: $('queue-count'),
  readOnly: $('read-only'),
  notice: $('notice'),
  noticeText: $('notice-text'),
  noticeHint: $('notice-hint'),
  noticeRetry: /** @type {HTMLButtonElement} */ ($('notice-retry')),
  loading: $('loading'),
  empty: $('empty'),
  emptyTitle: $('empty-title'),
  emptyText: $('empty-text'),
  list: /** @type {HTMLOListElement} */ ($('queue')),
  more: /** @type {HTMLButtonElement} */ ($('load-more')),
  toast: $('toast'),
};

/** sessionStorage may be unavailable (a locked-down browser): then the key lives as long as the page. */
const keyStore = {
  /** @type {string | null} */
  memory: null,
  get() {
    try {
      return sessionStorage.getItem(KEY_STORAGE);
    } catch {
      return this.memory;
    }
  },
  /** @param {string | null} key */
  set(key) {
    this.memory = key;
    try {
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
      else sessionStorage.removeItem(KEY_STORAGE);
    } catch {
      // kept in memory only
    }
  },
};

let generation = 0; // answers of a superseded load are dropped
/** @type {string | null} */
let nextCursor = null;
let toastTimer = 0;

/** @param {string} message */
function announce(message) {
  ui.toast.textContent = message;
  ui.toast.classList.add('toast-visible');
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => ui.toast.classList.remove('toast-visible'), 8000);
}

// ---- the key ------------------------------------------------------------------------------------------------

/** @param {string | null} [error] */
function showKeyForm(error = null) {
  generation++;
  ui.booting.hidden = true;
  ui.queuePanel.hidden = true;
  ui.account.hidden = true;
  ui.keyPanel.hidden = false;
  ui.list.replaceChildren();
  ui.keyInput.value = '';
  setKeyError(error);
  ui.keyInput.focus();
}

/** @param {string | null} message */
function setKeyError(message) {
  ui.keyError.textContent = message ?? '';
  ui.keyError.hidden = !message;
  if (message) ui.keyInput.setAttribute('aria-invalid', 'true');
  else ui.keyInput.removeAttribute('aria-invalid');
}

/** The key as the page shows it: its non-secret start. @param {string} key */
const preview = (key) => `Admin key ${key.slice(0, 10)}…`;

/** @param {string} key */
function showQueuePanel(key) {
  ui.booting.hidden = true;
  ui.keyPanel.hidden = true;
  ui.queuePanel.hidden = false;
  ui.account.hidden = false;
  ui.keyPreview.textContent = preview(key);
}

/** The key was refused (revoked meanwhile, or mistyped): forget it and ask again. */
function keyRefused() {
  keyStore.set(null);
  closeDialogs();
  showKeyForm(KEY_REFUSED);
}

function closeDialogs() {
  document.querySelectorAll('dialog[open]').forEach((d) => /** @type {HTMLDialogElement} */ (d).close());
}

ui.keyForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const key = ui.keyInput.value.trim();
  if (!key) return setKeyError('Paste your admin key first.');
  if (key.startsWith('plat_')) {
    return setKeyError(
      'That is an assistant’s API key. The review queue needs an admin key, which starts with padm_.',
    );
  }
  if (!key.startsWith('padm_'))
    return setKeyError('Admin keys start with padm_. Check it and paste it again.');
  setKeyError(null);
  ui.keySubmit.disabled = true;
  void load({ key, fromKeyForm: true }).finally(() => {
    ui.keySubmit.disabled = false;
  });
});

ui.forgetKey.addEventListener('click', () => {
  keyStore.set(null);
  closeDialogs();
  showKeyForm();
  announce('The admin key is forgotten in this tab.');
});

// ---- the queue ----------------------------------------------------------------------------------------------

/** @param {string | null} text @param {string} [hint] */
function setNotice(text, hint = '') {
  ui.notice.hidden = !text;
  ui.noticeText.textContent = text ?? '';
  ui.noticeHint.textContent = hint;
  ui.noticeHint.hidden = !hint;
}

const EMPTY = {
  pending_review: {
    title: 'Nothing waiting for review',
    text: 'When your assistant proposes a deal, a certificate or an invoice, it appears here.',
  },
};

function updateCount() {
  const cards = [...ui.list.querySelectorAll('li.card')];
  const more = nextCursor ? '+' : '';
  if (ui.status.value === 'pending_review') {
    const waiting = cards.filter((c) => /** @type {HTMLElement} */ (c).dataset.status === 'pending_review');
    ui.count.textContent =
      cards.length > 0 && waiting.length === 0 && !nextCursor
        ? 'All done: nothing else is waiting for review.'
        : `${waiting.length}${more} waiting for review`;
  } else {
    ui.count.textContent = `${cards.length}${more} ${cards.length === 1 ? 'proposal' : 'proposals'}`;
  }
}

function showEmpty() {
  const status = /** @type {ProposalStatus | 'all'} */ (ui.status.value);
  const known = status === 'pending_review' ? EMPTY.pending_review : null;
  const words = status === 'all' ? 'proposals' : `${STATUS_LABELS[status].toLowerCase()} proposals`;
  ui.emptyTitle.textContent = known?.title ?? `No ${words}`;
  ui.emptyText.textContent =
    known?.text ?? (ui.kind.value === 'all' ? 'Try another status.' : 'Try another status or kind.');
  ui.empty.hidden = false;
}

/**
 * Loads the first page for the current filters (or the next page with `append`). From the key form, the key
 * is stored only once the platform accepted it.
 * @param {{ key?: string, append?: boolean, fromKeyForm?: boolean }} [opts]
 */
async function load({ key = keyStore.get() ?? '', append = false, fromKeyForm = false } = {}) {
  if (!key) return showKeyForm();
  const mine = ++generation;
  setNotice(null);
  if (!append) {
    ui.empty.hidden = true;
    ui.more.hidden = true;
    ui.list.replaceChildren();
    ui.count.textContent = '';
  }
  ui.loading.hidden = false;
  ui.list.setAttribute('aria-busy', 'true');
  ui.more.disabled = true;
  try {
    const page = await getReviewQueue(key, {
      status: ui.status.value,
      kind: ui.kind.value,
      cursor: append ? nextCursor : null,
    });
    if (mine !== generation) return;
    if (fromKeyForm) {
      keyStore.set(key);
      showQueuePanel(key);
      // The key form is gone with the focus in it: start again at the top of the queue.
      ui.main.focus();
    }
    nextCursor = page.next_cursor;
    // a read-only key (no review:write) sees the queue without the buttons, and why
    ui.readOnly.hidden = page.can_decide;
    ui.list.append(...page.items.map((item) => renderCard(item, cardActions, page.can_decide)));
    ui.more.hidden = !nextCursor;
    if (!append && page.items.length === 0) showEmpty();
    updateCount();
  } catch (err) {
    if (mine !== generation) return;
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'invalid-api-key') {
      if (fromKeyForm) setKeyError(KEY_REFUSED);
      else keyRefused();
      return;
    }
    if (fromKeyForm && err.code !== 'review-queue-not-enabled') {
      setKeyError(problemMessage(err));
      return;
    }
    // The key works but the queue cannot be read: the key is kept, the reason shown where the list would be.
    if (fromKeyForm) {
      keyStore.set(key);
      showQueuePanel(key);
    }
    setNotice(
      problemMessage(err),
      err.code === 'review-queue-not-enabled'
        ? 'A platform operator can switch it on with the tenant flag “assistant_bridge_review_queue”.'
        : '',
    );
  } finally {
    if (mine === generation) {
      ui.loading.hidden = true;
      ui.list.removeAttribute('aria-busy');
      ui.more.disabled = false;
    }
  }
}

// The filters live in the address (`?status=approved&kind=deal`, defaults left out): a reload, a bookmark or a
// link a colleague sends opens the same view. Only the filters: the key never goes in a URL.
const FILTERS = /** @type {const} */ ([
  ['status', ui.status],
  ['kind', ui.kind],
]);

function filtersFromAddress() {
  const query = new URLSearchParams(location.search);
  for (const [name, select] of FILTERS) {
    const value = query.get(name);
    // a value the page does not offer (an old link, a typo) leaves the default
    if (value !== null && [...select.options].some((o) => o.value === value)) select.value = value;
  }
}

function filtersToAddress() {
  const query = new URLSearchParams(location.search);
  for (const [name, select] of FILTERS) {
    const fallback = [...select.options].find((o) => o.defaultSelected) ?? select.options[0];
    if (select.value === fallback?.value) query.delete(name);
    else query.set(name, select.value);
  }
  const search = query.toString();
  history.replaceState(
    history.state,
    '',
    `${location.pathname}${search ? `?${search}` : ''}${location.hash}`,
  );
}

for (const [, select] of FILTERS)
  select.addEventListener('change', () => {
    filtersToAddress();
    void load();
  });
ui.refresh.addEventListener('click', () => void load());
ui.noticeRetry.addEventListener('click', () => void load());
ui.more.addEventListener('click', () => void load({ append: true }));
ui.keyForm.addEventListener('reset', () => setKeyError(null));

// ---- deciding -------------------------------------------------------------------------------------------------

/** @param {ReviewItem} item */
const cardOf = (item) =>
  /** @type {HTMLElement | null} */ (ui.list.querySelector(`li[data-proposal-id="${item.proposal_id}"]`));

/**
 * What every decision does with a failure the dialog cannot fix: a refused key goes back to the key form, the
 * flag switched off shows the notice, and a proposal decided elsewhere (409) shows its real status on the card.
 * Returns the element to focus when it handled the failure; rethrows the others for the dialog to show.
 * @param {unknown} err
 * @param {ReviewItem} item
 * @returns {HTMLElement | null}
 */
function handleDecisionFailure(err, item) {
  if (!(err instanceof ApiError)) throw err;
  if (err.code === 'invalid-api-key') {
    keyRefused();
    return ui.keyInput;
  }
  if (err.code === 'review-queue-not-enabled') {
    setNotice(QUEUE_OFF);
    announce(QUEUE_OFF);
    return ui.noticeRetry;
  }
  if (err.code === 'proposal-not-pending' && err.currentStatus) {
    const card = cardOf(item);
    const message = problemMessage(err);
    announce(message);
    const block = card ? markDecided(card, { status: err.currentStatus, decision_note: null }) : null;
    if (block) block.querySelector('.decision-line')?.replaceChildren(message);
    updateCount();
    return block;
  }
  throw err;
}

/** " (LON-007)": which property a status line is about. @param {ReviewItem} item */
const at = (item) => (item.property ? ` (${item.property.ref})` : '');

const approveDialog = createApproveDialog(async (item, body) => {
  const key = keyStore.get();
  if (!key) return (keyRefused(), ui.keyInput);
  try {
    const done = await approveProposal(key, item.proposal_id, body);
    const card = cardOf(item);
    const block = card
      ? markDecided(card, {
          status: 'approved',
          decided_at: new Date().toISOString(),
          decided_by: 'you',
          decision_note: body.note ?? null,
          record: done.record,
          edits: body.edits ?? {},
        })
      : null;
    updateCount();
    announce(`Approved${at(item)}: saved as ${RECORD_LABELS[done.record.type]} #${done.record.id}.`);
    return block;
  } catch (err) {
    return handleDecisionFailure(err, item);
  }
});

const rejectDialog = createRejectDialog(async (item, reason) => {
  const key = keyStore.get();
  if (!key) return (keyRefused(), ui.keyInput);
  try {
    await rejectProposal(key, item.proposal_id, reason);
    const card = cardOf(item);
    const block = card
      ? markDecided(card, {
          status: 'rejected',
          decided_at: new Date().toISOString(),
          decided_by: 'you',
          decision_note: reason,
        })
      : null;
    updateCount();
    announce(`Rejected${at(item)}: nothing was recorded.`);
    return block;
  } catch (err) {
    return handleDecisionFailure(err, item);
  }
});

/** @type {Record<string, string>} */
const AUDIT_ACTIONS = {
  submitted: 'Proposed',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
  withdrawn: 'Withdrawn',
};

/** @type {import('./cards.js').CardActions} */
const cardActions = {
  onApprove: (item, trigger) => approveDialog.open(item, trigger),
  onReject: (item, trigger) => rejectDialog.open(item, trigger),
  onHistory(item, into) {
    const key = keyStore.get();
    if (!key) return keyRefused();
    into.replaceChildren(h('p', { class: 'loading' }, 'Loading the history…'));
    getAudit(key, item.proposal_id).then(
      ({ entries }) => {
        into.replaceChildren(
          h(
            'ol',
            { class: 'audit' },
            ...entries.map((e) =>
              h(
                'li',
                null,
                h('time', { datetime: e.at }, formatDateTime(e.at)),
                h('span', null, ` ${AUDIT_ACTIONS[e.action] ?? e.action} by ${e.actor}`),
                e.note ? h('span', { class: 'audit-note' }, `“${e.note}”`) : null,
              ),
            ),
          ),
        );
      },
      (err) => {
        if (err instanceof ApiError && err.code === 'invalid-api-key') return keyRefused();
        into.replaceChildren(
          h('p', { class: 'field-error' }, err instanceof ApiError ? problemMessage(err) : String(err)),
        );
      },
    );
  },
};

// ---- start ----------------------------------------------------------------------------------------------------

filtersFromAddress();
const stored = keyStore.get();
if (stored) {
  showQueuePanel(stored);
  void load({ key: stored });
} else {
  showKeyForm();
}
