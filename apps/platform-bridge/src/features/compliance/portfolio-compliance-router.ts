import { bridgeRoutes } from '@pa/contracts';
import { registerRoute, sendJsonWithoutEtag } from '@pa/http-kit';
import type { RequestHandler, Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PortfolioComplianceService } from './portfolio-compliance-service.ts';

// The bridge's routes of this feature, each behind the bridge's guard (bridge-routes.ts) and its scope.
export function registerPortfolioComplianceRoutes(
  router: Router,
  deps: { compliance: PortfolioComplianceService; guard: RequestHandler[] },
): void {
  const at = { before: [...deps.guard, requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.listPortfolioCompliance, at, async ({ query }, req, res) => {
    sendJsonWithoutEtag(res, await deps.compliance.list(req.auth!.tenantId, query));
  });
}
