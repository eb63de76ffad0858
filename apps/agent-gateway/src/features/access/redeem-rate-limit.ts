import { createRateLimitStore, rateLimitExceeded } from '@pa/http-kit';
import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';

// Guessing pairing codes: 5 failed redeems per client IP in 10 minutes, then 429 until the window ends. Only
// failures count (a successful redeem is taken back off the count). Counted in Redis when reachable so that
// every instance shares the budget, in memory otherwise (the project's FailoverStore: it never fails open).
export const REDEEM_FAILURES_PER_WINDOW = 5;
export const REDEEM_WINDOW_MS = 10 * 60_000;

export function createRedeemRateLimit(opts: { redis: Redis | null; prefix: string }): RequestHandler {
  return rateLimit({
    windowMs: REDEEM_WINDOW_MS,
    limit: REDEEM_FAILURES_PER_WINDOW,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'pairing-redeem',
    store: createRateLimitStore({ redis: opts.redis, prefix: opts.prefix }),
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    handler: rateLimitExceeded(
      (seconds) => `Too many failed pairing attempts from this address; try again in ${seconds} s.`,
    ),
  });
}
