import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute, sendJsonWithoutEtag } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PortfolioService } from './portfolio-service.ts';

// The bridge's routes of this feature, each behind its scope; mounted at BRIDGE_BASE behind the bridge's guard
// (bridge-router.ts).
export function createPortfolioRouter(deps: { portfolio: PortfolioService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.getPortfolio, at, async ({ query }, req, res) => {
    const { tenantId: id, tenantSlug: slug, tenantName: name } = req.auth!;
    sendJsonWithoutEtag(res, await deps.portfolio.getPortfolio({ id, slug, name }, query));
  });
  return router;
}
