import { createRateLimitStore, perMinuteLimit, RateLimited } from '@pa/http-kit';
import type { Request, RequestHandler } from 'express';
import type { Redis } from 'ioredis';

export interface KeyRateLimitOptions {
  perMinute: number;
  /** counters shared through Redis while it is ready; null: in this process's memory */
  redis: Redis | null;
  /** prepended to the Redis keys of the counters */
  redisPrefix: string;
}

export interface KeyBudget {
  /** the guard's middleware: one hit per HTTP request */
  limit: RequestHandler;
  /**
   * Charges `hits` more to the request's key (an MCP batch's requests after its first); throws the same 429
   * `rate-limited` as the guard once the key's budget is spent.
   */
  charge(req: Request, hits: number): Promise<void>;
}

const keyOf = (req: Request) => `key:${req.auth!.keyId}`;

// One budget per authenticated key (remote or admin; key ids are unique across both kinds), shared by every
// instance on one Redis; without Redis, or while it is unreachable, each instance enforces it in memory (fail
// closed to a local budget, never open). Runs after authentication, which sets req.auth.
export function createKeyBudget(opts: KeyRateLimitOptions): KeyBudget {
  const detail = (seconds: number) =>
    `Rate limit of ${opts.perMinute} requests per minute for this key exceeded; try again in ${seconds} s.`;
  // the guard and `charge` count in one store, so that a batch's further requests spend the same budget
  const store = createRateLimitStore({ redis: opts.redis, prefix: `${opts.redisPrefix}rl:` });
  const limit = perMinuteLimit({
    perMinute: opts.perMinute,
    identifier: 'per-key',
    key: keyOf,
    redis: opts.redis,
    prefix: `${opts.redisPrefix}rl:`,
    detail,
    store,
  });
  return {
    limit,
    async charge(req, hits) {
      let info;
      // counted one by one, as the guard counts: each increment is atomic in Redis
      for (let i = 0; i < hits; i++) info = await store.increment(keyOf(req));
      if (info && info.totalHits > opts.perMinute) {
        const reset = info.resetTime?.getTime() ?? Date.now() + 60_000;
        const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
        throw new RateLimited('rate-limited', detail(seconds), seconds, { limit: 'per-key' });
      }
    },
  };
}

export function perKeyRateLimit(opts: KeyRateLimitOptions): RequestHandler {
  return createKeyBudget(opts).limit;
}
