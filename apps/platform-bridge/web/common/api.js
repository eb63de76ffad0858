// How the settings pages call the admin API (/api/admin) with the admin key of this tab. Every failure becomes an
// ApiError carrying what a page needs to say it in words: the problem's code, its per-field errors, the current
// status of what a 409 is about, and the wait on a 429. A network failure has the code `network`.

export class ApiError extends Error {
  /**
   * @param {number} status 0 when no answer came
   * @param {string} code the problem's code, or `network`
   * @param {string} detail
   * @param {{ fields?: { pointer: string, detail: string }[], currentStatus?: string | null,
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
 * One call to the admin API: the answer's JSON (nothing for a 204), or an ApiError.
 * @template T
 * @param {string} key the admin key
 * @param {string} url
 * @param {{ method?: 'GET' | 'POST' | 'PUT' | 'DELETE', body?: unknown }} [options]
 * @returns {Promise<T>}
 */
export async function callAdminApi(key, url, { method = 'GET', body } = {}) {
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
  if (res.status === 204) return /** @type {T} */ (undefined);
  return /** @type {T} */ (await res.json());
}
