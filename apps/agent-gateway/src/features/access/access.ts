import type { RequestHandler, Router } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { WorkspacesRepository } from '../workspace/workspaces-repository.ts';
import { accessMiddleware } from './access-middleware.ts';
import type { AccessRepository } from './access-repository.ts';
import { createAccessRouter } from './access-router.ts';
import { createAuthenticator } from './authenticate.ts';
import { hostGuard } from './host-guard.ts';
import { createOpenResponses, type OpenResponses } from './open-responses.ts';
import { createPairingService, type PairingService } from './pairing-service.ts';
import { createRedeemRateLimit } from './redeem-rate-limit.ts';
import { createRevocationBus } from './revocation-bus.ts';

// Gateway access (docs/access.md), built once per app: the Host guard, the access middleware, the pairing and
// devices routes, and what makes a revocation hold at once everywhere: the registry that closes a revoked
// device's open responses, the Redis channel that tells the other instances (and lets them cache valid tokens
// for a few seconds), and the poll that catches revocations while Redis is away.

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
  /** devices and pairing codes (the token lookup of every request runs on the hot statements' runner) */
  access: AccessRepository;
  redis: Redis | null;
  logger: Logger;
  workspaces: WorkspacesRepository;
}): GatewayAccess {
  const { config, logger } = deps;
  const { access } = deps;
  const openResponses = createOpenResponses({
    revokedAmong: access.revokedAmong,
    pollMs: REVOCATION_POLL_MS,
    logger,
  });
  const authenticator = createAuthenticator({
    access,
    adminToken: config.GATEWAY_ADMIN_TOKEN,
    onTouchError: (err) => logger.warn({ err }, 'could not record a device’s last use'),
    cacheable: () => bus.live(),
  });
  const revoked = (deviceId: string) => {
    authenticator.forgetDevice(deviceId);
    openResponses.closeDevice(deviceId);
  };
  // No subscription is needed while nothing asks for tokens.
  const bus = createRevocationBus({
    redis: config.GATEWAY_AUTH === 'token' ? deps.redis : null,
    prefix: config.REDIS_PREFIX,
    logger,
    onRevoked: revoked,
    onResync: () => authenticator.forgetAll(),
  });
  const pairing = createPairingService({
    access,
    workspaces: deps.workspaces,
    onRevoked: async (id) => {
      revoked(id);
      await bus.publish(id);
    },
  });
  const credentials = authenticator.credentials;
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
