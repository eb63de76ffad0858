// The worker's own mailboxes as the Settings tab uses them (docs/email.md): list, connect (the password only ever
// travels in the body of the connect request; no answer carries it back), remove.
import { apiCall, workerUrl } from './settings-api.js';

const mailboxesUrl = (/** @type {string} */ workerId) => `${workerUrl(workerId)}/mailboxes`;

/**
 * @typedef {{ id: string, workerId: string, address: string, host: string, port: number, secure: boolean,
 *   username: string, status: 'active' | 'error' | 'stopped', lastSyncAt: string | null, messagesStored: number,
 *   lastError: string | null, createdAt: string }} Mailbox
 * @typedef {{ address: string, host: string, port: number, secure: boolean, username: string, password: string }} MailboxRequest
 */

/**
 * GET …/mailboxes → {mailboxes}
 * @param {string} workspaceId
 * @param {string} workerId
 * @returns {Promise<{ mailboxes: Mailbox[] }>}
 */
export function listMailboxes(workspaceId, workerId) {
  return apiCall(mailboxesUrl(workerId), { workspaceId });
}

/**
 * POST …/mailboxes → 201 the mailbox
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {MailboxRequest} body
 * @returns {Promise<Mailbox>}
 */
export function connectMailbox(workspaceId, workerId, body) {
  return apiCall(mailboxesUrl(workerId), { method: 'POST', workspaceId, body });
}

/**
 * DELETE …/mailboxes/{id} → 204
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {string} mailboxId
 */
export function removeMailbox(workspaceId, workerId, mailboxId) {
  return apiCall(`${mailboxesUrl(workerId)}/${encodeURIComponent(mailboxId)}`, {
    method: 'DELETE',
    workspaceId,
  });
}
