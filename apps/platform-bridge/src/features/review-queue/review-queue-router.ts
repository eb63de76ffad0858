import { ADMIN_BASE, bridgeRoutes } from '@pa/contracts';
import { jsonBody, optionalJson, registerRoute, requireJson } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import { requireFlag, requireScope } from '../auth/authenticate.ts';
import type { Scope } from '../auth/scopes.ts';
import type { ReviewQueueService } from './review-queue-service.ts';

// Every review-queue route needs the tenant's flag; checked before the scope, as it was before the admin API also
// served the remote-access settings (which need no flag).
const reviewQueueOn = requireFlag(
  'assistant_bridge_review_queue',
  'review-queue-not-enabled',
  'The review queue is not enabled for this tenant.',
);

// Mounted behind the admin router's authentication (padm_ keys) and rate limit.
export function createReviewQueueRouter(deps: { reviewQueue: ReviewQueueService }): Router {
  const { reviewQueue } = deps;
  const router = Router();
  const DECIDE: Scope = 'review:write';
  const read = { mountedAt: ADMIN_BASE, before: [reviewQueueOn, requireScope('review:read')] };
  const write = (body: RequestHandler) => ({
    mountedAt: ADMIN_BASE,
    before: [reviewQueueOn, requireScope(DECIDE), body, jsonBody],
  });
  // the audit trail's actor: the admin the key names (admins create always records one)
  const admin = (req: Express.Request) => req.auth!.adminEmail ?? `admin key #${req.auth!.keyId}`;

  registerRoute(router, bridgeRoutes.getReviewQueue, read, async ({ query }, req, res) => {
    // the page shows the buttons only to a key the write routes' scope check will let through
    const canDecide = req.auth!.scopes.includes(DECIDE);
    res.json(await reviewQueue.list(req.auth!.tenantId, query, canDecide));
  });
  registerRoute(
    router,
    bridgeRoutes.approveProposal,
    write(optionalJson),
    async ({ params, body }, req, res) => {
      res.json(await reviewQueue.approve(req.auth!.tenantId, admin(req), params.id, body));
    },
  );
  registerRoute(
    router,
    bridgeRoutes.rejectProposal,
    write(requireJson),
    async ({ params, body }, req, res) => {
      res.json(await reviewQueue.reject(req.auth!.tenantId, admin(req), params.id, body.reason));
    },
  );
  registerRoute(router, bridgeRoutes.getProposalAudit, read, async ({ params }, req, res) => {
    res.json(await reviewQueue.audit(req.auth!.tenantId, params.id));
  });
  return router;
}
