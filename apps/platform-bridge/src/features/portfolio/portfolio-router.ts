import { bridgeRoutes } from '@pa/contracts';
import { registerRoute, sendJsonWithoutEtag } from '@pa/http-kit';
import type { RequestHandler, Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PortfolioService } from './portfolio-service.ts';

// The bridge's routes of this feature, each behind the bridge's guard (bridge-routes.ts) and its scope.
export function registerPortfolioRoutes(
  router: Router,
  deps: { portfolio: PortfolioService; guard: RequestHandler[] },
): void {
  const at = { before: [...deps.guard, requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.getPortfolio, at, async ({ query }, req, res) => {
    const { tenantId: id, tenantSlug: slug, tenantName: name } = req.auth!;
    sendJsonWithoutEtag(res, await deps.portfolio.getPortfolio({ id, slug, name }, query));
  });
}
