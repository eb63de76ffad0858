import { bridgeRoutes } from '@pa/contracts';
import { registerRoute, sendJsonWithoutEtag } from '@pa/http-kit';
import type { RequestHandler, Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { PropertiesService } from './properties-service.ts';

// The bridge's routes of this feature, each behind the bridge's guard (bridge-routes.ts) and its scope. The property
// carries Express's weak ETag, and If-None-Match gives 304 whatever the request's cache directives
// (evaluateConditionalsAtOrigin, app.ts); the compliance read, stamped with its moment (as_of), carries none.
export function registerPropertiesRoutes(
  router: Router,
  deps: { properties: PropertiesService; guard: RequestHandler[] },
): void {
  const at = { before: [...deps.guard, requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.getProperty, at, async ({ params }, req, res) => {
    res.json(await deps.properties.getProperty(req.auth!.tenantId, params.id));
  });
  registerRoute(router, bridgeRoutes.getPropertyCompliance, at, async ({ params }, req, res) => {
    sendJsonWithoutEtag(res, await deps.properties.getCompliance(req.auth!.tenantId, params.id));
  });
}
