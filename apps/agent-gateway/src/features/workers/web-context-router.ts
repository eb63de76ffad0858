import { DEVICE_SCOPES, gatewayRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import { Router } from 'express';
import { type Caller, callerOf } from '../workspace/caller.ts';
import type { DefaultWorker } from '../workspace/default-worker.ts';
import type { WorkersRepository } from '../workspace/workers-repository.ts';
import { toApiWorker } from './worker-mapper.ts';

// GET /api/web/context: what the page needs before it shows anything — whether it must pair first (docs/access.md),
// what the caller may do, the workspace and worker the web chat talks to (null when workers are off, none exists,
// or the caller is anonymous: ids are for authenticated callers only), and which optional features are on.
export function createWebContextRouter(deps: {
  authMode: 'none' | 'token';
  workersEnabled: boolean;
  dailySummary: boolean;
  platformEvents: boolean;
  email: boolean;
  defaultWorker: DefaultWorker;
  workers: WorkersRepository;
}): Router {
  const router = Router();

  // The chat's own rule (worker-hooks.ts): a device's chat is answered by the default worker when it is in the
  // device's workspace, else by the workspace's oldest worker.
  async function chatWorker(caller: Caller) {
    if (!deps.workersEnabled || caller.kind === 'anonymous') return null;
    const fallback = await deps.defaultWorker.resolve();
    if (caller.kind === 'operator' || fallback?.workspaceId === caller.workspaceId) return fallback;
    return deps.workers.first(caller.workspaceId);
  }

  registerRoute(router, gatewayRoutes.getWebContext, async (_input, req, res) => {
    const caller = callerOf(req);
    const worker = await chatWorker(caller);
    res.json({
      workspaceId: caller.kind === 'device' ? caller.workspaceId : (worker?.workspaceId ?? null),
      access: {
        mode: deps.authMode,
        caller: caller.kind,
        scopes:
          caller.kind === 'device'
            ? [...caller.scopes]
            : caller.kind === 'operator'
              ? [...DEVICE_SCOPES]
              : [],
        deviceId: caller.kind === 'device' ? caller.deviceId : null,
      },
      worker: worker ? toApiWorker(worker) : null,
      features: { dailySummary: deps.dailySummary, platformEvents: deps.platformEvents, email: deps.email },
    });
  });
  return router;
}
