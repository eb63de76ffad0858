import { ADMIN_BASE, bridgeRoutes } from '@pa/contracts';
import { jsonBody, registerRoute, requireJson } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { Scope } from '../auth/scopes.ts';
import type { ReviewQueueService } from './review-queue-service.ts';

// An approval may come without a body (no note, no edits): that is `{}`. A body that is there must be JSON.
const optionalJsonBody: RequestHandler = (req, res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody) return requireJson(req, res, next);
  req.body = {};
  next();
};

// Mounted behind the admin router's authentication (padm_ keys), flag check and rate limit.
export function createReviewQueueRouter(deps: { reviewQueue: ReviewQueueService }): Router {
  const { reviewQueue } = deps;
  const router = Router();
  const DECIDE: Scope = 'review:write';
  const read = { mountedAt: ADMIN_BASE, before: [requireScope('review:read')] };
  const write = (body: RequestHandler) => ({
    mountedAt: ADMIN_BASE,
    before: [requireScope(DECIDE), body, jsonBody],
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
    write(optionalJsonBody),
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
