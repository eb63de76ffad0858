import { type RequestHandler, Router } from 'express';
import type { Redis } from 'ioredis';
import type { createAuthenticator } from './auth/authenticate.ts';
import { createKeyBudget } from './auth/key-rate-limit.ts';
import { createPortfolioComplianceRouter } from './compliance/portfolio-compliance-router.ts';
import type { PortfolioComplianceService } from './compliance/portfolio-compliance-service.ts';
import { createTenantCopiesRouter } from './compliance/tenant-copies-router.ts';
import type { TenantCopiesService } from './compliance/tenant-copies-service.ts';
import { createDealsRouter } from './deals/deals-router.ts';
import type { DealsService } from './deals/deals-service.ts';
import { createEmailActivityRouter } from './email-activity/email-activity-router.ts';
import type { EmailActivityService } from './email-activity/email-activity-service.ts';
import { createKnowledgeRouter } from './knowledge/knowledge-router.ts';
import type { KnowledgeChangesService } from './knowledge/knowledge-changes-service.ts';
import type { KnowledgeSearchService } from './knowledge/knowledge-search-service.ts';
import { createMcpEndpoint, type McpEndpointDeps } from './mcp/mcp-endpoint.ts';
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
  copies: TenantCopiesService;
  deals: DealsService;
  email: EmailActivityService;
  proposals: ProposalsService;
  knowledge: KnowledgeChangesService;
  knowledgeSearch: KnowledgeSearchService;
  /** the MCP endpoint's own parts and settings; its tools call the services above */
  mcp: Omit<McpEndpointDeps, keyof Omit<BridgeRouterDeps, 'mcp'> | 'charge'>;
  rateLimitPerMin: number;
  /** counters shared through Redis while it is ready; null: in this process's memory */
  redis: Redis | null;
  /** prepended to the Redis keys of the counters */
  redisPrefix: string;
}

// Express answers an OPTIONS request itself (200 and Allow) when it leaves a router having passed a route on its
// path; the bridge has always answered OPTIONS like any other unknown method, 404 after the guard. So such a
// request skips the features' routers and leaves this one, which has no route of its own.
const optionsNotAnswered: RequestHandler = (req, _res, next) => {
  next(req.method === 'OPTIONS' ? 'router' : undefined);
};

// /api/assistant-bridge (BRIDGE_BASE), mounted there by app.ts: every request runs the bridge's guard first — no
// caching, the key and the tenant's flag, the key's budget (key-rate-limit.ts) — then the features' routes, each
// behind its scope. A path under the base that no route serves has passed the same guard, so an unknown path
// needs a key like a known one.
export function createBridgeRouter(deps: BridgeRouterDeps): Router {
  const router = Router();
  const budget = createKeyBudget({
    perMinute: deps.rateLimitPerMin,
    redis: deps.redis,
    redisPrefix: deps.redisPrefix,
  });
  const mcp = createMcpEndpoint({ ...deps, ...deps.mcp, charge: budget.charge });
  // the MCP endpoint's Origin check comes before the key (mcp-origin.ts)
  router.use(mcp.path, mcp.edge);
  router.use(
    (_req, res, next) => {
      res.setHeader('Cache-Control', 'no-store');
      next();
    },
    deps.authenticator.bridge(),
    budget.limit,
    optionsNotAnswered,
  );
  router.use(createPortfolioRouter({ portfolio: deps.portfolio }));
  router.use(createPropertiesRouter({ properties: deps.properties }));
  router.use(createPortfolioComplianceRouter({ compliance: deps.compliance }));
  router.use(createTenantCopiesRouter({ copies: deps.copies }));
  router.use(createDealsRouter({ deals: deps.deals }));
  router.use(createEmailActivityRouter({ email: deps.email }));
  router.use(createProposalsRouter({ proposals: deps.proposals }));
  router.use(createKnowledgeRouter({ knowledge: deps.knowledge, search: deps.knowledgeSearch }));
  router.use(mcp.router);
  // on the MCP path only, after everything that may fail there, the guard included
  router.use(mcp.path, mcp.problems);
  return router;
}
