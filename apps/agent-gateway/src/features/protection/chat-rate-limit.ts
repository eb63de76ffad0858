import { perMinuteLimit, RateLimited } from '@pa/http-kit';
import { traceMiddleware } from '@pa/telemetry';
import type { RequestHandler } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import type { Redis } from 'ioredis';

// One budget per client IP across every chat route. In Redis when it is reachable, so that several gateway
// instances share it; in this process's memory while it is not (unreachable at start, or lost at run time: the
// limit fails closed to a local budget, and goes back to Redis when it returns). The client IP comes from
// `trust proxy` (TRUST_PROXY hops), so a spoofed X-Forwarded-For cannot open a fresh bucket.
export function createChatRateLimit(opts: {
  perMinute: number;
  redis: Redis | null;
  prefix: string;
}): RequestHandler {
  // a span of its own when tracing is on: the first phase of a chat turn (its Redis call inside)
  return traceMiddleware(
    'chat.rate_limit',
    perMinuteLimit({
      perMinute: opts.perMinute,
      identifier: 'chat',
      key: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
      redis: opts.redis,
      prefix: opts.prefix,
      detail: (seconds) =>
        `Rate limit of ${opts.perMinute} chat requests per minute exceeded; try again in ${seconds} s.`,
    }),
  );
}

/** At most `max` event streams open at once per client IP (per instance). */
export function createStreamLimit(max: number): RequestHandler {
  const open = new Map<string, number>();
  return (req, res, next) => {
    const ip = req.ip ?? 'unknown';
    const n = open.get(ip) ?? 0;
    if (n >= max) {
      // a stream usually ends within seconds; 5 s is a fair first wait
      throw new RateLimited('too-many-streams', `At most ${max} chat streams may be open at once.`, 5, {
        title: 'Too many open streams',
      });
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
