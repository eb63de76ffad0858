import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute, sendJsonWithoutEtag } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PortfolioComplianceService } from './portfolio-compliance-service.ts';

// The bridge's routes of this feature, each behind its scope; mounted at BRIDGE_BASE behind the bridge's guard
// (bridge-router.ts).
export function createPortfolioComplianceRouter(deps: { compliance: PortfolioComplianceService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.listPortfolioCompliance, at, async ({ query }, req, res) => {
    sendJsonWithoutEtag(res, await deps.compliance.list(req.auth!.tenantId, query));
  });
  return router;
}
