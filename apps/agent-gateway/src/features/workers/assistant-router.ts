import { FeatureDisabled } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import { createBindingRouter } from '../binding/binding-router.ts';
import type { BindingService } from '../binding/binding-service.ts';
import { createChannelsRouter } from '../channels/channels-router.ts';
import type { ChannelsService } from '../channels/channels-service.ts';
import type { SummaryScheduling } from '../daily-summary/summary-scheduling.ts';
import type { WorkersRepository } from './workers-repository.ts';
import type { WorkspacesRepository } from './workspaces-repository.ts';
import { createWorkersRouter } from './workers-router.ts';
import { createWorkersService } from './workers-service.ts';
import { requireWorkspace } from './workspace-guard.ts';

// /api/assistant: workers, their platform binding and their messaging channels, scoped to the workspace named by X-Workspace-Id.
export function createAssistantRouter(deps: {
  workersEnabled: boolean;
  bridgeEnabled: boolean;
  workers: WorkersRepository;
  workspaces: WorkspacesRepository;
  binding: BindingService;
  channels: ChannelsService;
  summary?: SummaryScheduling | null;
  /** failed binds and channel connections per IP and device (features/protection/setup-attempt-limit.ts) */
  setupLimit: RequestHandler[];
}): Router {
  const { workers, binding, channels } = deps;
  const router = Router();
  router.use((_req, _res, next) => {
    if (!deps.workersEnabled)
      throw new FeatureDisabled('workers-disabled', 'Assistant workers are off (AI_WORKERS_ENABLED).');
    next();
  });
  router.use(requireWorkspace(deps.workspaces));
  router.use(
    '/workers',
    createWorkersRouter({ workers: createWorkersService({ workers, summary: deps.summary }) }),
  );
  router.use(
    '/workers',
    createBindingRouter({ binding, bridgeEnabled: deps.bridgeEnabled, setupLimit: deps.setupLimit }),
  );
  router.use('/workers', createChannelsRouter({ channels, setupLimit: deps.setupLimit }));
  return router;
}
