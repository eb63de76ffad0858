import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute, sendJsonWithoutEtag } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { TenantCopiesService } from './tenant-copies-service.ts';

// GET /compliance/tenant-copies behind bridge:read; mounted at BRIDGE_BASE behind the bridge's guard (key, flag,
// rate limit: bridge-router.ts), like the other reads.
export function createTenantCopiesRouter(deps: { copies: TenantCopiesService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.listTenantCopies, at, async ({ query }, req, res) => {
    sendJsonWithoutEtag(res, await deps.copies.list(req.auth!.tenantId, query));
  });
  return router;
}
