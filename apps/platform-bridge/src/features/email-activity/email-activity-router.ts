import { bridgeRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import type { RequestHandler, Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { EmailActivityService } from './email-activity-service.ts';

// The bridge's routes of this feature, each behind the bridge's guard (bridge-routes.ts) and its scope.
export function registerEmailActivityRoutes(
  router: Router,
  deps: { email: EmailActivityService; guard: RequestHandler[] },
): void {
  const at = { before: [...deps.guard, requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.listEmailActivity, at, async ({ query }, req, res) => {
    res.json(await deps.email.listActivity(req.auth!.tenantId, query.hours));
  });
  registerRoute(router, bridgeRoutes.listMailboxes, at, async (_input, req, res) => {
    res.json(await deps.email.listMailboxes(req.auth!.tenantId));
  });
}
