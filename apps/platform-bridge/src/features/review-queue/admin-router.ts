import { Router } from 'express';
import type { Redis } from 'ioredis';
import type { createAuthenticator } from '../auth/authenticate.ts';
import { perKeyRateLimit } from '../auth/key-rate-limit.ts';
import { createReviewQueueRouter } from './review-queue-router.ts';
import type { ReviewQueueService } from './review-queue-service.ts';

export interface AdminRouterDeps {
  reviewQueue: ReviewQueueService;
  authenticator: ReturnType<typeof createAuthenticator>;
  rateLimitPerMin: number;
  redis: Redis | null;
  redisPrefix: string;
}

// /api/admin (ADMIN_BASE): the review queue's admin API. Authenticate an admin (padm_) key, check the tenant's
// review-queue flag, count against the key's budget (the bridge's per-key limit), then the routes, each behind
// its scope. Answers are never cached: they carry proposals and the admins' decisions.
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
  return router;
}
