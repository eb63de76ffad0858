import { gatewayRoutes, WORKERS_BASE } from '@pa/contracts';
import { registerRoute, requireJson } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import type { ChannelsService } from './channels-service.ts';

// A worker's channels, mounted at WORKERS_BASE behind the workspace guard (the worker routes' gate).
export function createChannelsRouter(deps: {
  channels: ChannelsService;
  setupLimit: RequestHandler[];
}): Router {
  const { channels } = deps;
  const router = Router({ mergeParams: true });
  const at = { mountedAt: WORKERS_BASE };

  registerRoute(
    router,
    gatewayRoutes.connectChannel,
    { ...at, before: [...deps.setupLimit, requireJson] },
    async ({ params: { workerId }, body }, req, res) => {
      res.status(201).json(await channels.connect(req.workspaceId!, workerId, body));
    },
  );
  registerRoute(router, gatewayRoutes.listChannels, at, async ({ params: { workerId } }, req, res) => {
    res.json(await channels.list(req.workspaceId!, workerId));
  });
  registerRoute(
    router,
    gatewayRoutes.deleteChannel,
    at,
    async ({ params: { workerId, channelId } }, req, res) => {
      await channels.delete(req.workspaceId!, workerId, channelId);
      res.status(204).end();
    },
  );
  registerRoute(
    router,
    gatewayRoutes.issuePairingCode,
    at,
    async ({ params: { workerId, channelId } }, req, res) => {
      res.json(await channels.newPairingCode(req.workspaceId!, workerId, channelId));
    },
  );
  return router;
}
