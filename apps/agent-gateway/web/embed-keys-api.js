// A worker's embed keys as the Settings tab uses them (docs/embedding.md): list, make (the key, the visitor secret
// and the snippet are in that answer only), edit (never the key), revoke. Every failure becomes an ApiError (see chat-api.js).
import { apiCall, workerUrl } from './settings-api.js';

const embedKeysUrl = (/** @type {string} */ workerId) => `${workerUrl(workerId)}/embed-keys`;

/**
 * @typedef {{ visitorPerMinute: number, ipPerMinute: number, workspacePerDay: number }} EmbedBudgets
 * @typedef {{ id: string, workspaceId: string, workerId: string, label: string, keyPrefix: string,
 *   origins: string[], allowProposals: boolean, requireVisitorToken: boolean, budgets: EmbedBudgets, createdAt: string,
 *   lastUsedAt: string | null, revokedAt: string | null }} EmbedKey
 * @typedef {{ key: EmbedKey, embedKey: string, visitorSecret: string, snippet: string }} CreatedEmbedKey
 * @typedef {{ label?: string, origins: string[], allowProposals?: boolean, requireVisitorToken?: boolean,
 *   budgets?: Partial<EmbedBudgets> }} EmbedKeyRequest
 */

/**
 * GET …/embed-keys → {embedKeys}, newest first, revoked ones included
 * @param {string} workspaceId
 * @param {string} workerId
 * @returns {Promise<{ embedKeys: EmbedKey[] }>}
 */
export function listEmbedKeys(workspaceId, workerId) {
  return apiCall(embedKeysUrl(workerId), { workspaceId });
}

/**
 * POST …/embed-keys → 201 {key, embedKey, visitorSecret, snippet}
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {EmbedKeyRequest} body
 * @returns {Promise<CreatedEmbedKey>}
 */
export function createEmbedKey(workspaceId, workerId, body) {
  return apiCall(embedKeysUrl(workerId), { method: 'POST', workspaceId, body });
}

/**
 * PATCH …/embed-keys/{id} → the key as edited (the key itself and its visitor secret do not change)
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {string} embedKeyId
 * @param {Partial<EmbedKeyRequest>} body
 * @returns {Promise<EmbedKey>}
 */
export function updateEmbedKey(workspaceId, workerId, embedKeyId, body) {
  return apiCall(`${embedKeysUrl(workerId)}/${encodeURIComponent(embedKeyId)}`, {
    method: 'PATCH',
    workspaceId,
    body,
  });
}

/**
 * DELETE …/embed-keys/{id} → the revoked key
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {string} embedKeyId
 * @returns {Promise<EmbedKey>}
 */
export function revokeEmbedKey(workspaceId, workerId, embedKeyId) {
  return apiCall(`${embedKeysUrl(workerId)}/${encodeURIComponent(embedKeyId)}`, {
    method: 'DELETE',
    workspaceId,
  });
}
