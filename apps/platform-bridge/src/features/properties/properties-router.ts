import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PropertiesService } from './properties-service.ts';

// Mounted behind the bridge router's authentication, flag check and rate limit. Answers carry Express's weak ETag;
// If-None-Match gives 304 whatever the request's cache directives (evaluateConditionalsAtOrigin, app.ts).
export function createPropertiesRouter(deps: { properties: PropertiesService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.getProperty, at, async ({ params }, req, res) => {
    res.json(await deps.properties.getProperty(req.auth!.tenantId, params.id));
  });
  registerRoute(router, bridgeRoutes.getPropertyCompliance, at, async ({ params }, req, res) => {
    res.json(await deps.properties.getCompliance(req.auth!.tenantId, params.id));
  });
  return router;
}
