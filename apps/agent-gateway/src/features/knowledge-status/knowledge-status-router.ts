import { gatewayRoutes, type KnowledgeStatusResponse, WORKERS_BASE } from '@pa/contracts';
import { FeatureDisabled, registerRoute } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import type { KnowledgeStatus } from '../knowledge/knowledge-passage.ts';
import type { WorkersService } from '../workers/workers-service.ts';

// GET /api/assistant/workers/:workerId/knowledge: what the Settings line says ("42 documents synced, last at
// 14:05"). The worker is looked up in the caller's workspace first, so another workspace's worker is as unknown as
// a made-up id; the status itself comes from the worker's synced copy (features/knowledge).

export interface KnowledgeStatusReader {
  status(workerId: string): Promise<KnowledgeStatus>;
}

export function createKnowledgeStatusRouter(deps: {
  bridgeEnabled: boolean;
  workers: Pick<WorkersService, 'get'>;
  knowledge: KnowledgeStatusReader;
}): Router {
  const router = Router({ mergeParams: true });
  const enabled: RequestHandler = (_req, _res, next) => {
    if (!deps.bridgeEnabled)
      throw new FeatureDisabled(
        'platform-bridge-disabled',
        'The platform bridge is off (PLATFORM_BRIDGE_ENABLED).',
      );
    next();
  };
  // Mounted at WORKERS_BASE, behind the workspace guard.
  const at = { mountedAt: WORKERS_BASE, before: [enabled] };
  registerRoute(router, gatewayRoutes.getKnowledgeStatus, at, async ({ params: { workerId } }, req, res) => {
    // 404 worker-not-found unless the worker is in the caller's workspace
    const worker = await deps.workers.get(req.workspaceId!, workerId);
    const status = await deps.knowledge.status(worker.id);
    const body: KnowledgeStatusResponse = {
      workerId: worker.id,
      documents: status.documents,
      lastSyncedAt: status.lastSyncedAt?.toISOString() ?? null,
      lastError: status.lastError,
    };
    res.json(body);
  });
  return router;
}
