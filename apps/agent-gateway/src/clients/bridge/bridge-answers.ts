import { HTTPError, type RequestError, type Response } from 'got';
import type { z } from 'zod';
import { type BridgeContractIssue, BridgeError, type BridgeErrorInit } from './bridge-errors.ts';

// What came back, as a value or a BridgeError: a 2xx body checked against its route's schema from
// @pa/contracts (so a bridge that drifts from the contract is reported as `contract` instead of leaking
// half-understood data into a worker's tools), a problem+json answer as its kind, code and detail, and a call that
// got no answer as `unavailable` with the reason.

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The call an error is about: `GET /api/assistant-bridge/portfolio` (never the query string, never the key). */
export interface At {
  method: string;
  path: string;
}

export function label(at: At): string {
  return `${at.method} ${at.path}`;
}

export function readBody<S extends z.ZodType>(response: Response<string>, schema: S, at: At): z.output<S> {
  const status = response.statusCode;
  const requestId = headerString(response.headers['x-request-id']);
  // followRedirect is off, so got hands over 3xx (and 304, which we never ask for) as "ok".
  if (status < 200 || status > 299) {
    const location = headerString(response.headers.location);
    const redirect = status >= 300 && status < 400;
    throw new BridgeError(
      'unavailable',
      redirect
        ? `Platform bridge ${label(at)} answered a redirect (${status}); redirects are not followed.`
        : `Platform bridge ${label(at)} answered an unexpected status ${status}.`,
      {
        ...at,
        status,
        requestId,
        reason: redirect ? 'redirect' : 'unexpected-status',
        detail: redirect && location ? `Redirect to ${truncate(location, 200)}` : null,
      },
    );
  }
  const contract = (detail: string, issues: BridgeContractIssue[] = []) =>
    new BridgeError('contract', `Platform bridge ${label(at)} broke its contract: ${detail}`, {
      ...at,
      status,
      requestId,
      detail,
      issues,
    });

  const contentType = headerString(response.headers['content-type']) ?? '';
  if (!JSON_CONTENT_TYPE.test(contentType)) {
    throw contract(`expected JSON, got content type "${truncate(contentType, 80) || 'none'}".`);
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    throw contract('the body is not valid JSON.');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 20).map((issue) => ({
      pointer: `#/${issue.path.map((p) => String(p)).join('/')}`,
      message: issue.message,
    }));
    const more = parsed.error.issues.length > 3 ? ` (+${parsed.error.issues.length - 3} more)` : '';
    const summary = issues
      .slice(0, 3)
      .map((i) => `${i.pointer}: ${i.message}`)
      .join('; ');
    throw contract(`${summary}${more}`, issues);
  }
  return parsed.data;
}

interface ProblemInfo {
  code: string | null;
  detail: string | null;
  requestId: string | null;
}

function problemOf(body: unknown, apiKey: string): ProblemInfo {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      value = null;
    }
  }
  const obj = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
  const code = str(obj.code);
  const detail = str(obj.detail);
  return {
    code: code && /^[a-z0-9-]{1,100}$/.test(code) ? code : null,
    // The bridge never echoes a key; a server impersonating it might, so scrub it anyway.
    detail: detail ? truncate(detail.split(apiKey).join('[redacted]'), 500) : null,
    requestId: str(obj.request_id),
  };
}

export function fromGotError(
  err: unknown,
  at: At,
  apiKey: string,
  ctx: { tooLarge: boolean; maxResponseBytes: number; timeoutMs: number; deadlineMs: number | undefined },
): BridgeError {
  const where = `Platform bridge ${label(at)}`;
  if (ctx.tooLarge) {
    return new BridgeError('unavailable', `${where}: the response exceeded ${ctx.maxResponseBytes} bytes.`, {
      ...at,
      reason: 'too-large',
      status: responseOf(err)?.statusCode ?? null,
    });
  }
  if (err instanceof HTTPError) {
    const response = err.response as Response<unknown>;
    const status = response.statusCode;
    const problem = problemOf(response.body, apiKey);
    const init: BridgeErrorInit = {
      ...at,
      status,
      code: problem.code,
      detail: problem.detail,
      requestId: problem.requestId ?? headerString(response.headers['x-request-id']),
    };
    const suffix = problem.code ? ` ${problem.code}` : '';
    switch (true) {
      case status === 401:
        return new BridgeError('unauthorized', `${where}: the API key was refused (401${suffix}).`, init);
      case status === 403:
        return new BridgeError('forbidden', `${where}: the API key may not do this (403${suffix}).`, init);
      case status === 404:
        return new BridgeError('not-found', `${where}: not found (404${suffix}).`, init);
      case status === 409:
        return new BridgeError('conflict', `${where}: conflict (409${suffix}).`, init);
      case status === 429: {
        const retryAfterSeconds = parseRetryAfter(headerString(response.headers['retry-after']));
        return new BridgeError(
          'rate-limited',
          `${where}: rate limited (429${suffix})${retryAfterSeconds !== null ? `; retry after ${retryAfterSeconds} s` : ''}.`,
          { ...init, retryAfterSeconds },
        );
      }
      case status === 400 || status === 422:
        return new BridgeError(
          'invalid-request',
          `${where}: the bridge refused the request (${status}${suffix}).`,
          init,
        );
      case status === 408:
        return new BridgeError('unavailable', `${where}: the bridge timed out (408${suffix}).`, {
          ...init,
          reason: 'timeout',
        });
      case status >= 500:
        return new BridgeError('unavailable', `${where}: the bridge failed (${status}${suffix}).`, {
          ...init,
          reason: 'server-error',
        });
      default:
        return new BridgeError('unavailable', `${where}: unexpected status ${status}${suffix}.`, {
          ...init,
          reason: 'unexpected-status',
        });
    }
  }
  // Never keep got's error as `cause`: its `options` hold the request headers, Authorization included.
  const e = err as Partial<RequestError> & { name?: string; code?: string };
  const networkCode = typeof e.code === 'string' ? e.code : null;
  if (ctx.deadlineMs !== undefined) {
    return new BridgeError('unavailable', `${where}: no answer within the ${ctx.deadlineMs} ms deadline.`, {
      ...at,
      reason: 'timeout',
      status: responseOf(err)?.statusCode ?? null,
    });
  }
  if (e.name === 'TimeoutError') {
    return new BridgeError('unavailable', `${where}: no complete answer within ${ctx.timeoutMs} ms.`, {
      ...at,
      reason: 'timeout',
      networkCode,
    });
  }
  if (networkCode === 'ERR_ABORTED' || networkCode === 'ERR_CANCELED' || e.name === 'AbortError') {
    return new BridgeError('unavailable', `${where}: the call was cancelled.`, {
      ...at,
      reason: 'aborted',
      networkCode,
    });
  }
  const what = networkCode ?? (typeof e.message === 'string' ? truncate(e.message, 120) : 'request failed');
  return new BridgeError('unavailable', `${where}: cannot reach the bridge (${what}).`, {
    ...at,
    reason: 'network',
    networkCode,
    detail: typeof e.message === 'string' ? truncate(e.message.split(apiKey).join('[redacted]'), 200) : null,
  });
}

function headerString(value: string | string[] | undefined): string | null {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v === '' ? null : v;
}

function parseRetryAfter(value: string | null): number | null {
  if (value === null) return null;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function responseOf(err: unknown): { statusCode: number } | undefined {
  const r = (err as { response?: { statusCode?: unknown } } | null)?.response;
  return r && typeof r.statusCode === 'number' ? { statusCode: r.statusCode } : undefined;
}

function truncate(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}
