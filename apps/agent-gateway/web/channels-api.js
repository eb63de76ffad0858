// The channels API as the Settings tab uses it (docs/channels.md): a worker's messaging channels, connecting a Telegram
// bot, a new pairing code, disconnecting. The bot token only ever travels in the body of the connect request; no
// answer carries it back.
import { apiCall, workerUrl } from './settings-api.js';

const channelsUrl = (/** @type {string} */ workerId) => `${workerUrl(workerId)}/channels`;
const channelUrl = (/** @type {string} */ workerId, /** @type {string} */ channelId) =>
  `${channelsUrl(workerId)}/${encodeURIComponent(channelId)}`;

/**
 * @typedef {{ id: string, workerId: string, type: 'telegram' | 'whatsapp', mode: 'polling' | 'webhook',
 *   botUsername: string | null, status: 'pending_pairing' | 'connected' | 'error',
 *   chat: { id: string, title: string | null } | null, connectedAt: string | null, lastError: string | null,
 *   pairingExpiresAt: string | null }} Channel
 * @typedef {{ pairingCode: string, pairingExpiresAt: string, pairingLink: string | null }} Pairing
 */

/**
 * GET …/channels → {channels}
 * @param {string} workspaceId
 * @param {string} workerId
 * @returns {Promise<{ channels: Channel[] }>}
 */
export function listChannels(workspaceId, workerId) {
  return apiCall(channelsUrl(workerId), { workspaceId });
}

/**
 * POST …/channels {type: "telegram", botToken, mode} → 201 the channel, pending pairing, with its first code
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {string} botToken
 * @param {'polling' | 'webhook'} mode
 * @returns {Promise<Channel & Pairing>}
 */
export function connectTelegram(workspaceId, workerId, botToken, mode) {
  return apiCall(channelsUrl(workerId), {
    method: 'POST',
    workspaceId,
    body: { type: 'telegram', botToken, mode },
  });
}

/**
 * POST …/channels/{channelId}/pairing-code → {channelId, pairingCode, pairingExpiresAt, pairingLink}
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {string} channelId
 * @returns {Promise<Pairing & { channelId: string }>}
 */
export function newPairingCode(workspaceId, workerId, channelId) {
  return apiCall(`${channelUrl(workerId, channelId)}/pairing-code`, { method: 'POST', workspaceId });
}

/**
 * DELETE …/channels/{channelId} → 204
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {string} channelId
 */
export function deleteChannel(workspaceId, workerId, channelId) {
  return apiCall(channelUrl(workerId, channelId), { method: 'DELETE', workspaceId });
}
