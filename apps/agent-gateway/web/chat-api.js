// The gateway's chat API as the browser uses it: the streaming chat (read with fetch so that problem responses
// can be read and the request aborted), the provider list, session clearing and the conversation history. Every
// failure becomes an ApiError whose message is meant for the user.

/** A failure the UI shows in words. `code` is the problem slug (or `network-error`, `stream-error`...). */
export class ApiError extends Error {
  /**
   * @param {string} message
   * @param {{ code?: string, status?: number, retryAfter?: number | null, requestId?: string | null }} [info]
   */
  constructor(message, info = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = info.code ?? 'error';
    this.status = info.status ?? 0;
    this.retryAfter = info.retryAfter ?? null;
    this.requestId = info.requestId ?? null;
  }
}

/**
 * An ApiError that also carries a validation problem's per-field errors (settings-api.js keeps them).
 * @typedef {ApiError & { fields?: { pointer: string, detail: string }[] }} FieldsApiError
 */

/**
 * Seconds from a Retry-After header (delta-seconds or an HTTP date); null when absent or unreadable.
 * @param {string | null | undefined} value
 * @returns {number | null}
 */
export function parseRetryAfter(value, now = Date.now()) {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Turns a non-2xx response (RFC 9457 problem+json, or anything else) into an ApiError.
 * @param {Response} res
 */
export async function problemError(res) {
  /** @type {any} whatever JSON the server sent; every field is checked before use */
  let problem;
  try {
    const text = await res.text();
    problem = text ? JSON.parse(text) : null;
  } catch {
    problem = null; // not JSON: describe the status instead
  }
  const code = (problem && typeof problem.code === 'string' && problem.code) || `http-${res.status}`;
  // The gateway asks for a device token and this browser has none (never paired, or revoked): pairing.js
  // answers by showing the pairing screen.
  if (res.status === 401 && code === 'unauthorized') window.dispatchEvent(new CustomEvent('pairing-needed'));
  const retryAfter = parseRetryAfter(res.headers.get('Retry-After'));
  const requestId =
    (problem && typeof problem.request_id === 'string' && problem.request_id) ||
    res.headers.get('X-Request-Id');
  return new ApiError(describeProblem(res.status, code, problem, retryAfter), {
    code,
    status: res.status,
    retryAfter,
    requestId,
  });
}

/**
 * @param {number} status
 * @param {string} code
 * @param {any} problem the parsed body, checked field by field
 * @param {number | null} retryAfter
 */
function describeProblem(status, code, problem, retryAfter) {
  const wait = retryAfter === null ? 'a moment' : `${retryAfter} s`;
  if (code === 'rate-limited') return `Rate limited — try again in ${wait}.`;
  if (code === 'too-many-streams') {
    return `Too many replies are streaming at once — try again in ${wait}.`;
  }
  if (problem && typeof problem === 'object') {
    const details = Array.isArray(problem.errors)
      ? problem.errors
          .map((/** @type {any} */ e) => (e && typeof e.detail === 'string' ? e.detail : ''))
          .filter(Boolean)
      : [];
    const main = typeof problem.detail === 'string' && problem.detail ? problem.detail : problem.title;
    if (typeof main === 'string' && main) {
      return details.length > 0 && !details.some((/** @type {string} */ d) => main.includes(d))
        ? `${main} (${details.join('; ')})`
        : main;
    }
  }
  if (status >= 500) return `The server had a problem (HTTP ${status}). Try again in a moment.`;
  return `The request failed (HTTP ${status}).`;
}

const NETWORK_MESSAGE =
  'Network error — the server could not be reached. Check the connection and try again.';

/** @param {unknown} err */
function isAbort(err) {
  return err instanceof DOMException && err.name === 'AbortError';
}

/**
 * One JSON request: a network failure, a problem response or an unreadable body becomes an ApiError
 * (`toError` turns a problem response into one); an abort is passed on as it is.
 * @param {string} url
 * @param {RequestInit} [init]
 * @param {(res: Response) => Promise<ApiError>} [toError]
 */
export async function request(url, init, toError = problemError) {
  let res;
  try {
    res = await fetch(url, { ...init, headers: { Accept: 'application/json', ...(init?.headers ?? {}) } });
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new ApiError(NETWORK_MESSAGE, { code: 'network-error' });
  }
  if (!res.ok) throw await toError(res);
  if (res.status === 204) return null; // No Content (a DELETE): nothing to read
  try {
    return await res.json();
  } catch {
    throw new ApiError('The server sent an answer that could not be read.', { code: 'bad-response' });
  }
}

/**
 * GET /api/providers → {providers, active}
 * @param {string | null} [sessionId]
 */
export function getProviders(sessionId) {
  const qs = sessionId ? `?${new URLSearchParams({ sessionId })}` : '';
  return request(`/api/providers${qs}`, { method: 'GET' });
}

/**
 * POST /api/clear → {sessionId, cleared, turnsDeleted}
 * @param {string} sessionId
 */
export function clearSession(sessionId) {
  return request('/api/clear', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sessionId }),
  });
}

/**
 * @typedef {{ id: string, role: 'user' | 'assistant', content: string,
 *             status: 'complete' | 'interrupted' | 'error', createdAt: string }} HistoryTurn
 * @typedef {{ sessionId: string, title: string, createdAt: string, lastActiveAt: string,
 *             turns: HistoryTurn[], nextBefore: string | null }} SessionHistory
 * @typedef {{ sessionId: string, title: string, createdAt: string, lastActiveAt: string,
 *             turnCount: number }} SessionSummary
 */

/**
 * GET /api/chat/sessions/{id} → one page of a conversation's turns, oldest first (the latest page without `before`)
 * @param {string} sessionId
 * @param {{ limit?: number, before?: string | null, signal?: AbortSignal }} [opts]
 * @returns {Promise<SessionHistory>}
 */
export function getSessionHistory(sessionId, opts = {}) {
  const params = new URLSearchParams({ limit: String(opts.limit ?? 30) });
  if (opts.before) params.set('before', opts.before);
  return request(`/api/chat/sessions/${encodeURIComponent(sessionId)}?${params}`, {
    method: 'GET',
    signal: opts.signal,
  });
}

/**
 * GET /api/chat/sessions → a page of this device's conversations (those containing `q`, when given), most
 * recently active first; `nextBefore` reads the next page
 * @param {{ q?: string, before?: string | null, limit?: number, signal?: AbortSignal }} [opts]
 * @returns {Promise<{ sessions: SessionSummary[], nextBefore: string | null }>}
 */
export function listConversations(opts = {}) {
  const params = new URLSearchParams({ limit: String(opts.limit ?? 30) });
  if (opts.q) params.set('q', opts.q);
  if (opts.before) params.set('before', opts.before);
  return request(`/api/chat/sessions?${params}`, { method: 'GET', signal: opts.signal });
}

/**
 * PATCH /api/chat/sessions/{id} {title} → the renamed conversation (null: titled by its first question again)
 * @param {string} sessionId
 * @param {string | null} title
 * @returns {Promise<SessionSummary>}
 */
export function renameSession(sessionId, title) {
  return request(`/api/chat/sessions/${encodeURIComponent(sessionId)}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ title }),
  });
}

/**
 * DELETE /api/chat/sessions/{id} → the conversation and its messages are deleted
 * @param {string} sessionId
 */
export function deleteSession(sessionId) {
  return request(`/api/chat/sessions/${encodeURIComponent(sessionId)}`, { method: 'DELETE' });
}

/**
 * GET /api/chat/sessions?ids= → the named conversations that hold turns, most recently active first
 * @param {string[]} ids
 * @returns {Promise<{ sessions: SessionSummary[], nextBefore?: string | null }>}
 */
export function listSessions(ids) {
  if (ids.length === 0) return Promise.resolve({ sessions: [] });
  return request(`/api/chat/sessions?${new URLSearchParams({ ids: ids.join(',') })}`, { method: 'GET' });
}

/**
 * Splits server-sent-event text into events. Returns the complete events and the unparsed rest.
 * Each event is {id, event, data}; comment-only blocks (`: ping`) yield no event.
 * @param {string} buffer
 */
export function parseSseBlocks(buffer) {
  /** @type {{ id: string | null, event: string, data: string }[]} */
  const events = [];
  const normalized = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    /** @type {string | null} */
    let id = null;
    let event = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
      else if (field === 'event') event = value;
    }
    if (data.length > 0) events.push({ id, event, data: data.join('\n') });
  }
  return { events, rest };
}

/**
 * Streams one chat turn from GET /api/chat/stream.
 * Calls `onStart({sessionId})` on the first chunk, `onDelta(text)` for each content delta.
 * Resolves with {finished: true} after `[DONE]`. Rejects with an ApiError (problem response, in-stream error,
 * network failure, stream cut short) or with the AbortError when `signal` aborts.
 *
 * @param {{ message: string, sessionId?: string | null, provider?: string | null, requestId: string,
 *           signal: AbortSignal, onStart?: (info: {sessionId: string | null}) => void,
 *           onDelta?: (text: string) => void }} opts
 */
export async function streamChat(opts) {
  const params = new URLSearchParams({ message: opts.message });
  if (opts.sessionId) params.set('sessionId', opts.sessionId);
  if (opts.provider) params.set('provider', opts.provider);
  params.set('requestId', opts.requestId);

  let res;
  try {
    res = await fetch(`/api/chat/stream?${params}`, {
      method: 'GET',
      headers: { Accept: 'text/event-stream' },
      cache: 'no-store',
      signal: opts.signal,
    });
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new ApiError(NETWORK_MESSAGE, { code: 'network-error' });
  }
  if (!res.ok) throw await problemError(res);
  if (!res.body) throw new ApiError('The server sent no reply stream.', { code: 'bad-response' });

  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let started = false;
  /** @type {ApiError | null} */
  let streamError = null;
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (isAbort(err) || opts.signal.aborted) throw opts.signal.reason ?? err;
        throw new ApiError('The connection was lost before the reply finished.', { code: 'network-error' });
      }
      if (chunk.done) buffer += decoder.decode();
      else buffer += decoder.decode(chunk.value, { stream: true });

      const { events, rest } = parseSseBlocks(chunk.done ? `${buffer}\n\n` : buffer);
      buffer = rest;
      for (const ev of events) {
        if (ev.data === '[DONE]') {
          if (streamError) throw streamError;
          return { finished: true };
        }
        let payload;
        try {
          payload = JSON.parse(ev.data);
        } catch {
          continue; // not ours to understand; skip it
        }
        if (payload && payload.error) {
          const e = payload.error;
          streamError = new ApiError(
            typeof e.message === 'string' && e.message ? e.message : 'The reply failed.',
            { code: typeof e.code === 'string' ? e.code : 'stream-error' },
          );
          continue;
        }
        const choice = payload && Array.isArray(payload.choices) ? payload.choices[0] : null;
        if (!started) {
          started = true;
          opts.onStart?.({ sessionId: typeof payload.session_id === 'string' ? payload.session_id : null });
        }
        const content = choice && choice.delta ? choice.delta.content : undefined;
        if (typeof content === 'string' && content) opts.onDelta?.(content);
      }
      if (chunk.done) {
        if (streamError) throw streamError;
        throw new ApiError('The connection was lost before the reply finished.', { code: 'stream-cut' });
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
