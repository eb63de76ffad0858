import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute, sendJsonWithoutEtag } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PropertiesService } from './properties-service.ts';

// The bridge's routes of this feature, each behind its scope; mounted at BRIDGE_BASE behind the bridge's guard
// (bridge-router.ts). The property carries Express's weak ETag, and If-None-Match gives 304 whatever the request's
// cache directives (evaluateConditionalsAtOrigin, app.ts); the compliance read, stamped with its moment (as_of),
// carries none.
export function createPropertiesRouter(deps: { properties: PropertiesService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.getProperty, at, async ({ params }, req, res) => {
    res.json(await deps.properties.getProperty(req.auth!.tenantId, params.id));
  });
  registerRoute(router, bridgeRoutes.getPropertyCompliance, at, async ({ params }, req, res) => {
    sendJsonWithoutEtag(res, await deps.properties.getCompliance(req.auth!.tenantId, params.id));
  });
  return router;
}
