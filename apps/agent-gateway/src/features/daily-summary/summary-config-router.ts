import { gatewayRoutes, SUMMARY_CONFIG_BASE } from '@pa/contracts';
import { FeatureDisabled, registerRoute, requireJson } from '@pa/http-kit';
import { Router } from 'express';
import type { WorkspacesRepository } from '../workspace/workspaces-repository.ts';
import { requireWorkspace } from '../workspace/workspace-guard.ts';
import type { SummaryConfigService } from './summary-config-service.ts';

// The daily summary's configuration, mounted at SUMMARY_CONFIG_BASE. It sits outside /workers, so it brings the
// worker routes' gates itself, flags first (a switched-off feature says nothing about workspaces), then the
// workspace named by X-Workspace-Id.
export function createSummaryConfigRouter(deps: {
  workersEnabled: boolean;
  summaryEnabled: boolean;
  workspaces: WorkspacesRepository;
  /** null while ASSISTANT_DAILY_SUMMARY_ENABLED is off */
  summary: SummaryConfigService | null;
}): Router {
  const router = Router();
  router.use((_req, _res, next) => {
    if (!deps.workersEnabled)
      throw new FeatureDisabled('workers-disabled', 'Assistant workers are off (AI_WORKERS_ENABLED).');
    if (!deps.summaryEnabled || !deps.summary)
      throw new FeatureDisabled(
        'summary-disabled',
        'The daily summary is off (ASSISTANT_DAILY_SUMMARY_ENABLED).',
      );
    next();
  });
  router.use(requireWorkspace(deps.workspaces));
  const summary = deps.summary!;
  const at = { mountedAt: SUMMARY_CONFIG_BASE };

  registerRoute(router, gatewayRoutes.getSummaryConfig, at, async ({ params: { workerId } }, req, res) => {
    res.json(await summary.get(req.workspaceId!, workerId));
  });
  registerRoute(
    router,
    gatewayRoutes.setSummaryConfig,
    { ...at, before: [requireJson] },
    async ({ params: { workerId }, body }, req, res) => {
      res.json(await summary.set(req.workspaceId!, workerId, body));
    },
  );
  return router;
}
