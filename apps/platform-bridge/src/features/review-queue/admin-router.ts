import { Router } from 'express';
import type { Redis } from 'ioredis';
import type { Clock } from '../../lib/clock.ts';
import type { Db } from '../../lib/db.ts';
import type { createAuthenticator } from '../auth/authenticate.ts';
import { perKeyRateLimit } from '../auth/key-rate-limit.ts';
import type { ComplianceRollup } from '../compliance/compliance-rollup.ts';
import { createRecordWriter } from './record-writer.ts';
import { createReviewQueueRepository } from './review-queue-repository.ts';
import { createReviewQueueRouter } from './review-queue-router.ts';
import { createReviewQueueService } from './review-queue-service.ts';

export interface AdminRouterDeps {
  db: Db;
  clock: Clock;
  /** the app's own, so that an approved compliance update refreshes the rollups it serves */
  rollup: ComplianceRollup;
  authenticator: ReturnType<typeof createAuthenticator>;
  rateLimitPerMin: number;
  redis: Redis | null;
  redisPrefix: string;
}

// /api/admin (ADMIN_BASE): the review queue's admin API. Authenticate an admin (padm_) key, check the tenant's
// review-queue flag, count against the key's budget (the bridge's per-key limit), then the routes, each behind
// its scope. Answers are never cached: they carry proposals and the admins' decisions.
export function createAdminRouter(deps: AdminRouterDeps): Router {
  const reviewQueue = createReviewQueueService({
    queue: createReviewQueueRepository(deps.db),
    records: createRecordWriter({ rollup: deps.rollup }),
    clock: deps.clock,
  });

  const router = Router();
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(deps.authenticator.admin());
  router.use(
    perKeyRateLimit({ perMinute: deps.rateLimitPerMin, redis: deps.redis, redisPrefix: deps.redisPrefix }),
  );
  router.use(createReviewQueueRouter({ reviewQueue }));
  return router;
}
