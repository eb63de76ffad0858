import { bridgeRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import type { RequestHandler, Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { DealsService } from './deals-service.ts';

// The bridge's routes of this feature, each behind the bridge's guard (bridge-routes.ts) and its scope.
export function registerDealsRoutes(
  router: Router,
  deps: { deals: DealsService; guard: RequestHandler[] },
): void {
  const at = { before: [...deps.guard, requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.listDeals, at, async ({ query }, req, res) => {
    res.json(await deps.deals.listDeals(req.auth!.tenantId, query));
  });
}
