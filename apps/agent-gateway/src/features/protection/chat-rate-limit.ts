import { AppError } from '@pa/http-kit';
import type { RequestHandler } from 'express';
import { ipKeyGenerator, type RateLimitInfo, rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';

// One budget per client IP across every chat route. In Redis when it is reachable, so that several gateway
// instances share it; in memory otherwise. The client IP comes from `trust proxy` (TRUST_PROXY hops), so a
// spoofed X-Forwarded-For cannot open a fresh bucket.
export function createChatRateLimit(opts: {
  perMinute: number;
  redis: Redis | null;
  prefix: string;
}): RequestHandler {
  const store = opts.redis
    ? new RedisStore({
        sendCommand: (command: string, ...args: string[]) =>
          opts.redis!.call(command, ...args) as Promise<RedisReply>,
        prefix: opts.prefix,
      })
    : undefined;
  return rateLimit({
    windowMs: 60_000,
    limit: opts.perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'chat',
    // If Redis goes away mid-run, chatting goes on unlimited rather than failing.
    passOnStoreError: true,
    ...(store ? { store } : {}),
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    handler: (req, _res, next) => {
      const info = (req as typeof req & { rateLimit?: RateLimitInfo }).rateLimit;
      const seconds = Math.max(
        1,
        Math.ceil(((info?.resetTime?.getTime() ?? Date.now() + 60_000) - Date.now()) / 1000),
      );
      next(
        new AppError(
          429,
          'rate-limited',
          'Too many requests',
          `Rate limit of ${opts.perMinute} chat requests per minute exceeded; try again in ${seconds} s.`,
          { headers: { 'Retry-After': String(seconds) }, members: { retry_after_seconds: seconds } },
        ),
      );
    },
  });
}

/** At most `max` event streams open at once per client IP (per instance). */
export function createStreamLimit(max: number): RequestHandler {
  const open = new Map<string, number>();
  return (req, res, next) => {
    const ip = req.ip ?? 'unknown';
    const n = open.get(ip) ?? 0;
    if (n >= max) {
      throw new AppError(
        429,
        'too-many-streams',
        'Too many open streams',
        `At most ${max} chat streams may be open at once.`,
        {
          headers: { 'Retry-After': '5' },
        },
      );
    }
    open.set(ip, n + 1);
    res.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left > 0) open.set(ip, left);
      else open.delete(ip);
    });
    next();
  };
}
