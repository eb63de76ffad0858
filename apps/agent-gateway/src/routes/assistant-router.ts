import { FeatureDisabled } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import { createBindingRouter } from '../features/binding/binding-router.ts';
import type { BindingService } from '../features/binding/binding-service.ts';
import { createChannelsRouter } from '../features/channels/channels-router.ts';
import type { ChannelsService } from '../features/channels/channels-service.ts';
import {
  createKnowledgeStatusRouter,
  type KnowledgeStatusReader,
} from '../features/knowledge-status/knowledge-status-router.ts';
import type { WorkspacesRepository } from '../features/workspace/workspaces-repository.ts';
import { createWorkersRouter } from '../features/workers/workers-router.ts';
import type { WorkersService } from '../features/workers/workers-service.ts';
import { requireWorkspace } from '../features/workspace/workspace-guard.ts';

// /api/assistant: workers, their platform binding and their messaging channels, scoped to the workspace named by X-Workspace-Id.
export function createAssistantRouter(deps: {
  workersEnabled: boolean;
  bridgeEnabled: boolean;
  workers: WorkersService;
  workspaces: WorkspacesRepository;
  binding: BindingService;
  channels: ChannelsService;
  /** failed binds and channel connections per IP and device (features/protection/setup-attempt-limit.ts) */
  setupLimit: RequestHandler[];
  /** the workers' synced knowledge corpus (features/knowledge): its status for the Settings line */
  knowledge?: KnowledgeStatusReader | undefined;
}): Router {
  const { workers, binding, channels } = deps;
  const router = Router();
  router.use((_req, _res, next) => {
    if (!deps.workersEnabled)
      throw new FeatureDisabled('workers-disabled', 'Assistant workers are off (AI_WORKERS_ENABLED).');
    next();
  });
  router.use(requireWorkspace(deps.workspaces));
  router.use('/workers', createWorkersRouter({ workers }));
  router.use(
    '/workers',
    createBindingRouter({ binding, bridgeEnabled: deps.bridgeEnabled, setupLimit: deps.setupLimit }),
  );
  router.use('/workers', createChannelsRouter({ channels, setupLimit: deps.setupLimit }));
  if (deps.knowledge)
    router.use(
      '/workers',
      createKnowledgeStatusRouter({ bridgeEnabled: deps.bridgeEnabled, workers, knowledge: deps.knowledge }),
    );
  return router;
}
