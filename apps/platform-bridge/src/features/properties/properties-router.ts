import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute, sendJsonWithETag } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PropertiesService } from './properties-service.ts';

// Mounted behind the bridge router's authentication, flag check and rate limit. A property carries a weak ETag
// and answers If-None-Match with 304 whatever the request's cache directives (fetch sends `no-cache`).
export function createPropertiesRouter(deps: { properties: PropertiesService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.getProperty, at, async ({ params }, req, res) => {
    sendJsonWithETag(req, res, await deps.properties.getProperty(req.auth!.tenantId, params.id));
  });
  registerRoute(router, bridgeRoutes.getPropertyCompliance, at, async ({ params }, req, res) => {
    res.json(await deps.properties.getCompliance(req.auth!.tenantId, params.id));
  });
  return router;
}
