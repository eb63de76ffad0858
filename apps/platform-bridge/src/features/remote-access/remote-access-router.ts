import { ADMIN_BASE, bridgeRoutes } from '@pa/contracts';
import { jsonBody, optionalJson, registerRoute, requireJson } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { RemoteAccessService } from './remote-access-service.ts';

// The remote-access settings' admin API (issue 37). Mounted behind the admin router's authentication (padm_ keys)
// and rate limit; every route but whoami needs `access:manage`, reads included (a key list is what an attacker
// would read first). No tenant flag: these routes are where the flags are switched on.
export function createRemoteAccessRouter(deps: { remoteAccess: RemoteAccessService }): Router {
  const { remoteAccess: access } = deps;
  const router = Router();
  const manage = requireScope('access:manage');
  const read = { mountedAt: ADMIN_BASE, before: [manage] };
  const write = { mountedAt: ADMIN_BASE, before: [manage, requireJson, jsonBody] };
  const act = { mountedAt: ADMIN_BASE, before: [manage] };
  const r = bridgeRoutes;

  registerRoute(router, r.getAdminWhoami, { mountedAt: ADMIN_BASE }, (_input, req, res) => {
    res.json(access.whoami(req.auth!));
  });

  registerRoute(router, r.listRemoteKeys, read, async (_input, req, res) => {
    res.json({ keys: await access.remoteKeys(req.auth!) });
  });
  registerRoute(router, r.createRemoteKey, write, async ({ body }, req, res) => {
    res.status(201).json(await access.createRemoteKey(req.auth!, body));
  });
  registerRoute(router, r.revokeRemoteKey, act, async ({ params }, req, res) => {
    res.json({ key: await access.revokeRemoteKey(req.auth!, params.id) });
  });

  registerRoute(router, r.listAdminKeys, read, async (_input, req, res) => {
    res.json({ keys: await access.adminKeys(req.auth!) });
  });
  registerRoute(
    router,
    r.revokeAdminKey,
    { mountedAt: ADMIN_BASE, before: [manage, optionalJson, jsonBody] },
    async ({ params, body }, req, res) => {
      const confirm = body.confirm_last_access_admin === true;
      res.json({ key: await access.revokeAdminKey(req.auth!, params.id, confirm) });
    },
  );

  registerRoute(router, r.listTenantFlags, read, async (_input, req, res) => {
    res.json({ flags: await access.flags(req.auth!) });
  });
  registerRoute(router, r.setTenantFlag, write, async ({ params, body }, req, res) => {
    res.json({ flag: await access.setFlag(req.auth!, params.name, body.enabled) });
  });

  registerRoute(router, r.listWebhookEndpoints, read, async (_input, req, res) => {
    res.json({ endpoints: await access.endpoints(req.auth!) });
  });
  registerRoute(router, r.createWebhookEndpoint, write, async ({ body }, req, res) => {
    res.status(201).json(await access.addEndpoint(req.auth!, body.url));
  });
  registerRoute(router, r.deleteWebhookEndpoint, act, async ({ params }, req, res) => {
    await access.removeEndpoint(req.auth!, params.id);
    res.status(204).end();
  });
  registerRoute(router, r.listWebhookDeliveries, read, async ({ params, query }, req, res) => {
    res.json({ deliveries: await access.deliveries(req.auth!, params.id, query.limit) });
  });
  registerRoute(router, r.redeliverWebhookDelivery, act, async ({ params }, req, res) => {
    res.status(202).json({ delivery: await access.redeliver(req.auth!, params.id) });
  });

  registerRoute(router, r.listAccessAudit, read, async ({ query }, req, res) => {
    res.json({ entries: await access.audit(req.auth!, query.limit) });
  });
  return router;
}
