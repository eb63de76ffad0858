import { perMinuteLimit } from '@pa/http-kit';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';

export interface KeyRateLimitOptions {
  perMinute: number;
  /** counters shared through Redis while it is ready; null: in this process's memory */
  redis: Redis | null;
  /** prepended to the Redis keys of the counters */
  redisPrefix: string;
}

// One budget per authenticated key (remote or admin; key ids are unique across both kinds), shared by every
// instance on one Redis; without Redis, or while it is unreachable, each instance enforces it in memory (fail
// closed to a local budget, never open). Runs after authentication, which sets req.auth.
export function perKeyRateLimit(opts: KeyRateLimitOptions): RequestHandler {
  return perMinuteLimit({
    perMinute: opts.perMinute,
    identifier: 'per-key',
    key: (req) => `key:${req.auth!.keyId}`,
    redis: opts.redis,
    prefix: `${opts.redisPrefix}rl:`,
    detail: (seconds) =>
      `Rate limit of ${opts.perMinute} requests per minute for this key exceeded; try again in ${seconds} s.`,
  });
}
