import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PortfolioComplianceService } from './portfolio-compliance-service.ts';

// Mounted behind the bridge router's authentication, flag check and rate limit.
export function createPortfolioComplianceRouter(deps: { compliance: PortfolioComplianceService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.listPortfolioCompliance, at, async ({ query }, req, res) => {
    res.json(await deps.compliance.list(req.auth!.tenantId, query));
  });
  return router;
}
