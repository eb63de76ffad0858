import { createRateLimitStore, perMinuteLimit, RateLimited } from '@pa/http-kit';
import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { embedCallerOf } from './embed-caller.ts';

// An embed key's budgets (docs/embedding.md), each its own 429 problem with Retry-After: messages per client IP (and
// key) per minute, per visitor per minute, and per workspace per UTC day, the limits read from the key. Counted in
// Redis when it is reachable, so that every instance shares them, and in this process's memory otherwise (the
// FailoverStore of the chat's rate limit: never failing open). Checked in that order: the IP's budget first, since
// an anonymous visitor's id is whatever the caller sends, so a script rotating ids would otherwise make a new
// per-visitor counter with every call; a refused call counts against no later budget. The day is counted once per
// workspace, and held to the smallest daily budget among the workspace's live keys (ActiveEmbedKey.
// workspaceDayLimit): one limit for one counter, whichever key a message comes through.

const DAY_MS = 86_400_000;

/** The UTC day `at` falls in, and the seconds from `at` to its end. */
export function utcDay(at: Date): { day: string; secondsLeft: number } {
  const start = Math.floor(at.getTime() / DAY_MS) * DAY_MS;
  return {
    day: new Date(start).toISOString().slice(0, 10),
    secondsLeft: Math.max(1, Math.ceil((start + DAY_MS - at.getTime()) / 1000)),
  };
}

type Info = { resetTime?: Date | undefined };
const secondsUntil = (info: Info | undefined, fallbackMs: number) =>
  Math.max(1, Math.ceil(((info?.resetTime?.getTime() ?? Date.now() + fallbackMs) - Date.now()) / 1000));

export function createEmbedBudgets(opts: { redis: Redis | null; prefix: string }): RequestHandler[] {
  const limiter = (
    name: string,
    windowMs: number,
    limit: (req: Request) => number,
    key: (req: Request) => string,
    refuse: (req: Request, info: Info | undefined) => RateLimited,
  ) =>
    rateLimit({
      windowMs,
      limit,
      standardHeaders: false,
      legacyHeaders: false,
      identifier: name,
      requestPropertyName: name,
      store: createRateLimitStore({ redis: opts.redis, prefix: `${opts.prefix}${name}:` }),
      keyGenerator: key,
      handler: (req, _res, next) => next(refuse(req, (req as unknown as Record<string, Info>)[name])),
    });

  return [
    limiter(
      'embedIp',
      60_000,
      (req) => embedCallerOf(req).key.budgets.ipPerMinute,
      (req) => `${embedCallerOf(req).key.id}:${ipKeyGenerator(req.ip ?? 'unknown')}`,
      (req, info) => {
        const seconds = secondsUntil(info, 60_000);
        return new RateLimited(
          'embed-ip-budget',
          `This chat takes ${embedCallerOf(req).key.budgets.ipPerMinute} messages a minute from one network address; try again in ${seconds} s.`,
          seconds,
        );
      },
    ),
    limiter(
      'embedVisitor',
      60_000,
      (req) => embedCallerOf(req).key.budgets.visitorPerMinute,
      (req) => {
        const { key, visitor } = embedCallerOf(req);
        return `${key.id}:${visitor.owner}`;
      },
      (req, info) => {
        const seconds = secondsUntil(info, 60_000);
        return new RateLimited(
          'embed-visitor-budget',
          `You can send ${embedCallerOf(req).key.budgets.visitorPerMinute} messages a minute here; try again in ${seconds} s.`,
          seconds,
        );
      },
    ),
    // keyed by the day itself: a new UTC day is a new counter, whenever the first message of the old one came
    limiter(
      'embedWorkspace',
      DAY_MS,
      (req) => embedCallerOf(req).key.workspaceDayLimit,
      (req) => `${embedCallerOf(req).key.workspaceId}:${utcDay(new Date()).day}`,
      (req) => {
        const { secondsLeft } = utcDay(new Date());
        return new RateLimited(
          'embed-workspace-budget',
          `This site’s assistant has answered its ${embedCallerOf(req).key.workspaceDayLimit} messages for today; it answers again after midnight UTC.`,
          secondsLeft,
        );
      },
    ),
  ];
}

/**
 * The embed API's first gate (EMBED_RATE_LIMIT_PER_MIN): every /api/embed call per client IP, preflights included,
 * before anything looks a key up. The key's own budgets count messages, and only once the key is known; this one
 * keeps a flood of made-up keys, session reads or preflights from costing a database lookup each.
 */
export function createEmbedIpLimit(opts: {
  perMinute: number;
  redis: Redis | null;
  prefix: string;
}): RequestHandler {
  return perMinuteLimit({
    perMinute: opts.perMinute,
    identifier: 'embed',
    key: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    redis: opts.redis,
    prefix: opts.prefix,
    detail: (seconds) =>
      `Rate limit of ${opts.perMinute} embedded-chat requests per minute from one network address exceeded; try again in ${seconds} s.`,
  });
}
