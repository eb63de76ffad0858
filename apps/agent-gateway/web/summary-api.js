// The daily summary API as the Settings tab uses it: the worker's briefing configuration, its runs,
// and "send one now". Every failure becomes an ApiError with the problem's code and per-field errors.
import { apiCall, workerUrl } from './settings-api.js';

const configUrl = (/** @type {string} */ workerId) =>
  `/api/assistant/email/summary/config/${encodeURIComponent(workerId)}`;

/** GET the config → {workerId, enabled, deliveryChannel, summarySchedule, timezone, nextRunAt, updatedAt} */
export function getSummaryConfig(/** @type {string} */ workspaceId, /** @type {string} */ workerId) {
  return apiCall(configUrl(workerId), { workspaceId });
}

/**
 * POST the config → the saved config with its nextRunAt.
 * @param {string} workspaceId
 * @param {string} workerId
 * @param {{ enabled: boolean, deliveryChannel: string, summarySchedule: string, timezone: string }} body
 */
export function setSummaryConfig(workspaceId, workerId, body) {
  return apiCall(configUrl(workerId), { method: 'POST', workspaceId, body });
}

/** GET .../summary/runs?limit → {runs}, newest first */
export function listSummaryRuns(
  /** @type {string} */ workspaceId,
  /** @type {string} */ workerId,
  limit = 5,
) {
  return apiCall(`${workerUrl(workerId)}/summary/runs?limit=${limit}`, { workspaceId });
}

/** POST .../summary/run-now → 202 {runId} */
export function runSummaryNow(/** @type {string} */ workspaceId, /** @type {string} */ workerId) {
  return apiCall(`${workerUrl(workerId)}/summary/run-now`, { method: 'POST', workspaceId });
}
