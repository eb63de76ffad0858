import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PortfolioService } from './portfolio-service.ts';

// Mounted behind the bridge router's authentication, flag check and rate limit.
export function createPortfolioRouter(deps: { portfolio: PortfolioService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.getPortfolio, at, async ({ query }, req, res) => {
    const { tenantId: id, tenantSlug: slug, tenantName: name } = req.auth!;
    res.json(await deps.portfolio.getPortfolio({ id, slug, name }, query));
  });
  return router;
}
