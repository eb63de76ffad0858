// One error vocabulary for services and routers alike. An error says what went wrong (its kind, a stable `code`
// and a detail safe to show), never which HTTP status it becomes: problemHandler maps kinds to statuses in one
// table (problem.ts). Anything that is not an AppError is answered as a 500 without details.

export interface FieldError {
  pointer: string;
  detail: string;
}

/** A Bearer challenge for the `WWW-Authenticate` header (RFC 6750 §3). */
export interface BearerChallenge {
  realm: string;
  /** left out when the request carried no credentials at all (RFC 6750 §3.1) */
  error?: 'invalid_token' | 'insufficient_scope';
  /** the scope the call needs (with `insufficient_scope`), or the scopes that would do (space-separated) */
  scope?: string;
  /** where the resource's RFC 9728 metadata is (an MCP client discovers the scopes there) */
  resourceMetadata?: string;
}

export interface ErrorOptions {
  /** the problem's title when the kind's generic one says too little (e.g. "Unknown provider") */
  title?: string;
  cause?: unknown;
}

/** The base of every kind: a stable `code` (the problem type's slug) and a detail a caller may read. */
export abstract class AppError extends Error {
  readonly title: string | undefined;

  constructor(
    readonly code: string,
    detail: string,
    opts: ErrorOptions = {},
  ) {
    super(detail, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.title = opts.title;
  }
}

/** The input breaks its schema or a rule; `errors` points at each offending field. */
export class ValidationFailed extends AppError {
  constructor(
    readonly errors: FieldError[] = [],
    detail = 'The request is not valid.',
    opts: ErrorOptions & { code?: string } = {},
  ) {
    super(opts.code ?? 'validation-failed', detail, opts);
  }
}

/** The body is not JSON that can be read at all. */
export class MalformedInput extends AppError {}

/** The body is larger than the service accepts. */
export class PayloadTooLarge extends AppError {}

/** The body comes in a media type or encoding the route does not take. */
export class UnsupportedMediaType extends AppError {}

/**
 * No credentials, or credentials that are not valid. `challenge` is the Bearer challenge of a token-protected API;
 * a signed request (a webhook's HMAC) has none to offer.
 */
export class Unauthorized extends AppError {
  constructor(
    code: string,
    detail: string,
    readonly challenge?: BearerChallenge,
    opts: ErrorOptions = {},
  ) {
    super(code, detail, opts);
  }
}

/** Valid credentials that may not do this; `challenge` names the scope that would. */
export class Forbidden extends AppError {
  constructor(
    code: string,
    detail: string,
    readonly challenge?: BearerChallenge,
    opts: ErrorOptions = {},
  ) {
    super(code, detail, opts);
  }
}

/** The path exists, but not with this method; `allow` lists the methods it takes (the `Allow` header). */
export class MethodNotAllowed extends AppError {
  constructor(
    code: string,
    detail: string,
    readonly allow: readonly string[],
    opts: ErrorOptions = {},
  ) {
    super(code, detail, opts);
  }
}

/** None of the media types the request's `Accept` names can be answered. */
export class NotAcceptable extends AppError {}

/** The thing does not exist for this caller (another tenant's or workspace's record included). */
export class NotFound extends AppError {}

/** A feature switched off by configuration or a tenant flag: to the caller it is not there. */
export class FeatureDisabled extends AppError {}

/** The request clashes with the current state; `members` are extension members that describe it. */
export class Conflict extends AppError {
  constructor(
    code: string,
    detail: string,
    readonly members?: Record<string, unknown>,
    opts: ErrorOptions = {},
  ) {
    super(code, detail, opts);
  }
}

/** Well-formed, but it cannot be done (a precondition of the domain is not met). */
export class Unprocessable extends AppError {}

/** Too many requests; the caller may try again after `retryAfterSeconds`. */
export class RateLimited extends AppError {
  /** the limit that refused (its policy name, e.g. `chat`), for the metrics; default the code */
  readonly limit: string | undefined;

  constructor(
    code: string,
    detail: string,
    readonly retryAfterSeconds: number,
    opts: ErrorOptions & { limit?: string } = {},
  ) {
    super(code, detail, opts);
    this.limit = opts.limit;
  }
}

/** A service we depend on answered wrongly or not at all. */
export class BadGateway extends AppError {}

/** We cannot answer for now (e.g. an upstream's own rate limit); trying later may work. */
export class ServiceUnavailable extends AppError {
  constructor(
    code: string,
    detail: string,
    readonly retryAfterSeconds?: number,
    opts: ErrorOptions = {},
  ) {
    super(code, detail, opts);
  }
}

/** The 401 of GET /metrics without the right METRICS_TOKEN (both apps' lib/metrics). */
export const metricsTokenRefused = () =>
  new Unauthorized('unauthorized', 'Scraping the metrics needs Authorization: Bearer <METRICS_TOKEN>.', {
    realm: 'metrics',
    error: 'invalid_token',
  });
