// The workers API as the Settings tab uses it: which workspace and worker this chat talks to, the workspace's
// workers and their platform binding. Every failure becomes an ApiError (see chat-api.js). The platform key
// only ever travels in the body of the bind request.
import { problemError, request } from './chat-api.js';

/** @typedef {import('./chat-api.js').FieldsApiError} FieldsApiError */

/**
 * One call of a workers API (also used by channels-api.js).
 * @param {string} url
 * @param {{ method?: string, workspaceId?: string, body?: unknown }} [options]
 */
export function apiCall(url, { method = 'GET', workspaceId, body } = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (workspaceId) headers['X-Workspace-Id'] = workspaceId;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return request(
    url,
    {
      method,
      headers,
      cache: 'no-store',
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    },
    problemErrorWithFields,
  );
}

/**
 * Like problemError, and keeps the problem's per-field `errors` ({pointer, detail}) on the error.
 * @param {Response} res
 */
async function problemErrorWithFields(res) {
  const copy = res.clone();
  const err = /** @type {FieldsApiError} */ (await problemError(res));
  try {
    const problem = await copy.json();
    err.fields = Array.isArray(problem?.errors)
      ? problem.errors.filter(
          (/** @type {any} */ e) => e && typeof e.pointer === 'string' && typeof e.detail === 'string',
        )
      : [];
  } catch {
    err.fields = [];
  }
  return err;
}

export const workerUrl = (/** @type {string} */ workerId) =>
  `/api/assistant/workers/${encodeURIComponent(workerId)}`;

/** GET /api/web/context → {workspaceId, worker} */
export function getWebContext() {
  return apiCall('/api/web/context');
}

/**
 * GET /api/assistant/workers → {workers}
 * @param {string} workspaceId
 */
export function listWorkers(workspaceId) {
  return apiCall('/api/assistant/workers', { workspaceId });
}

/**
 * GET /api/assistant/workers/{id}/platform → {workerId, tenantSlug, keyPreview, boundAt, propertiesTotal,
 * keyRefusedAt} (keyRefusedAt: when the platform began refusing the key, else null)
 * @param {string} workspaceId
 * @param {string} workerId
 */
export function getBinding(workspaceId, workerId) {
  return apiCall(`${workerUrl(workerId)}/platform`, { workspaceId });
}

/**
 * POST /api/assistant/workers/{id}/platform/bind → {workerId, tenantSlug, keyPreview, boundAt, smokeTest}
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {string} tenantSlug
 * @param {string} apiKey
 */
export function bindPlatform(workspaceId, workerId, tenantSlug, apiKey) {
  return apiCall(`${workerUrl(workerId)}/platform/bind`, {
    method: 'POST',
    workspaceId,
    body: { tenantSlug, apiKey },
  });
}

/**
 * DELETE /api/assistant/workers/{id}/platform/bind → {workerId, unbound}
 * @param {string} workspaceId
 * @param {string} workerId
 */
export function unbindPlatform(workspaceId, workerId) {
  return apiCall(`${workerUrl(workerId)}/platform/bind`, { method: 'DELETE', workspaceId });
}
