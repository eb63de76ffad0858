import { BRIDGE_BASE } from '@pa/contracts';
import type { RequestHandler, Router } from 'express';
import type { Redis } from 'ioredis';
import type { createAuthenticator } from './auth/authenticate.ts';
import { perKeyRateLimit } from './auth/key-rate-limit.ts';
import { registerPortfolioComplianceRoutes } from './compliance/portfolio-compliance-router.ts';
import type { PortfolioComplianceService } from './compliance/portfolio-compliance-service.ts';
import { registerDealsRoutes } from './deals/deals-router.ts';
import type { DealsService } from './deals/deals-service.ts';
import { registerEmailActivityRoutes } from './email-activity/email-activity-router.ts';
import type { EmailActivityService } from './email-activity/email-activity-service.ts';
import { registerPortfolioRoutes } from './portfolio/portfolio-router.ts';
import type { PortfolioService } from './portfolio/portfolio-service.ts';
import { registerPropertiesRoutes } from './properties/properties-router.ts';
import type { PropertiesService } from './properties/properties-service.ts';
import { registerProposalsRoutes } from './proposals/proposals-router.ts';
import type { ProposalsService } from './proposals/proposals-service.ts';

export interface BridgeRoutesDeps {
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

// /api/assistant-bridge (BRIDGE_BASE): every route runs the bridge's guard first — no caching, the key and the tenant's
// flag, the key's budget (key-rate-limit.ts) — then its scope and its handler. The features register their routes on
// the app with the guard in front of each (as Express runs a route's own handlers, without a router of its own to
// walk into and out of on every request); the same guard then answers any other path under the base, so an unknown
// path needs a key like a known one.
export function registerBridgeRoutes(app: Router, deps: BridgeRoutesDeps): void {
  const { authenticator, portfolio, properties, compliance, deals, email, proposals } = deps;
  const noStore: RequestHandler = (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
  const guard = [
    noStore,
    authenticator.bridge(),
    perKeyRateLimit({ perMinute: deps.rateLimitPerMin, redis: deps.redis, redisPrefix: deps.redisPrefix }),
  ];

  registerPortfolioRoutes(app, { portfolio, guard });
  registerPropertiesRoutes(app, { properties, guard });
  registerPortfolioComplianceRoutes(app, { compliance, guard });
  registerDealsRoutes(app, { deals, guard });
  registerEmailActivityRoutes(app, { email, guard });
  registerProposalsRoutes(app, { proposals, guard });
  app.use(BRIDGE_BASE, ...guard);
}
