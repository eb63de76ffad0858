// One proposal as a card: what it is, the property, who proposed it and when, how long it may wait, the warnings,
// the assistant's notes, what would change, and — once decided — the decision.
import { h, icon } from '../common/dom.js';
import {
  fieldLabel,
  formatAddress,
  formatDateTime,
  formatValue,
  fromNow,
  KIND_LABELS,
  RECORD_LABELS,
  STATUS_LABELS,
  summaryText,
} from './format.js';

/** @typedef {import('./types.js').ReviewItem} ReviewItem */
/** @typedef {import('./types.js').ProposalStatus} ProposalStatus */
/** @typedef {import('./types.js').RecordRef} RecordRef */

/**
 * @typedef {{
 *   onApprove(item: ReviewItem, trigger: HTMLButtonElement): void,
 *   onReject(item: ReviewItem, trigger: HTMLButtonElement): void,
 *   onHistory(item: ReviewItem, into: HTMLElement): void,
 * }} CardActions
 */

const EXPIRY_SOON_MS = 2 * 86_400_000;
/**
 * Fields never shown as rows of the table: the property and the notes have their own lines on the card, and a
 * deal's `source` is always "proposal" here.
 */
const NOT_IN_TABLE = new Set(['property_id', 'review_notes', 'source']);

/** @param {ProposalStatus} status */
function statusBadge(status) {
  return h('span', { class: `badge status status-${status}`, 'data-role': 'status' }, STATUS_LABELS[status]);
}

/** @param {ReviewItem} item */
function expiry(item) {
  const left = new Date(item.expires_at).getTime() - Date.now();
  const text = left > 0 ? `Expires ${fromNow(item.expires_at)}` : 'Expires at the next check';
  return h(
    'span',
    {
      class: `expiry${left < EXPIRY_SOON_MS ? ' expiry-soon' : ''}`,
      'data-role': 'expiry',
      title: `Expires ${formatDateTime(item.expires_at)}`,
    },
    icon('clock'),
    text,
  );
}

/** @param {ReviewItem} item */
function propertyLine(item) {
  if (!item.property) {
    return h('p', { class: 'property property-none' }, icon('home'), 'No property on the platform yet');
  }
  return h(
    'p',
    { class: 'property' },
    icon('home'),
    h('strong', { class: 'property-ref' }, item.property.ref),
    h('span', { class: 'property-address' }, formatAddress(item.property.address)),
  );
}

/** @param {ReviewItem} item */
function submittedLine(item) {
  return h(
    'p',
    { class: 'meta' },
    icon('user'),
    h(
      'span',
      null,
      'Proposed by ',
      h('strong', null, item.submitted_by),
      ' ',
      h(
        'time',
        { datetime: item.created_at, title: formatDateTime(item.created_at) },
        fromNow(item.created_at),
      ),
    ),
  );
}

/** @param {ReviewItem} item */
function warnings(item) {
  if (item.warnings.length === 0) return null;
  return h(
    'div',
    { class: 'warnings', role: 'group', 'aria-label': 'Check before deciding' },
    h(
      'ul',
      null,
      ...item.warnings.map((w) =>
        h('li', { class: 'warning', 'data-code': w.code }, icon('warning'), h('span', null, w.message)),
      ),
    ),
  );
}

/** @param {ReviewItem} item */
function notes(item) {
  if (!item.review_notes) return null;
  return h(
    'div',
    { class: 'notes' },
    h('p', { class: 'notes-label' }, icon('note'), 'Assistant’s note'),
    h('p', { class: 'notes-text' }, item.review_notes),
  );
}

/**
 * The diff as a table (field, current, proposed). A proposal that creates a record has nothing to compare
 * with: then the table lists what it would write. Without a diff, the payload's fields stand in.
 * @param {ReviewItem} item
 */
function changes(item) {
  const rows = (
    item.diff.length
      ? item.diff
      : Object.entries(item.payload)
          .filter(([, v]) => v !== null && typeof v !== 'object')
          .map(([path, to]) => ({ path, from: null, to: /** @type {import('./types.js').DiffValue} */ (to) }))
  ).filter((r) => !NOT_IN_TABLE.has(r.path));
  if (rows.length === 0) return null;
  const compare = rows.some((r) => r.from !== null);
  const caption = captionOf(item.status, compare);
  return h(
    'table',
    { class: `diff${compare ? '' : ' diff-new'}` },
    h('caption', null, caption),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, 'Field'),
        compare ? h('th', { scope: 'col' }, 'Current') : null,
        h('th', { scope: 'col' }, item.status === 'approved' ? 'Recorded' : 'Proposed'),
      ),
    ),
    h(
      'tbody',
      null,
      ...rows.map((r) =>
        h(
          'tr',
          { 'data-path': r.path },
          h('th', { scope: 'row' }, fieldLabel(r.path, item.kind)),
          compare ? h('td', { class: 'from', 'data-label': 'Current' }, formatValue(r.path, r.from)) : null,
          h('td', { class: 'to', 'data-label': compare ? 'Proposed' : '' }, formatValue(r.path, r.to)),
        ),
      ),
    ),
  );
}

/**
 * @param {ProposalStatus} status
 * @param {boolean} compare whether the table compares with a current record
 */
function captionOf(status, compare) {
  if (status === 'pending_review') return compare ? 'What would change' : 'What approval would record';
  if (status === 'approved') return compare ? 'What changed' : 'What was recorded';
  return 'What was proposed';
}

/**
 * @param {RecordRef | null} record
 */
function recordText(record) {
  return record ? ` Saved as ${RECORD_LABELS[record.type]} #${record.id}.` : '';
}

/**
 * The decision as one block: who, when, what was created, the note or reason.
 * @param {{ status: ProposalStatus, decided_at: string | null, decided_by: string | null,
 *   decision_note: string | null, record: RecordRef | null }} d
 */
function decisionBlock(d) {
  const when = d.decided_at ? ` ${fromNow(d.decided_at)}` : '';
  const by = d.decided_by ? ` by ${d.decided_by}` : '';
  /** @type {Record<ProposalStatus, string>} */
  const lines = {
    approved: `Approved${by}${when}.${recordText(d.record)}`,
    rejected: `Rejected${by}${when}.`,
    expired: `Expired${when}: nobody reviewed it in time.`,
    withdrawn: `Withdrawn${by}${when}.`,
    pending_review: 'Waiting for review.',
  };
  const label = d.status === 'rejected' ? 'Reason: ' : 'Note: ';
  return h(
    'div',
    { class: `decision decision-${d.status}`, tabindex: '-1', 'data-role': 'decision' },
    icon(d.status === 'approved' ? 'check' : 'cross'),
    h(
      'div',
      null,
      h('p', { class: 'decision-line' }, lines[d.status]),
      d.decision_note ? h('p', { class: 'decision-note' }, label, d.decision_note) : null,
    ),
  );
}

/**
 * @param {ReviewItem} item
 * @param {CardActions} actions
 * @param {boolean} canDecide the key may approve and reject: without it a pending card has no buttons
 * @returns {HTMLLIElement}
 */
export function renderCard(item, actions, canDecide) {
  const titleId = `proposal-${item.proposal_id}-title`;
  const pending = item.status === 'pending_review';

  const approve = h(
    'button',
    { type: 'button', class: 'btn btn-primary', 'data-action': 'approve' },
    'Approve…',
  );
  const reject = h(
    'button',
    { type: 'button', class: 'btn btn-secondary', 'data-action': 'reject' },
    'Reject…',
  );
  approve.addEventListener('click', () => actions.onApprove(item, approve));
  reject.addEventListener('click', () => actions.onReject(item, reject));

  const historyBody = h('div', { class: 'history-body' });
  const history = h('details', { class: 'history' }, h('summary', null, 'History'), historyBody);
  history.addEventListener('toggle', () => {
    if (history.open) actions.onHistory(item, historyBody);
  });

  return h(
    'li',
    { class: 'card', 'data-proposal-id': String(item.proposal_id), 'data-status': item.status },
    h(
      'article',
      { 'aria-labelledby': titleId },
      h(
        'div',
        { class: 'card-top' },
        h('span', { class: `badge kind kind-${item.kind}` }, KIND_LABELS[item.kind]),
        statusBadge(item.status),
        pending ? expiry(item) : null,
      ),
      h('h3', { class: 'summary', id: titleId }, summaryText(item.summary)),
      propertyLine(item),
      submittedLine(item),
      warnings(item),
      notes(item),
      changes(item),
      pending ? null : decisionBlock(item),
      h(
        'div',
        { class: 'card-actions' },
        pending && canDecide ? h('div', { class: 'decide', 'data-role': 'decide' }, approve, reject) : null,
        history,
      ),
    ),
  );
}

/**
 * Turns a pending card into a decided one, in place: the status badge, no expiry, no buttons, the decision.
 * Returns the decision block, which takes the focus the removed buttons had.
 * @param {HTMLElement} card
 * @param {{ status: ProposalStatus, decided_at?: string | null, decided_by?: string | null,
 *   decision_note?: string | null, record?: RecordRef | null, edits?: Record<string, unknown> }} d
 *   decided_at and decided_by unknown when the proposal was decided elsewhere (a 409); `edits`, the reviewer's
 *   corrections, replace the proposed values in the table
 */
export function markDecided(card, d) {
  card.dataset.status = d.status;
  const table = card.querySelector('table.diff');
  if (table) {
    const caption = table.querySelector('caption');
    if (caption) caption.textContent = captionOf(d.status, !table.classList.contains('diff-new'));
    const valueHead = table.querySelector('thead th:last-child');
    if (valueHead && d.status === 'approved') valueHead.textContent = 'Recorded';
    for (const [path, value] of Object.entries(d.edits ?? {})) {
      const cell = table.querySelector(`tr[data-path="${CSS.escape(path)}"] td.to`);
      if (!cell) continue;
      cell.replaceChildren(formatValue(path, value), h('span', { class: 'edited' }, 'edited by you'));
    }
  }
  card.querySelector('[data-role="status"]')?.replaceWith(statusBadge(d.status));
  card.querySelector('[data-role="expiry"]')?.remove();
  card.querySelector('[data-role="decide"]')?.remove();
  card.querySelector('[data-role="decision"]')?.remove();
  const block = decisionBlock({
    status: d.status,
    decided_at: d.decided_at ?? null,
    decided_by: d.decided_by ?? null,
    decision_note: d.decision_note ?? null,
    record: d.record ?? null,
  });
  card.querySelector('.card-actions')?.before(block);
  // Invalidate a history already shown: it lacks this decision.
  const history = /** @type {HTMLDetailsElement | null} */ (card.querySelector('details.history'));
  if (history) history.open = false;
  return block;
}
