import { gatewayRoutes, WORKERS_BASE } from '@pa/contracts';
import { registerRoute, requireJson } from '@pa/http-kit';
import { Router } from 'express';
import type { WorkersService } from './workers-service.ts';

export function createWorkersRouter(deps: { workers: WorkersService }): Router {
  const { workers } = deps;
  const router = Router();

  // Mounted at WORKERS_BASE, behind the workspace guard.
  const at = { mountedAt: WORKERS_BASE };
  const json = { ...at, before: [requireJson] };
  registerRoute(router, gatewayRoutes.createWorker, json, async ({ body }, req, res) => {
    const worker = await workers.create(req.workspaceId!, body);
    res.status(201).location(`${WORKERS_BASE}/${worker.id}`).json(worker);
  });
  registerRoute(router, gatewayRoutes.listWorkers, at, async (_input, req, res) => {
    res.json({ workers: await workers.list(req.workspaceId!) });
  });
  registerRoute(router, gatewayRoutes.getWorker, at, async ({ params: { workerId } }, req, res) => {
    res.json(await workers.get(req.workspaceId!, workerId));
  });
  registerRoute(router, gatewayRoutes.deleteWorker, at, async ({ params: { workerId } }, req, res) => {
    await workers.remove(req.workspaceId!, workerId);
    res.status(204).end();
  });
  return router;
}
