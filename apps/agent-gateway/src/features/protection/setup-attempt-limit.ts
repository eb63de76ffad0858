import { createRateLimitStore, rateLimitExceeded } from '@pa/http-kit';
import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';

// Binding a worker and connecting a channel each make the gateway call out (the platform bridge's smoke test,
// Telegram's getMe, Meta's Graph API) with a key the caller typed: a cheap way to make the gateway hammer someone
// else's API or to guess keys. Failed attempts are counted per client IP, per workspace (whatever the addresses
// and devices they come from) and, for a paired device, per device too; a successful one is taken back off the
// count, so setting up many workers is never blocked. Counted in
// Redis when reachable so that every instance shares the budget, in memory otherwise (never failing open).
export const SETUP_FAILURE_WINDOW_MS = 10 * 60_000;

export function createSetupAttemptLimit(opts: {
  /** failed attempts allowed per window, per IP and per device */
  failuresPerWindow: number;
  /** failed attempts allowed per window in one workspace, all its callers together */
  failuresPerWorkspace: number;
  redis: Redis | null;
  prefix: string;
}): RequestHandler[] {
  const limit = (
    identifier: string,
    key: (req: Request) => string,
    skip?: (req: Request) => boolean,
    max = opts.failuresPerWindow,
  ) =>
    rateLimit({
      windowMs: SETUP_FAILURE_WINDOW_MS,
      limit: max,
      skipSuccessfulRequests: true,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      identifier,
      store: createRateLimitStore({ redis: opts.redis, prefix: `${opts.prefix}${identifier}:` }),
      keyGenerator: key,
      ...(skip ? { skip } : {}),
      handler: rateLimitExceeded(
        (seconds) =>
          `Too many failed attempts to bind a worker or connect a channel; try again in ${seconds} s.`,
      ),
    });
  return [
    limit('setup-ip', (req) => ipKeyGenerator(req.ip ?? 'unknown')),
    limit(
      'setup-device',
      (req) => (req.caller?.kind === 'device' ? req.caller.deviceId : ''),
      (req) => req.caller?.kind !== 'device',
    ),
    // the workspace gate runs first on every setup route: workspaceId is set
    limit(
      'setup-workspace',
      (req) => req.workspaceId ?? '',
      (req) => !req.workspaceId,
      opts.failuresPerWorkspace,
    ),
  ];
}
