import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BRIDGE_BASE,
  bridgeRoutes,
  type ComplianceResponse,
  type ComplianceUpdateProposalBody,
  type DealProposalBody,
  type FinancialLogProposalBody,
  IDEMPOTENCY_KEY_MAX,
  type Proposal,
  type ProposalCreated,
  type ProposalsArgs,
  type ProposalsResponse,
  type DEAL_STATUS_FILTERS,
  type DealsArgs,
  type DealsResponse,
  type EmailActivityArgs,
  type EmailActivityResponse,
  type MailboxesResponse,
  type PortfolioArgs,
  type PortfolioComplianceArgs,
  type PortfolioComplianceResponse,
  type PortfolioResponse,
  type Property,
  pathFor,
  type RouteOk,
  templatePath,
} from '@pa/contracts';
import got, { type Got, HTTPError, type RequestError, type Response, type RetryObject } from 'got';
import type { z } from 'zod';

// The ONLY code in the gateway that talks to the platform bridge (/api/assistant-bridge/*, docs/bridge-api.md). Every
// answer is checked against the shared schemas of @pa/contracts, so a bridge that drifts from the contract is
// reported as `contract` instead of leaking half-understood data into a worker's tools. Every failure is one
// typed error, BridgeError, whose `kind` callers switch on (the binding's smoke test and the worker
// tools). The API key travels in the Authorization header only and never appears in an error. Paths,
// argument bounds and response schemas all come from the bridge's route table (bridgeRoutes).
//
// Reads are retried by got (GET only). A proposal (POST) carries an Idempotency-Key made once per proposal and
// is retried here, with the SAME key, on what may have been lost on the way (network errors, 5xx, the per-key
// rate limit, and 409 idempotency-key-in-flight while the first attempt is still being handled): the bridge
// answers a repeated key with the stored result, so a retry never makes a second proposal. The proposal quota
// (429 proposal-quota-exceeded) is not retried: waiting does not free it.

export const BRIDGE_PATH = BRIDGE_BASE;

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
}

export interface BridgeCallOptions {
  /** Sent as X-Request-Id when it is ≤ 128 safe characters (the bridge's own rule), else not sent. */
  requestId?: string | undefined;
  /** Cancels the call (e.g. the chat request went away) → `unavailable`/`aborted`. */
  signal?: AbortSignal | undefined;
}

// The bridge's query parameters as typed arguments; left out, the bridge's defaults apply.
export type PortfolioQuery = PortfolioArgs;
export type PortfolioComplianceQuery = PortfolioComplianceArgs;
export type DealsQuery = DealsArgs;
export type EmailActivityQuery = EmailActivityArgs;
export type ProposalsQuery = ProposalsArgs;
// The proposal bodies as a caller writes them (defaults such as deal_type and vat_pence may be left out).
export type DealProposalInput = z.input<typeof DealProposalBody>;
export type ComplianceUpdateProposalInput = z.input<typeof ComplianceUpdateProposalBody>;
export type FinancialLogProposalInput = z.input<typeof FinancialLogProposalBody>;

export interface ProposeCallOptions extends BridgeCallOptions {
  /**
   * The proposal's Idempotency-Key (1–255 visible ASCII characters). Default: a fresh random UUID per call. It
   * is sent unchanged on every retry of this call; pass the same key again only to repeat the same proposal.
   */
  idempotencyKey?: string | undefined;
}
export { DEAL_STATUS_FILTERS } from '@pa/contracts';
export type DealsStatusFilter = (typeof DEAL_STATUS_FILTERS)[number];

/** The bridge reads for one tenant's key. Every result has been parsed by its @pa/contracts schema. */
export interface PlatformBridgeClient {
  getPortfolio(query?: PortfolioQuery, call?: BridgeCallOptions): Promise<PortfolioResponse>;
  getProperty(id: number, call?: BridgeCallOptions): Promise<Property>;
  getCompliance(propertyId: number, call?: BridgeCallOptions): Promise<ComplianceResponse>;
  /**
   * The compliance needing attention across the whole portfolio, by property (one page; follow next_cursor):
   * the same verdicts as getCompliance for each property, in one call instead of one per property.
   */
  getPortfolioCompliance(
    query?: PortfolioComplianceQuery,
    call?: BridgeCallOptions,
  ): Promise<PortfolioComplianceResponse>;
  getDeals(query?: DealsQuery, call?: BridgeCallOptions): Promise<DealsResponse>;
  getEmailActivity(query?: EmailActivityQuery, call?: BridgeCallOptions): Promise<EmailActivityResponse>;
  getMailboxes(call?: BridgeCallOptions): Promise<MailboxesResponse>;
  /** The tenant's proposals, newest first (needs bridge:read only). */
  listProposals(query?: ProposalsQuery, call?: BridgeCallOptions): Promise<ProposalsResponse>;
  getProposal(id: number, call?: BridgeCallOptions): Promise<Proposal>;
  /** Submits a proposal for review (needs bridge:propose and the tenant's writes flag); creates no record. */
  proposeDeal(body: DealProposalInput, call?: ProposeCallOptions): Promise<ProposalCreated>;
  proposeComplianceUpdate(
    body: ComplianceUpdateProposalInput,
    call?: ProposeCallOptions,
  ): Promise<ProposalCreated>;
  proposeFinancialLog(body: FinancialLogProposalInput, call?: ProposeCallOptions): Promise<ProposalCreated>;
  /** `plat_…abcd`-style hint for logs; never the key. */
  readonly keyPreview: string;
}

/**
 * `createPlatformBridgeClient(opts)` returns `forKey`: call it (or its `.forKey`) with a tenant's remote API
 * key to get that tenant's client. Settings and the HTTP agent are shared; the key is bound once, so tools
 * cannot mix keys and no method signature carries it.
 */
export type PlatformBridge = ((apiKey: string) => PlatformBridgeClient) & {
  forKey(apiKey: string): PlatformBridgeClient;
  readonly baseUrl: string;
};

/** The bridge reads this client makes: entries of the route table, GET only. */
type BridgeRead = (typeof bridgeRoutes)[
  | 'getPortfolio'
  | 'getProperty'
  | 'getPropertyCompliance'
  | 'listPortfolioCompliance'
  | 'listDeals'
  | 'listEmailActivity'
  | 'listMailboxes'
  | 'listProposals'
  | 'getProposal'];
/** The proposal submissions: POST with a body and an Idempotency-Key, answered 201. */
type BridgePropose = (typeof bridgeRoutes)['proposeDeal' | 'proposeComplianceUpdate' | 'proposeFinancialLog'];
type Values = Record<string, unknown>;

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
const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export function createPlatformBridgeClient(options: PlatformBridgeClientOptions): PlatformBridge {
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

  function forKey(apiKey: string): PlatformBridgeClient {
    const read = <R extends BridgeRead>(route: R, params: Values, query: Values, call?: BridgeCallOptions) =>
      request(route, params, query, apiKey, call ?? {});

    // async, so that arguments refused before sending reject like every other failure.
    return {
      keyPreview: previewKey(apiKey),
      getPortfolio: async (query = {}, call) => read(bridgeRoutes.getPortfolio, {}, query, call),
      getProperty: async (id, call) => read(bridgeRoutes.getProperty, { id }, {}, call),
      getCompliance: async (propertyId, call) =>
        read(bridgeRoutes.getPropertyCompliance, { id: propertyId }, {}, call),
      getPortfolioCompliance: async (query = {}, call) =>
        read(bridgeRoutes.listPortfolioCompliance, {}, query, call),
      getDeals: async (query = {}, call) => read(bridgeRoutes.listDeals, {}, query, call),
      getEmailActivity: async (query = {}, call) => read(bridgeRoutes.listEmailActivity, {}, query, call),
      getMailboxes: async (call) => read(bridgeRoutes.listMailboxes, {}, {}, call),
      listProposals: async (query = {}, call) => read(bridgeRoutes.listProposals, {}, query, call),
      getProposal: async (id, call) => read(bridgeRoutes.getProposal, { id }, {}, call),
      proposeDeal: async (body, call) => propose(bridgeRoutes.proposeDeal, body, apiKey, call ?? {}),
      proposeComplianceUpdate: async (body, call) =>
        propose(bridgeRoutes.proposeComplianceUpdate, body, apiKey, call ?? {}),
      proposeFinancialLog: async (body, call) =>
        propose(bridgeRoutes.proposeFinancialLog, body, apiKey, call ?? {}),
    };
  }

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
  async function propose<R extends BridgePropose>(
    route: R,
    body: unknown,
    apiKey: string,
    call: ProposeCallOptions,
  ): Promise<ProposalCreated> {
    const at = { method: 'POST', path: route.path };
    const parsed = route.body.safeParse(body);
    if (!parsed.success) {
      const detail = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.map(String).join('.') || 'body'} ${i.message}`)
        .join('; ');
      throw new BridgeError('invalid-request', `Platform bridge ${label(at)}: ${detail}.`, { ...at, detail });
    }
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
    const payload = JSON.stringify(parsed.data);
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

  async function request<R extends BridgeRead>(
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

  const bridge = forKey as PlatformBridge;
  Object.defineProperty(bridge, 'forKey', { value: forKey, enumerable: true });
  Object.defineProperty(bridge, 'baseUrl', { value: baseUrl.href.replace(/\/$/, ''), enumerable: true });
  return bridge;
}

// ---- answers ------------------------------------------------------------------------------------------------

interface At {
  method: string;
  path: string;
}

function label(at: At): string {
  return `${at.method} ${at.path}`;
}

function readBody<S extends z.ZodType>(response: Response<string>, schema: S, at: At): z.output<S> {
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

function fromGotError(
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

// ---- arguments ----------------------------------------------------------------------------------------------

/**
 * The arguments as the strings that will be sent, checked by the route's own path and query schemas: what the
 * bridge would refuse is refused here, before sending (`invalid-request`, status null).
 */
function checkArguments(
  route: BridgeRead,
  params: Values,
  query: Values,
): { params: Record<string, string>; query: Record<string, string> } {
  // In the order of the route's schema, so that one question is always the same URL (caches, logs).
  const order = 'query' in route ? Object.keys(route.query.shape) : [];
  const strings = (values: Values) =>
    Object.fromEntries(
      Object.entries(values)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
        // a list (the compliance read's statuses) travels as one comma-separated value
        .map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]),
    );
  const sent = { params: strings(params), query: strings(query) };
  const schemas = [
    'params' in route ? route.params.safeParse(sent.params) : null,
    'query' in route ? route.query.safeParse(sent.query) : null,
  ];
  const issues = schemas.flatMap((r) => (r && !r.success ? r.error.issues : []));
  if (issues.length > 0) {
    const detail = issues.map((i) => `${i.path.map(String).join('.')} ${i.message}`).join('; ');
    const at = { method: 'GET', path: templatePath(route.path) };
    throw new BridgeError('invalid-request', `Platform bridge ${label(at)}: ${detail}.`, { ...at, detail });
  }
  return sent;
}

// ---- helpers ------------------------------------------------------------------------------------------------

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

/** The bridge's own non-secret lookup prefix (`plat_` + 8 characters, as its key listings show), else nothing. */
function previewKey(apiKey: string): string {
  return /^plat_[0-9A-Za-z]{38}$/.test(apiKey) ? `${apiKey.slice(0, 13)}…` : '(unrecognised key)';
}
