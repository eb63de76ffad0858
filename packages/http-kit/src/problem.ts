import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import {
  AppError,
  BadGateway,
  type BearerChallenge,
  Conflict,
  FeatureDisabled,
  type FieldError,
  Forbidden,
  MalformedInput,
  MethodNotAllowed,
  NotAcceptable,
  NotFound,
  PayloadTooLarge,
  RateLimited,
  ServiceUnavailable,
  Unauthorized,
  Unprocessable,
  UnsupportedMediaType,
  ValidationFailed,
} from './errors.ts';
import { fromDatabase } from './database-errors.ts';
import { fullPath } from './request-id.ts';

export const PROBLEM_TYPE_BASE = '/problems/';

/** What a response answered with, when it was a problem: read by the apps' metrics once the response is done. */
export interface AnsweredProblem {
  code: string;
  status: number;
  /** for a 429: the limit that refused (RateLimited's `limit`) */
  limit?: string | undefined;
}

// Kept beside the response rather than on it, so that nothing of it can reach a body or a template.
const answered = new WeakMap<object, AnsweredProblem>();

/** The problem `res` was answered with (by sendProblem, hence by every handler here), if any. */
export function answeredProblem(res: object): AnsweredProblem | undefined {
  return answered.get(res);
}

export function sendProblem(
  res: Response,
  requestId: string,
  instance: string,
  p: {
    status: number;
    code: string;
    title: string;
    detail: string;
    errors?: FieldError[];
    members?: Record<string, unknown>;
  },
): void {
  answered.set(res, { code: p.code, status: p.status });
  res
    .status(p.status)
    .type('application/problem+json')
    .json({
      type: `${PROBLEM_TYPE_BASE}${p.code}`,
      title: p.title,
      status: p.status,
      detail: p.detail,
      instance,
      code: p.code,
      request_id: requestId,
      ...(p.errors ? { errors: p.errors } : {}),
      ...p.members,
    });
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendProblem(res, req.id, fullPath(req), {
    status: 404,
    code: 'not-found',
    title: 'Not found',
    detail: `No route for ${req.method} ${fullPath(req)}.`,
  });
};

// The one table from error kinds to HTTP: status and the title used when the error names none. First match wins,
// so a kind that extends another must come before it.
const KINDS: ReadonlyArray<readonly [abstract new (...args: never[]) => AppError, number, string]> = [
  [ValidationFailed, 400, 'Validation failed'],
  [MalformedInput, 400, 'Malformed JSON'],
  [Unauthorized, 401, 'Unauthorized'],
  [Forbidden, 403, 'Forbidden'],
  [NotFound, 404, 'Not found'],
  [FeatureDisabled, 404, 'Not found'],
  [MethodNotAllowed, 405, 'Method not allowed'],
  [NotAcceptable, 406, 'Not acceptable'],
  [Conflict, 409, 'Conflict'],
  [PayloadTooLarge, 413, 'Payload too large'],
  [UnsupportedMediaType, 415, 'Unsupported media type'],
  [Unprocessable, 422, 'Unprocessable content'],
  [RateLimited, 429, 'Too many requests'],
  [BadGateway, 502, 'Bad gateway'],
  [ServiceUnavailable, 503, 'Service unavailable'],
];

const bearer = (c: BearerChallenge) =>
  [
    `Bearer realm="${c.realm}"`,
    ...(c.error ? [`error="${c.error}"`] : []),
    ...(c.scope ? [`scope="${c.scope}"`] : []),
    ...(c.resourceMetadata ? [`resource_metadata="${c.resourceMetadata}"`] : []),
  ].join(', ');

/** What the response says besides status, code, title and detail: headers and extension members. */
function extras(err: AppError): { headers: Record<string, string>; members: Record<string, unknown> } {
  const headers: Record<string, string> = {};
  const members: Record<string, unknown> = {};
  if ((err instanceof Unauthorized || err instanceof Forbidden) && err.challenge)
    headers['WWW-Authenticate'] = bearer(err.challenge);
  if (err instanceof RateLimited || (err instanceof ServiceUnavailable && err.retryAfterSeconds)) {
    headers['Retry-After'] = String(err.retryAfterSeconds);
    // in the body too, so that a page can say "try again in N s" without reading headers
    members.retry_after_seconds = err.retryAfterSeconds;
  }
  if (err instanceof Conflict) Object.assign(members, err.members);
  if (err instanceof MethodNotAllowed) headers.Allow = err.allow.join(', ');
  return { headers, members };
}

// What Express and its body parser throw before a route runs: kinds like any other. Their messages are not
// shown (they may quote the input); each gets a detail of ours.
function fromExpress(err: unknown): AppError | undefined {
  const e = err as { type?: unknown; code?: unknown; status?: unknown } | null;
  switch (e?.type) {
    case 'entity.parse.failed':
      return new MalformedInput('malformed-json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new PayloadTooLarge('payload-too-large', 'The request body is larger than 64 KiB.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaType('unsupported-media-type', 'Send UTF-8 JSON.');
    case 'request.size.invalid':
    case 'request.aborted':
      return new MalformedInput('malformed-json', 'The request body does not match its Content-Length.');
  }
  // router: a path parameter that is not valid percent-encoding (e.g. `%E0%A4%A`)
  if (err instanceof URIError) {
    return new ValidationFailed([], 'The request path is not valid percent-encoded UTF-8.');
  }
  // body-parser wraps the inflater's failure (a body that is not the gzip/deflate/br it claims to be): zlib's codes
  // are Z_*, Brotli's decoder's ERR__ERROR_* (its BROTLI_DECODER_ERROR_* names)
  if (typeof e?.code === 'string' && (e.code.startsWith('Z_') || e.code.startsWith('ERR__ERROR_'))) {
    return new MalformedInput(
      'malformed-json',
      'The request body is not valid data for its Content-Encoding.',
    );
  }
  // any other client error Express's stack reports with a status of its own (http-errors)
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && err instanceof Error) {
    return new MalformedInput('bad-request', 'The request cannot be read.', { title: 'Bad request' });
  }
  return undefined;
}

export interface ProblemHandlerOptions {
  /**
   * Turns an app's own failure types into error kinds (e.g. the gateway's provider failures), so that this package
   * needs to know nothing of them. Returns undefined for anything it does not recognise.
   */
  translate?: (err: unknown) => AppError | undefined;
}

/** An error as the problem it is answered with: status, code, title, detail, field errors, headers, members. */
export interface ProblemOf {
  error: AppError;
  status: number;
  code: string;
  title: string;
  detail: string;
  errors?: FieldError[];
  headers: Record<string, string>;
  members: Record<string, unknown>;
}

/**
 * The problem an error is answered with, by the same table as problemHandler's; undefined for anything unexpected
 * (answered as a bare 500). For answers that are not HTTP responses of their own (an MCP tool's error result).
 */
export function problemOf(err: unknown, opts: ProblemHandlerOptions = {}): ProblemOf | undefined {
  const known =
    err instanceof AppError ? err : (opts.translate?.(err) ?? fromExpress(err) ?? fromDatabase(err));
  const kind = known && KINDS.find(([type]) => known instanceof type);
  if (!known || !kind) return undefined;
  return {
    error: known,
    status: kind[1],
    code: known.code,
    title: known.title ?? kind[2],
    detail: known.message,
    ...(known instanceof ValidationFailed && known.errors.length ? { errors: known.errors } : {}),
    ...extras(known),
  };
}

// The one place errors become responses. Everything unexpected is logged with its stack and answered as a bare 500.
export function problemHandler(logger: Logger, opts: ProblemHandlerOptions = {}): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      logger.error({ err, request_id: req.id }, 'error after response started');
      res.end();
      return;
    }
    const instance = fullPath(req);
    const problem = problemOf(err, opts);
    if (!problem) {
      logger.error({ err, request_id: req.id }, 'unhandled error');
      sendProblem(res, req.id, instance, {
        status: 500,
        code: 'internal-error',
        title: 'Internal server error',
        detail: 'Something went wrong on our side. Quote the request id when reporting it.',
      });
      return;
    }
    // an outage is worth a line in the log (the response says nothing of its cause)
    if (problem.status === 503 && problem.code === 'database-unavailable') {
      logger.error({ err: problem.error.cause, request_id: req.id }, 'database unavailable');
    }
    const { error, headers, ...fields } = problem;
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    sendProblem(res, req.id, instance, fields);
    if (error instanceof RateLimited && error.limit) {
      answered.set(res, { code: fields.code, status: fields.status, limit: error.limit });
    }
  };
}
