// The review-queue settings page (docs/bridge-api.md): the admin pastes an admin key once (kept in this tab's
// sessionStorage), reads the proposals with their diff and warnings, and approves or rejects them; each result
// shows on its card without a reload and is announced in the status line.
import { ApiError, approveProposal, getAudit, getReviewQueue, rejectProposal } from './api.js';
import { markDecided, renderCard } from './cards.js';
import { createApproveDialog, createRejectDialog } from './dialogs.js';
import { h } from '../common/dom.js';
import { formatDateTime, RECORD_LABELS, STATUS_LABELS } from './format.js';
import { problemMessage, QUEUE_OFF } from './messages.js';
import { $, announce } from '../common/page.js';
import { createSignIn } from '../common/sign-in.js';

/** @typedef {import('./types.js').ReviewItem} ReviewItem */
/** @typedef {import('./types.js').ProposalStatus} ProposalStatus */

const ui = {
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
};

let generation = 0; // answers of a superseded load are dropped
/** @type {string | null} */
let nextCursor = null;

// ---- the key ------------------------------------------------------------------------------------------------

const signIn = createSignIn({
  neededBy: 'The review queue needs',
  content: [ui.queuePanel],
  // a stored key shows the queue's panel at once, while its first page loads
  open: (key, { fromKeyForm }) => {
    if (!fromKeyForm) showQueuePanel(key);
    return load({ key, fromKeyForm });
  },
  forget() {
    generation++;
    ui.list.replaceChildren();
    document.querySelectorAll('dialog[open]').forEach((d) => /** @type {HTMLDialogElement} */ (d).close());
  },
});

/** The queue for `key`, named in the top bar by its non-secret start. @param {string} key */
function showQueuePanel(key, { focus = false } = {}) {
  ui.queuePanel.hidden = false;
  signIn.signedIn(key, `Admin key ${key.slice(0, 10)}…`, { focus });
}

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
async function load({ key = signIn.key() ?? '', append = false, fromKeyForm = false } = {}) {
  if (!key) return signIn.showKeyForm();
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
    // the key form is gone with the focus in it: start again at the top of the queue
    if (fromKeyForm) showQueuePanel(key, { focus: true });
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
    if (signIn.refusedOnOpen(err, fromKeyForm)) return;
    if (fromKeyForm && err.code !== 'review-queue-not-enabled') {
      signIn.setKeyError(problemMessage(err));
      return;
    }
    // The key works but the queue cannot be read: the key is kept, the reason shown where the list would be.
    if (fromKeyForm) showQueuePanel(key);
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
  if (err.code === 'invalid-api-key') return signIn.keyRefused();
  if (err.code === 'review-queue-not-enabled') {
    setNotice(QUEUE_OFF);
    announce(QUEUE_OFF);
    return ui.noticeRetry;
  }
  if (err.code === 'proposal-not-pending' && err.currentStatus) {
    const card = cardOf(item);
    const message = problemMessage(err);
    announce(message);
    const status = /** @type {ProposalStatus} */ (err.currentStatus);
    const block = card ? markDecided(card, { status, decision_note: null }) : null;
    if (block) block.querySelector('.decision-line')?.replaceChildren(message);
    updateCount();
    return block;
  }
  throw err;
}

/** " (LON-007)": which property a status line is about. @param {ReviewItem} item */
const at = (item) => (item.property ? ` (${item.property.ref})` : '');

const approveDialog = createApproveDialog(async (item, body) => {
  const key = signIn.key();
  if (!key) return signIn.keyRefused();
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
  const key = signIn.key();
  if (!key) return signIn.keyRefused();
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

/**
 * A proposal's history, oldest first. An entry made over MCP (an assistant such as Claude connected to the
 * platform) says so; over REST, the usual way, it says nothing more.
 * @param {import('./types.js').AuditEntry[]} entries
 */
const auditList = (entries) =>
  h(
    'ol',
    { class: 'audit' },
    ...entries.map((e) =>
      h(
        'li',
        null,
        h('time', { datetime: e.at }, formatDateTime(e.at)),
        h(
          'span',
          null,
          ` ${AUDIT_ACTIONS[e.action] ?? e.action} by ${e.actor}${e.channel === 'mcp' ? ' via MCP' : ''}`,
        ),
        e.note ? h('span', { class: 'audit-note' }, `“${e.note}”`) : null,
      ),
    ),
  );

/** @type {import('./cards.js').CardActions} */
const cardActions = {
  onApprove: (item, trigger) => approveDialog.open(item, trigger),
  onReject: (item, trigger) => rejectDialog.open(item, trigger),
  onHistory(item, into) {
    const key = signIn.key();
    if (!key) {
      signIn.keyRefused();
      return;
    }
    into.replaceChildren(h('p', { class: 'loading' }, 'Loading the history…'));
    getAudit(key, item.proposal_id).then(
      ({ entries }) => into.replaceChildren(auditList(entries)),
      (err) => {
        if (err instanceof ApiError && err.code === 'invalid-api-key') {
          signIn.keyRefused();
          return;
        }
        into.replaceChildren(
          h('p', { class: 'field-error' }, err instanceof ApiError ? problemMessage(err) : String(err)),
        );
      },
    );
  },
};

// ---- start ----------------------------------------------------------------------------------------------------

filtersFromAddress();
signIn.start();
