import type { Request, RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RateLimited } from './errors.ts';
import { createRateLimitStore } from './rate-limit-store.ts';

/**
 * express-rate-limit's `handler` for both apps: a 429 `rate-limited` problem with `Retry-After` set to the seconds
 * left in the caller's window. `detail` words the limit for the caller (it gets those seconds).
 */
export function rateLimitExceeded(
  detail: (retryAfterSeconds: number) => string,
): (...args: [...Parameters<RequestHandler>, options?: { identifier?: unknown }]) => void {
  return (req, _res, next, options) => {
    // express-rate-limit leaves its verdict on the request
    const info = (req as typeof req & { rateLimit?: { resetTime?: Date | undefined } }).rateLimit;
    const reset = info?.resetTime?.getTime() ?? Date.now() + 60_000;
    const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
    // the refusing limiter's policy name (its `identifier`, passed by express-rate-limit), for the metrics
    const limit = typeof options?.identifier === 'string' ? options.identifier : undefined;
    next(new RateLimited('rate-limited', detail(seconds), seconds, { limit }));
  };
}

/**
 * A per-minute budget as both apps keep them: IETF draft-8 `RateLimit` headers, counters in Redis while it is
 * ready and in this process's memory otherwise (FailoverStore: fail closed to a local budget, never open), and
 * the 429 of rateLimitExceeded.
 */
export function perMinuteLimit(opts: {
  perMinute: number;
  /** the policy's name in the `RateLimit-Policy` header */
  identifier: string;
  /** whose budget a request counts against */
  key: (req: Request) => string;
  redis: Redis | null;
  /** prepended to the Redis keys of the counters */
  prefix: string;
  /** words the limit for the caller, who gets the seconds left */
  detail: (retryAfterSeconds: number) => string;
  /** the limiter's own store, for a caller that charges further hits to it (default: a new createRateLimitStore) */
  store?: Store;
}): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: opts.perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: opts.identifier,
    store: opts.store ?? createRateLimitStore({ redis: opts.redis, prefix: opts.prefix }),
    keyGenerator: opts.key,
    handler: rateLimitExceeded(opts.detail),
  });
}
