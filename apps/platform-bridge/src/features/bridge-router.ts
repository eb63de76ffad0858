import { Router } from 'express';
import type { Redis } from 'ioredis';
import type { createAuthenticator } from './auth/authenticate.ts';
import { perKeyRateLimit } from './auth/key-rate-limit.ts';
import { createPortfolioComplianceRouter } from './compliance/portfolio-compliance-router.ts';
import type { PortfolioComplianceService } from './compliance/portfolio-compliance-service.ts';
import { createDealsRouter } from './deals/deals-router.ts';
import type { DealsService } from './deals/deals-service.ts';
import { createEmailActivityRouter } from './email-activity/email-activity-router.ts';
import type { EmailActivityService } from './email-activity/email-activity-service.ts';
import { createPortfolioRouter } from './portfolio/portfolio-router.ts';
import type { PortfolioService } from './portfolio/portfolio-service.ts';
import { createPropertiesRouter } from './properties/properties-router.ts';
import type { PropertiesService } from './properties/properties-service.ts';
import { createProposalsRouter } from './proposals/proposals-router.ts';
import type { ProposalsService } from './proposals/proposals-service.ts';

export interface BridgeRouterDeps {
  authenticator: ReturnType<typeof createAuthenticator>;
  portfolio: PortfolioService;
  properties: PropertiesService;
  compliance: PortfolioComplianceService;
  deals: DealsService;
  email: EmailActivityService;
  proposals: ProposalsService;
  rateLimitPerMin: number;
  /** counters shared through Redis while it is ready; null: in this process's memory */
  redis: Redis | null;
  /** prepended to the Redis keys of the counters */
  redisPrefix: string;
}

// /api/assistant-bridge (BRIDGE_BASE): authenticate, check the tenant's flag, count against the key's budget,
// then hand over to the feature routers (the budget: key-rate-limit.ts).
export function createBridgeRouter(deps: BridgeRouterDeps): Router {
  const { authenticator, portfolio, properties, compliance, deals, email, proposals } = deps;
  const router = Router();

  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(authenticator.bridge());
  router.use(
    perKeyRateLimit({ perMinute: deps.rateLimitPerMin, redis: deps.redis, redisPrefix: deps.redisPrefix }),
  );

  // The reads register their own paths from the bridge route table, each behind its scope.
  router.use(createPortfolioRouter({ portfolio }));
  router.use(createPropertiesRouter({ properties }));
  router.use(createPortfolioComplianceRouter({ compliance }));
  router.use(createDealsRouter({ deals }));
  router.use(createEmailActivityRouter({ email }));
  router.use(createProposalsRouter({ proposals }));
  return router;
}
