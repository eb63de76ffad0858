import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { EmailActivityService } from './email-activity-service.ts';

// The bridge's routes of this feature, each behind its scope; mounted at BRIDGE_BASE behind the bridge's guard
// (bridge-router.ts).
export function createEmailActivityRouter(deps: { email: EmailActivityService }): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.listEmailActivity, at, async ({ query }, req, res) => {
    res.json(await deps.email.listActivity(req.auth!.tenantId, query.hours));
  });
  registerRoute(router, bridgeRoutes.listMailboxes, at, async (_input, req, res) => {
    res.json(await deps.email.listMailboxes(req.auth!.tenantId));
  });
  return router;
}
