import { gatewayRoutes, WORKERS_BASE } from '@pa/contracts';
import { NotFound, registerRoute, requireJson } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import type { MailboxesService } from './mailboxes-service.ts';

// A worker's own mailboxes, mounted at WORKERS_BASE behind the assistant router's workspace gate. Off unless
// EMAIL_INGESTION_ENABLED. Connecting one tries a login with what the caller typed, so it shares the failed
// setup attempts' limit with binds and channel connections.
export function createMailboxesRouter(deps: {
  enabled: boolean;
  mailboxes: MailboxesService;
  setupLimit: RequestHandler[];
}): Router {
  const router = Router({ mergeParams: true });
  const enabled: RequestHandler = (_req, _res, next) => {
    if (!deps.enabled) {
      throw new NotFound(
        'email-ingestion-disabled',
        'The assistant’s own mailboxes are off (EMAIL_INGESTION_ENABLED).',
      );
    }
    next();
  };
  const at = { mountedAt: WORKERS_BASE, before: [enabled] };

  registerRoute(
    router,
    gatewayRoutes.addWorkerMailbox,
    { ...at, before: [enabled, ...deps.setupLimit, requireJson] },
    async ({ params: { workerId }, body }, req, res) => {
      res.status(201).json(await deps.mailboxes.add(req.workspaceId!, workerId, body));
    },
  );
  registerRoute(router, gatewayRoutes.listWorkerMailboxes, at, async ({ params: { workerId } }, req, res) => {
    res.json({ mailboxes: await deps.mailboxes.list(req.workspaceId!, workerId) });
  });
  registerRoute(
    router,
    gatewayRoutes.deleteWorkerMailbox,
    at,
    async ({ params: { workerId, mailboxId } }, req, res) => {
      await deps.mailboxes.delete(req.workspaceId!, workerId, mailboxId);
      res.status(204).end();
    },
  );
  return router;
}
