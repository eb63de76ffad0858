import type { RequestHandler } from 'express';
import { RateLimited } from './errors.ts';

/**
 * express-rate-limit's `handler` for both apps: a 429 `rate-limited` problem with `Retry-After` set to the seconds
 * left in the caller's window. `detail` words the limit for the caller (it gets those seconds).
 */
export function rateLimitExceeded(detail: (retryAfterSeconds: number) => string): RequestHandler {
  return (req, _res, next) => {
    // express-rate-limit leaves its verdict on the request; read structurally so that this package need not depend on it
    const info = (req as typeof req & { rateLimit?: { resetTime?: Date | undefined } }).rateLimit;
    const reset = info?.resetTime?.getTime() ?? Date.now() + 60_000;
    const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
    next(new RateLimited('rate-limited', detail(seconds), seconds));
  };
}
