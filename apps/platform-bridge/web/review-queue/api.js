// The review queue's admin API as the page calls it, with the admin key from this tab. Every failure
// becomes an ApiError carrying what the page needs to say it in words: the problem's code, its per-field errors,
// the proposal's current status on a 409, and the wait on a 429. A network failure has the code `network`.

/** @typedef {import('./types.js').ReviewQueueResponse} ReviewQueueResponse */
/** @typedef {import('./types.js').ApproveResponse} ApproveResponse */
/** @typedef {import('./types.js').RejectResponse} RejectResponse */
/** @typedef {import('./types.js').AuditResponse} AuditResponse */
/** @typedef {import('./types.js').ProposalStatus} ProposalStatus */

export class ApiError extends Error {
  /**
   * @param {number} status 0 when no answer came
   * @param {string} code the problem's code, or `network`
   * @param {string} detail
   * @param {{ fields?: { pointer: string, detail: string }[], currentStatus?: ProposalStatus | null,
   *   retryAfterSeconds?: number | null, requestId?: string | null }} [extra]
   */
  constructor(status, code, detail, extra = {}) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = extra.fields ?? [];
    this.currentStatus = extra.currentStatus ?? null;
    this.retryAfterSeconds = extra.retryAfterSeconds ?? null;
    this.requestId = extra.requestId ?? null;
  }
}

/**
 * @param {Response} res
 * @returns {Promise<ApiError>}
 */
async function problemOf(res) {
  /** @type {any} */
  let p = null;
  try {
    p = await res.json();
  } catch {
    // not JSON (a proxy's error page): the status alone decides what the page says
  }
  const code = typeof p?.code === 'string' ? p.code : `http-${res.status}`;
  const detail = typeof p?.detail === 'string' ? p.detail : res.statusText;
  const fields = Array.isArray(p?.errors)
    ? p.errors.filter(
        (/** @type {any} */ e) => e && typeof e.pointer === 'string' && typeof e.detail === 'string',
      )
    : [];
  const retry = Number(p?.retry_after_seconds ?? res.headers.get('Retry-After'));
  return new ApiError(res.status, code, detail, {
    fields,
    currentStatus: typeof p?.current_status === 'string' ? p.current_status : null,
    retryAfterSeconds: Number.isFinite(retry) && retry > 0 ? retry : null,
    requestId: typeof p?.request_id === 'string' ? p.request_id : res.headers.get('X-Request-Id'),
  });
}

/**
 * @template T
 * @param {string} key the admin key
 * @param {string} url
 * @param {{ method?: 'GET' | 'POST', body?: unknown }} [options]
 * @returns {Promise<T>}
 */
async function call(key, url, { method = 'GET', body } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Authorization: `Bearer ${key}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(url, {
      method,
      headers,
      cache: 'no-store',
      credentials: 'omit',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, 'network', 'No answer from the platform.');
  }
  if (!res.ok) throw await problemOf(res);
  return /** @type {T} */ (await res.json());
}

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
