import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { DealsService } from './deals-service.ts';

// The bridge's routes of this feature, each behind its scope; mounted at BRIDGE_BASE behind the bridge's guard
// (bridge-router.ts).
export function createDealsRouter(deps: { deals: DealsService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.listDeals, at, async ({ query }, req, res) => {
    res.json(await deps.deals.listDeals(req.auth!.tenantId, query));
  });
  return router;
}
