// The channels API as the Settings tab uses it (docs/channels.md): a worker's messaging channels, connecting a Telegram
// bot or a WhatsApp number, a new pairing code, disconnecting, and checking a WhatsApp webhook as Meta does. The
// bot token, access token, app secret and verify token only ever travel in request bodies (the verify token, for the
// check, in the webhook's query as Meta sends it); no answer carries one back.
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
  // The Telegram and WhatsApp sections each load the list when the tab is shown: one request answers both.
  const key = `${workspaceId}\n${workerId}`;
  const pending = inFlight.get(key);
  if (pending) return pending;
  const call = apiCall(channelsUrl(workerId), { workspaceId }).finally(() => inFlight.delete(key));
  inFlight.set(key, call);
  return call;
}

/** @type {Map<string, Promise<{ channels: Channel[] }>>} lists being fetched, by workspace and worker */
const inFlight = new Map();

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
 * POST …/channels {type: "whatsapp", accessToken, phoneNumberId, appSecret, verifyToken} → 201 the channel, pending
 * pairing, with its first code (no link: the code is typed into WhatsApp)
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {{ accessToken: string, phoneNumberId: string, appSecret: string, verifyToken: string }} credentials
 * @returns {Promise<Channel & Pairing>}
 */
export function connectWhatsApp(workspaceId, workerId, credentials) {
  return apiCall(channelsUrl(workerId), {
    method: 'POST',
    workspaceId,
    body: { type: 'whatsapp', ...credentials },
  });
}

/** The address Meta calls for a WhatsApp channel, as this page reaches Porter. */
export const whatsappWebhookPath = (/** @type {string} */ channelId) =>
  `/api/channels/whatsapp/${encodeURIComponent(channelId)}/webhook`;

/**
 * Meta's verification handshake, from the browser: GET the webhook with `hub.mode=subscribe`, the verify token and a
 * random challenge. Porter answers the challenge as text when the token is the channel's (else 403, or 404 for a
 * channel that is gone).
 * @param {string} channelId
 * @param {string} verifyToken
 * @returns {Promise<{ outcome: 'verified' | 'token-refused' | 'not-found' | 'unreachable' | 'unexpected', status: number }>}
 */
export async function checkWhatsAppWebhook(channelId, verifyToken) {
  const challenge = String(crypto.getRandomValues(new Uint32Array(1))[0]);
  const query = new URLSearchParams({
    'hub.mode': 'subscribe',
    'hub.verify_token': verifyToken,
    'hub.challenge': challenge,
  });
  let res;
  try {
    res = await fetch(`${whatsappWebhookPath(channelId)}?${query}`, {
      cache: 'no-store',
      credentials: 'omit', // as Meta calls it: no cookie
    });
  } catch {
    return { outcome: 'unreachable', status: 0 };
  }
  const text = await res.text().catch(() => '');
  if (res.status === 200 && text === challenge) return { outcome: 'verified', status: 200 };
  if (res.status === 403) return { outcome: 'token-refused', status: 403 };
  if (res.status === 404) return { outcome: 'not-found', status: 404 };
  return { outcome: 'unexpected', status: res.status };
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
