import { Router } from 'express';
import type { Redis } from 'ioredis';
import type { createAuthenticator } from './auth/authenticate.ts';
import { perKeyRateLimit } from './auth/key-rate-limit.ts';
import { createRemoteAccessRouter } from './remote-access/remote-access-router.ts';
import type { RemoteAccessService } from './remote-access/remote-access-service.ts';
import { createReviewQueueRouter } from './review-queue/review-queue-router.ts';
import type { ReviewQueueService } from './review-queue/review-queue-service.ts';

export interface AdminRouterDeps {
  reviewQueue: ReviewQueueService;
  remoteAccess: RemoteAccessService;
  authenticator: ReturnType<typeof createAuthenticator>;
  rateLimitPerMin: number;
  redis: Redis | null;
  redisPrefix: string;
}

// /api/admin (ADMIN_BASE): the admin API of the review queue and of the remote-access settings. Authenticate an
// admin (padm_) key, count against the key's budget (the bridge's per-key limit), then the routes, each behind its
// scope (and the review queue's behind its flag). Answers are never cached: they carry proposals, keys and the
// admins' decisions.
export function createAdminRouter(deps: AdminRouterDeps): Router {
  const router = Router();
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(deps.authenticator.admin());
  router.use(
    perKeyRateLimit({ perMinute: deps.rateLimitPerMin, redis: deps.redis, redisPrefix: deps.redisPrefix }),
  );
  router.use(createReviewQueueRouter({ reviewQueue: deps.reviewQueue }));
  router.use(createRemoteAccessRouter({ remoteAccess: deps.remoteAccess }));
  return router;
}
