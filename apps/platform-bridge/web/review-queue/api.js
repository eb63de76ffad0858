// The review queue's admin API as the page calls it, with the admin key from this tab. Every failure is an
// ApiError (../common/api.js); on a 409 its currentStatus is the proposal's status now.
import { ApiError, callAdminApi as call } from '../common/api.js';

/** @typedef {import('./types.js').ReviewQueueResponse} ReviewQueueResponse */
/** @typedef {import('./types.js').ApproveResponse} ApproveResponse */
/** @typedef {import('./types.js').RejectResponse} RejectResponse */
/** @typedef {import('./types.js').AuditResponse} AuditResponse */

export { ApiError };

const proposalUrl = (/** @type {number} */ id) => `/api/admin/proposals/${encodeURIComponent(id)}`;

/**
 * GET /api/admin/review-queue
 * @param {string} key
 * @param {{ status: string, kind: string, cursor?: string | null }} filter
 * @returns {Promise<ReviewQueueResponse>}
 */
export function getReviewQueue(key, { status, kind, cursor }) {
  const query = new URLSearchParams({ status, kind });
  if (cursor) query.set('cursor', cursor);
  return call(key, `/api/admin/review-queue?${query}`);
}

/**
 * POST /api/admin/proposals/{id}/approve
 * @param {string} key
 * @param {number} id
 * @param {{ note?: string, edits?: Record<string, unknown> }} body
 * @returns {Promise<ApproveResponse>}
 */
export function approveProposal(key, id, body) {
  return call(key, `${proposalUrl(id)}/approve`, { method: 'POST', body });
}

/**
 * POST /api/admin/proposals/{id}/reject
 * @param {string} key
 * @param {number} id
 * @param {string} reason
 * @returns {Promise<RejectResponse>}
 */
export function rejectProposal(key, id, reason) {
  return call(key, `${proposalUrl(id)}/reject`, { method: 'POST', body: { reason } });
}

/**
 * GET /api/admin/proposals/{id}/audit
 * @param {string} key
 * @param {number} id
 * @returns {Promise<AuditResponse>}
 */
export function getAudit(key, id) {
  return call(key, `${proposalUrl(id)}/audit`);
}
