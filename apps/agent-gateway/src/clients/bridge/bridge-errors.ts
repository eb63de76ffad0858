// Every failure of a bridge call is one typed error, BridgeError, whose `kind` callers switch on (the binding's
// smoke test, the worker tools, the daily summary). It never carries the API key: not in its message, its
// detail, nor as a `cause`.

export const BRIDGE_ERROR_KINDS = [
  'unauthorized', // 401 (or a key that cannot be sent at all)
  'forbidden', // 403, e.g. insufficient-scope
  'not-found', // 404; `code` tells bridge-not-enabled from property-not-found (and writes-not-enabled)
  'conflict', // 409, e.g. idempotency-key-in-flight after the retries
  'rate-limited', // 429 after the retries, or with a Retry-After longer than we are willing to wait; or
  // proposal-quota-exceeded (never retried)
  'invalid-request', // 400/422 from the bridge, or arguments refused before sending
  'contract', // a 2xx whose body is not JSON or breaks its schema
  'unavailable', // network error, timeout, 5xx after the retries, redirect, body too large, other statuses
] as const;
export type BridgeErrorKind = (typeof BRIDGE_ERROR_KINDS)[number];

/** Why the bridge counts as `unavailable`; for logs and messages, callers need only `kind`. */
export type BridgeUnavailableReason =
  'network' | 'timeout' | 'server-error' | 'redirect' | 'too-large' | 'unexpected-status' | 'aborted';

export interface BridgeContractIssue {
  /** JSON pointer into the response body, e.g. `#/properties/0/ref`. */
  pointer: string;
  message: string;
}

export interface BridgeErrorInit {
  method: string;
  path: string;
  status?: number | null;
  code?: string | null;
  detail?: string | null;
  requestId?: string | null;
  reason?: BridgeUnavailableReason | null;
  retryAfterSeconds?: number | null;
  issues?: BridgeContractIssue[];
  networkCode?: string | null;
}

export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  readonly kind: BridgeErrorKind;
  /** `GET /api/assistant-bridge/portfolio` (never the query string, never the key). */
  readonly method: string;
  readonly path: string;
  /** HTTP status of the last answer; null when there was none (network, timeout, refused before sending). */
  readonly status: number | null;
  /** The problem body's `code` (e.g. `bridge-not-enabled`), when the bridge sent one. */
  readonly code: string | null;
  /** The problem body's `detail`, or what went wrong on our side. */
  readonly detail: string | null;
  /** The bridge's request id (problem `request_id` or the `X-Request-Id` response header). */
  readonly requestId: string | null;
  readonly reason: BridgeUnavailableReason | null;
  readonly retryAfterSeconds: number | null;
  /** For `contract`: where the body breaks its schema (at most 20). */
  readonly issues: BridgeContractIssue[];
  /** For `unavailable`/`network`: the system error code, e.g. ECONNREFUSED. */
  readonly networkCode: string | null;

  constructor(kind: BridgeErrorKind, message: string, init: BridgeErrorInit) {
    super(message);
    this.kind = kind;
    this.method = init.method;
    this.path = init.path;
    this.status = init.status ?? null;
    this.code = init.code ?? null;
    this.detail = init.detail ?? null;
    this.requestId = init.requestId ?? null;
    this.reason = init.reason ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.issues = init.issues ?? [];
    this.networkCode = init.networkCode ?? null;
  }

  /** A plain object for structured logs. */
  toJSON() {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      method: this.method,
      path: this.path,
      status: this.status,
      code: this.code,
      detail: this.detail,
      requestId: this.requestId,
      reason: this.reason,
      retryAfterSeconds: this.retryAfterSeconds,
      issues: this.issues,
      networkCode: this.networkCode,
    };
  }
}

export function isBridgeError(err: unknown): err is BridgeError {
  return err instanceof BridgeError;
}
