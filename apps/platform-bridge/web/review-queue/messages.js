// What the page says when a call fails: each problem code in words a letting agent can act on (what every settings
// page says alike is in ../common/messages.js).
import { commonProblemMessage } from '../common/messages.js';

/** @typedef {import('./api.js').ApiError} ApiError */
/** @typedef {import('./types.js').ProposalStatus} ProposalStatus */

export const QUEUE_OFF = 'The review queue is not switched on for this workspace.';

/** @type {Record<ProposalStatus, string>} */
const ALREADY = {
  approved: 'was already approved',
  rejected: 'was already rejected',
  expired: 'has expired: it was not reviewed in time',
  withdrawn: 'was withdrawn by the assistant',
  pending_review: 'is still waiting for review',
};

/**
 * 409 proposal-not-pending: what happened to the proposal meanwhile (another tab, another reviewer, the sweep).
 * @param {ProposalStatus | null} current
 */
export function notPendingMessage(current) {
  const what = current ? ALREADY[current] : 'was already decided';
  return `This proposal ${what}, so nothing was changed.`;
}

/**
 * The sentence for a failed call.
 * @param {ApiError} err
 */
export function problemMessage(err) {
  switch (err.code) {
    case 'insufficient-scope':
      return 'This admin key can read the queue but not approve or reject. Ask your platform operator for a key that may decide (review:write).';
    case 'review-queue-not-enabled':
      return QUEUE_OFF;
    case 'proposal-not-found':
      return 'This proposal is not in this workspace any more.';
    case 'proposal-not-pending':
      return notPendingMessage(/** @type {ProposalStatus | null} */ (err.currentStatus));
    case 'unknown-property':
      return 'The property is not one of this workspace’s properties.';
    case 'validation-failed':
      return 'Some details need fixing: see the highlighted fields.';
  }
  return commonProblemMessage(err);
}
