import type { RequestHandler, Router } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Db } from '../../lib/db.ts';
import type { WorkspacesRepository } from '../workers/workspaces-repository.ts';
import { accessMiddleware } from './access-middleware.ts';
import { createAccessRepository } from './access-repository.ts';
import { createAccessRouter } from './access-router.ts';
import { createAuthenticator } from './authenticate.ts';
import { hostGuard } from './host-guard.ts';
import { createOpenResponses, type OpenResponses } from './open-responses.ts';
import { createPairingService, type PairingService } from './pairing-service.ts';
import { createRedeemRateLimit } from './redeem-rate-limit.ts';

// Gateway access (SPEC §3.11), built once per app: the Host guard, the access middleware, the pairing and
// devices routes, and the registry that closes a revoked device's open responses.

// How often an instance checks whether a device with open responses here was revoked on another instance.
const REVOCATION_POLL_MS = 1000;

export interface GatewayAccess {
  hostGuard: RequestHandler;
  middleware: RequestHandler;
  router: Router;
  pairing: PairingService;
  openResponses: OpenResponses;
}

export function createGatewayAccess(deps: {
  config: Config;
  db: Db;
  redis: Redis | null;
  logger: Logger;
  workspaces: WorkspacesRepository;
}): GatewayAccess {
  const { config, logger } = deps;
  const access = createAccessRepository(deps.db);
  const openResponses = createOpenResponses({
    revokedAmong: access.revokedAmong,
    pollMs: REVOCATION_POLL_MS,
    logger,
  });
  const pairing = createPairingService({
    db: deps.db,
    access,
    workspaces: deps.workspaces,
    onRevoked: (id) => openResponses.closeDevice(id),
  });
  const credentials = createAuthenticator({
    access,
    adminToken: config.GATEWAY_ADMIN_TOKEN,
    onTouchError: (err) => logger.warn({ err }, 'could not record a device’s last use'),
  });
  return {
    hostGuard: hostGuard(config.ALLOWED_HOSTS),
    middleware: accessMiddleware({
      mode: config.GATEWAY_AUTH,
      corsOrigins: config.CORS_ORIGIN,
      credentials,
      openResponses,
    }),
    router: createAccessRouter({
      pairing,
      redeemLimit: createRedeemRateLimit({
        redis: deps.redis,
        prefix: `${config.REDIS_PREFIX}rl:pairing:`,
      }),
    }),
    pairing,
    openResponses,
  };
}
