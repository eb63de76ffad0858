// Pairing and devices (docs/access.md) as the page uses them. Every failure becomes an ApiError (see chat-api.js).
import { apiCall } from './settings-api.js';

/**
 * POST /api/pairing/redeem → {deviceId, token, scopes, workspaceId}. The server also sets the `gw_session`
 * cookie (HttpOnly), which is what the page goes on with: the token in the answer is never stored by the page.
 * @param {string} code
 * @param {string} deviceName
 */
export function redeemPairingCode(code, deviceName) {
  return apiCall('/api/pairing/redeem', { method: 'POST', body: { code, deviceName } });
}

/** GET /api/devices → {devices: [{id, name, scopes, workspaceId, createdAt, lastUsedAt, revokedAt}]} */
export function listDevices() {
  return apiCall('/api/devices');
}

/**
 * DELETE /api/devices/{id}
 * @param {string} deviceId
 */
export function revokeDevice(deviceId) {
  return apiCall(`/api/devices/${encodeURIComponent(deviceId)}`, { method: 'DELETE' });
}
