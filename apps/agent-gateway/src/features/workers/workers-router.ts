import { CreateWorkerRequest, WorkerIdParams } from '@pa/contracts';
import { parseOrThrow, requireJson } from '@pa/http-kit';
import { Router } from 'express';
import type { WorkersService } from './workers-service.ts';

export function createWorkersRouter(deps: { workers: WorkersService }): Router {
  const { workers } = deps;
  const router = Router();

  router.post('/', requireJson, async (req, res) => {
    const body = parseOrThrow(CreateWorkerRequest, req.body);
    const worker = await workers.create(req.workspaceId!, body);
    res.status(201).location(`/api/assistant/workers/${worker.id}`).json(worker);
  });
  router.get('/', async (req, res) => {
    res.json({ workers: await workers.list(req.workspaceId!) });
  });
  router.get('/:workerId', async (req, res) => {
    const { workerId } = parseOrThrow(WorkerIdParams, req.params);
    res.json(await workers.get(req.workspaceId!, workerId));
  });
  router.delete('/:workerId', async (req, res) => {
    const { workerId } = parseOrThrow(WorkerIdParams, req.params);
    await workers.remove(req.workspaceId!, workerId);
    res.status(204).end();
  });
  return router;
}
