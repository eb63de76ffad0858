// The remote-access admin API (packages/contracts/src/remote-access-routes.ts) as the page calls it, with the
// admin key from this tab. Every failure is an ApiError (../common/api.js).
import { ApiError, callAdminApi } from '../common/api.js';

/** @typedef {import('./types.js').Whoami} Whoami */
/** @typedef {import('./types.js').RemoteKey} RemoteKey */
/** @typedef {import('./types.js').AdminKey} AdminKey */
/** @typedef {import('./types.js').TenantFlag} TenantFlag */
/** @typedef {import('./types.js').WebhookEndpoint} WebhookEndpoint */
/** @typedef {import('./types.js').WebhookDelivery} WebhookDelivery */
/** @typedef {import('./types.js').AccessAuditEntry} AccessAuditEntry */

export { ApiError };

/**
 * @template T
 * @param {string} key the admin key
 * @param {string} path under /api/admin
 * @param {{ method?: 'GET' | 'POST' | 'PUT' | 'DELETE', body?: unknown }} [options]
 * @returns {Promise<T>}
 */
function call(key, path, options) {
  return callAdminApi(key, `/api/admin${path}`, options);
}

const id = (/** @type {number} */ n) => encodeURIComponent(n);

/** @param {string} key @returns {Promise<Whoami>} */
export const whoami = (key) => call(key, '/whoami');

/** @param {string} key @returns {Promise<{ keys: RemoteKey[] }>} */
export const listRemoteKeys = (key) => call(key, '/remote-keys');

/**
 * @param {string} key
 * @param {{ label: string, scopes: string[] }} body
 * @returns {Promise<{ key: RemoteKey, secret: string }>}
 */
export const createRemoteKey = (key, body) => call(key, '/remote-keys', { method: 'POST', body });

/** @param {string} key @param {number} keyId @returns {Promise<{ key: RemoteKey }>} */
export const revokeRemoteKey = (key, keyId) =>
  call(key, `/remote-keys/${id(keyId)}/revoke`, { method: 'POST' });

/** @param {string} key @returns {Promise<{ keys: AdminKey[] }>} */
export const listAdminKeys = (key) => call(key, '/admin-keys');

/**
 * @param {string} key
 * @param {number} keyId
 * @param {boolean} confirmLast revoke even the last key that may manage remote access
 * @returns {Promise<{ key: AdminKey }>}
 */
export const revokeAdminKey = (key, keyId, confirmLast) =>
  call(key, `/admin-keys/${id(keyId)}/revoke`, {
    method: 'POST',
    body: confirmLast ? { confirm_last_access_admin: true } : {},
  });

/** @param {string} key @returns {Promise<{ flags: TenantFlag[] }>} */
export const listFlags = (key) => call(key, '/flags');

/** @param {string} key @param {string} name @param {boolean} enabled @returns {Promise<{ flag: TenantFlag }>} */
export const setFlag = (key, name, enabled) =>
  call(key, `/flags/${encodeURIComponent(name)}`, { method: 'PUT', body: { enabled } });

/** @param {string} key @returns {Promise<{ endpoints: WebhookEndpoint[] }>} */
export const listEndpoints = (key) => call(key, '/webhook-endpoints');

/** @param {string} key @param {string} url @returns {Promise<{ endpoint: WebhookEndpoint, secret: string }>} */
export const createEndpoint = (key, url) =>
  call(key, '/webhook-endpoints', { method: 'POST', body: { url } });

/** @param {string} key @param {number} endpointId @returns {Promise<void>} */
export const deleteEndpoint = (key, endpointId) =>
  call(key, `/webhook-endpoints/${id(endpointId)}`, { method: 'DELETE' });

/**
 * @param {string} key
 * @param {number} endpointId
 * @param {number} limit
 * @returns {Promise<{ deliveries: WebhookDelivery[] }>}
 */
export const listDeliveries = (key, endpointId, limit) =>
  call(key, `/webhook-endpoints/${id(endpointId)}/deliveries?limit=${limit}`);

/** @param {string} key @param {number} deliveryId @returns {Promise<{ delivery: WebhookDelivery }>} */
export const redeliver = (key, deliveryId) =>
  call(key, `/webhook-deliveries/${id(deliveryId)}/redeliver`, { method: 'POST' });

/** @param {string} key @param {number} limit @returns {Promise<{ entries: AccessAuditEntry[] }>} */
export const listAudit = (key, limit) => call(key, `/access-audit?limit=${limit}`);
