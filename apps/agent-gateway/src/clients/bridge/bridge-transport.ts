import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { IDEMPOTENCY_KEY_MAX, pathFor, type ProposalCreated, type RouteOk } from '@pa/contracts';
import got, { type Got, type Response, type RetryObject } from 'got';
import { type At, fromGotError, label, readBody } from './bridge-answers.ts';
import {
  type BridgePropose,
  type BridgeRead,
  checkArguments,
  checkBody,
  type Values,
} from './bridge-arguments.ts';
import { BridgeError } from './bridge-errors.ts';

// How a call travels: one got instance per client (settings and the HTTP agent shared by every tenant's key), a
// timeout per attempt, an optional deadline per call, a cap on the body, and retries.
//
// Reads are retried by got (GET only). A proposal (POST) carries an Idempotency-Key made once per proposal and
// is retried here, with the SAME key, on what may have been lost on the way (network errors, 5xx, the per-key
// rate limit, and 409 idempotency-key-in-flight while the first attempt is still being handled): the bridge
// answers a repeated key with the stored result, so a retry never makes a second proposal. The proposal quota
// (429 proposal-quota-exceeded) is not retried: waiting does not free it. The API key travels in the
// Authorization header only.

export interface PlatformBridgeClientOptions {
  /** Where the platform serves, e.g. `http://127.0.0.1:4000` (a path prefix is kept). */
  baseUrl: string;
  /** Per attempt, from sending to the last byte of the body. Default 5000. Timeouts are not retried. */
  timeoutMs?: number;
  /**
   * Optional limit for a whole call, retries and Retry-After waits included (→ `unavailable`/`timeout`).
   * Without it a call may take up to about retries × maxRetryAfterMs + timeoutMs.
   */
  deadlineMs?: number;
  /**
   * Extra attempts after the first, on 408/429/5xx and connection errors. Default 2. Reads (GET) and
   * proposals (with their Idempotency-Key unchanged; also on 409 idempotency-key-in-flight) alike.
   */
  retries?: number;
  /** The largest body accepted (decompressed); a larger one aborts the call. Default 2 MiB. */
  maxResponseBytes?: number;
  /** The longest Retry-After we wait for; a longer one ends the call at once (`rate-limited`). Default 10 s. */
  maxRetryAfterMs?: number;
  /** First backoff step without Retry-After; doubles each retry (plus up to 100 ms jitter). Default 300. */
  retryBaseDelayMs?: number;
  /** Longest backoff step without Retry-After. Default 5000. */
  retryMaxDelayMs?: number;
  userAgent?: string;
  /**
   * Told of every call once it has ended: the route's operationId, `ok` or the failure's kind, and how long it took
   * with its retries (the gateway's metrics).
   */
  onCall?: (operation: string, status: string, seconds: number) => void;
}

export interface BridgeCallOptions {
  /** Sent as X-Request-Id when it is ≤ 128 safe characters (the bridge's own rule), else not sent. */
  requestId?: string | undefined;
  /** Cancels the call (e.g. the chat request went away) → `unavailable`/`aborted`. */
  signal?: AbortSignal | undefined;
}

export interface ProposeCallOptions extends BridgeCallOptions {
  /**
   * The proposal's Idempotency-Key (1–255 visible ASCII characters). Default: a fresh random UUID per call. It
   * is sent unchanged on every retry of this call; pass the same key again only to repeat the same proposal.
   */
  idempotencyKey?: string | undefined;
}

const DEFAULTS = {
  timeoutMs: 5_000,
  retries: 2,
  maxResponseBytes: 2 * 1024 * 1024,
  maxRetryAfterMs: 10_000,
  retryBaseDelayMs: 300,
  retryMaxDelayMs: 5_000,
};

// Retried for GET only. 501/505 are permanent; timeouts are not retried so that one call waits at most about
// timeoutMs for a bridge that hangs.
const RETRY_STATUS_CODES = [408, 429, 500, 502, 503, 504, 521, 522, 524];
const RETRY_ERROR_CODES = [
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ENOTFOUND',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
];

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const IDEMPOTENCY_KEY = new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX}}$`);
// Visible ASCII only: anything else could not travel in a header (or would be a paste accident).
const SENDABLE_KEY = /^[\x21-\x7e]{1,512}$/;

/** The two ways to call the bridge, for one client's settings; the key is handed in by each tenant's client. */
export interface BridgeTransport {
  /** `http://127.0.0.1:4000`: the given base, without a query or a trailing slash */
  readonly baseUrl: string;
  read<R extends BridgeRead>(
    route: R,
    params: Values,
    query: Values,
    apiKey: string,
    call: BridgeCallOptions,
  ): Promise<RouteOk<R>>;
  propose(
    route: BridgePropose,
    body: unknown,
    apiKey: string,
    call: ProposeCallOptions,
  ): Promise<ProposalCreated>;
}

export function createBridgeTransport(options: PlatformBridgeClientOptions): BridgeTransport {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const timeoutMs = positive('timeoutMs', options.timeoutMs ?? DEFAULTS.timeoutMs);
  const retries = nonNegativeInt('retries', options.retries ?? DEFAULTS.retries);
  const maxResponseBytes = positive(
    'maxResponseBytes',
    options.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
  );
  const maxRetryAfterMs = nonNegativeInt(
    'maxRetryAfterMs',
    options.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs,
  );
  const baseDelay = nonNegativeInt('retryBaseDelayMs', options.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs);
  const maxDelay = nonNegativeInt('retryMaxDelayMs', options.retryMaxDelayMs ?? DEFAULTS.retryMaxDelayMs);
  const deadlineMs =
    options.deadlineMs === undefined ? undefined : positive('deadlineMs', options.deadlineMs);

  const http: Got = got.extend({
    timeout: { request: timeoutMs },
    followRedirect: false,
    throwHttpErrors: true,
    responseType: 'text',
    http2: false,
    headers: {
      'user-agent': options.userAgent ?? 'pa-agent-gateway/bridge-client',
      accept: 'application/json',
    },
    retry: {
      limit: retries,
      methods: ['GET'],
      statusCodes: RETRY_STATUS_CODES,
      errorCodes: RETRY_ERROR_CODES,
      // got compares Retry-After against this and gives up when it is longer (we then report rate-limited
      // with the server's figure rather than retrying sooner than it asked).
      maxRetryAfter: maxRetryAfterMs,
      calculateDelay: ({ attemptCount, retryAfter, computedValue }: RetryObject) => {
        // computedValue is got's verdict: 0 = no retry (limit, method, status/error code, Retry-After too long).
        if (computedValue === 0) return 0;
        if (retryAfter !== undefined && retryAfter > 0) return retryAfter;
        return Math.min(baseDelay * 2 ** (attemptCount - 1), maxDelay) + Math.random() * 100 || 1;
      },
    },
  });

  function authorization(apiKey: string, at: At): string {
    if (!SENDABLE_KEY.test(apiKey)) {
      throw new BridgeError(
        'unauthorized',
        `Platform bridge ${label(at)}: the API key is empty or malformed.`,
        {
          ...at,
          detail: 'The API key is empty or contains characters that cannot be sent.',
        },
      );
    }
    return `Bearer ${apiKey}`;
  }

  function callSignal(call: BridgeCallOptions) {
    const deadline = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
    const signals = [call.signal, deadline].filter((x): x is AbortSignal => x !== undefined);
    return { deadline, signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0] };
  }

  /**
   * One proposal: the body checked by the route's own schema (and sent with its defaults filled in), one
   * Idempotency-Key for every attempt, retried on what a retry can fix.
   */
  async function propose(
    route: BridgePropose,
    body: unknown,
    apiKey: string,
    call: ProposeCallOptions,
  ): Promise<ProposalCreated> {
    const at = { method: 'POST', path: route.path };
    const checked = checkBody(route, body);
    const idempotencyKey = call.idempotencyKey ?? randomUUID();
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new TypeError(`idempotencyKey must be 1–${IDEMPOTENCY_KEY_MAX} visible ASCII characters.`);
    }
    const headers: Record<string, string> = {
      authorization: authorization(apiKey, at),
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    };
    if (call.requestId !== undefined && SAFE_REQUEST_ID.test(call.requestId)) {
      headers['x-request-id'] = call.requestId;
    }
    const url = new URL(baseUrl.pathname.replace(/\/$/, '') + route.path, baseUrl);
    const payload = JSON.stringify(checked);
    const { deadline, signal } = callSignal(call);

    for (let attempt = 0; ; attempt++) {
      let response: Response<string>;
      try {
        response = (await http.post(url, { headers, body: payload, signal })) as Response<string>;
      } catch (err) {
        const failure = fromGotError(err, at, apiKey, {
          tooLarge: false,
          maxResponseBytes,
          timeoutMs,
          deadlineMs: deadline?.aborted ? deadlineMs : undefined,
        });
        const wait = attempt < retries ? proposalRetryDelay(failure, attempt) : null;
        if (wait === null) throw failure;
        try {
          await sleep(wait, undefined, signal ? { signal } : {});
        } catch {
          throw new BridgeError('unavailable', `Platform bridge ${label(at)}: the call was cancelled.`, {
            ...at,
            reason: deadline?.aborted ? 'timeout' : 'aborted',
          });
        }
        continue;
      }
      return readBody(response, route.responses[201].schema, at);
    }
  }

  /** How long to wait before retrying a proposal, or null when a retry cannot help. */
  function proposalRetryDelay(failure: BridgeError, attempt: number): number | null {
    const backoff = Math.min(baseDelay * 2 ** attempt, maxDelay) + Math.random() * 100;
    const retryAfterMs = failure.retryAfterSeconds === null ? null : failure.retryAfterSeconds * 1000;
    switch (failure.kind) {
      case 'unavailable':
        if (failure.reason === 'network' && RETRY_ERROR_CODES.includes(failure.networkCode ?? ''))
          return backoff;
        if (failure.reason === 'server-error' && RETRY_STATUS_CODES.includes(failure.status ?? 0))
          return backoff;
        return null;
      case 'rate-limited':
        // the per-key request budget refills; the pending-proposal quota does not
        if (failure.code === 'proposal-quota-exceeded') return null;
        if (retryAfterMs === null) return backoff;
        return retryAfterMs <= maxRetryAfterMs ? Math.max(retryAfterMs, 1) : null;
      case 'conflict':
        return failure.code === 'idempotency-key-in-flight' ? backoff : null;
      default:
        return null;
    }
  }

  async function read<R extends BridgeRead>(
    route: R,
    params: Values,
    query: Values,
    apiKey: string,
    call: BridgeCallOptions,
  ): Promise<RouteOk<R>> {
    const sent = checkArguments(route, params, query);
    const fullPath = pathFor(route, sent.params);
    const at = { method: 'GET', path: fullPath };
    const headers: Record<string, string> = { authorization: authorization(apiKey, at) };
    if (call.requestId !== undefined && SAFE_REQUEST_ID.test(call.requestId)) {
      headers['x-request-id'] = call.requestId;
    }
    const url = new URL(baseUrl.pathname.replace(/\/$/, '') + fullPath, baseUrl);
    for (const [k, v] of Object.entries(sent.query)) url.searchParams.set(k, v);

    const { deadline, signal } = callSignal(call);

    let tooLarge = false;
    const pending = http.get(url, { headers, signal });
    pending.on('downloadProgress', (progress) => {
      if (tooLarge) return;
      if (progress.transferred > maxResponseBytes || (progress.total ?? 0) > maxResponseBytes) {
        tooLarge = true;
        pending.cancel();
      }
    });

    let response: Response<string>;
    try {
      response = (await pending) as Response<string>;
    } catch (err) {
      throw fromGotError(err, at, apiKey, {
        tooLarge,
        maxResponseBytes,
        timeoutMs,
        deadlineMs: deadline?.aborted ? deadlineMs : undefined,
      });
    }
    return readBody(response, route.responses[200].schema, at) as RouteOk<R>;
  }

  const onCall = options.onCall;
  if (!onCall) return { baseUrl: baseUrl.href.replace(/\/$/, ''), read, propose };
  const observed = async <T>(operation: string, call: Promise<T>): Promise<T> => {
    const started = performance.now();
    let status = 'ok';
    try {
      return await call;
    } catch (err) {
      status = err instanceof BridgeError ? err.kind : 'error';
      throw err;
    } finally {
      onCall(operation, status, (performance.now() - started) / 1000);
    }
  };
  return {
    baseUrl: baseUrl.href.replace(/\/$/, ''),
    read: (route, params, query, apiKey, call) =>
      observed(route.operationId, read(route, params, query, apiKey, call)),
    propose: (route, body, apiKey, call) => observed(route.operationId, propose(route, body, apiKey, call)),
  };
}

function normaliseBaseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError('baseUrl must be an absolute http(s) URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError('baseUrl must be an absolute http(s) URL.');
  }
  if (url.username || url.password) throw new TypeError('baseUrl must not carry credentials.');
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number.`);
  return value;
}

function nonNegativeInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a whole number ≥ 0.`);
  return value;
}
