import { gatewayRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import { Router } from 'express';
import type { DefaultWorker } from './default-worker.ts';
import { toApiWorker } from './workers-service.ts';

// GET /api/web/context: what the page needs to show the settings tab — the workspace and worker the web chat
// talks to (both null when workers are off or none exists), and which optional features are on.
export function createWebContextRouter(deps: {
  workersEnabled: boolean;
  dailySummary: boolean;
  platformEvents: boolean;
  defaultWorker: DefaultWorker;
}): Router {
  const router = Router();
  registerRoute(router, gatewayRoutes.getWebContext, async (_input, _req, res) => {
    const worker = deps.workersEnabled ? await deps.defaultWorker.resolve() : null;
    res.json({
      workspaceId: worker?.workspaceId ?? null,
      worker: worker ? toApiWorker(worker) : null,
      features: { dailySummary: deps.dailySummary, platformEvents: deps.platformEvents },
    });
  });
  return router;
}
