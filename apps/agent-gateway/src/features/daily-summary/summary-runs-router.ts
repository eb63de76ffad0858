import { gatewayRoutes, WORKERS_BASE } from '@pa/contracts';
import { FeatureDisabled, registerRoute } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import type { SummaryRunsService } from './summary-runs-service.ts';

// A worker's summary runs and run-now, mounted at WORKERS_BASE after the assistant router, whose
// gate (AI_WORKERS_ENABLED, X-Workspace-Id) has run by then; these routes add ASSISTANT_DAILY_SUMMARY_ENABLED.
export function createSummaryRunsRouter(deps: { summaryEnabled: boolean; runs: SummaryRunsService }): Router {
  const { runs } = deps;
  const router = Router({ mergeParams: true });
  const gate: RequestHandler = (_req, _res, next) => {
    if (!deps.summaryEnabled)
      throw new FeatureDisabled(
        'summary-disabled',
        'The daily summary is off on this gateway (ASSISTANT_DAILY_SUMMARY_ENABLED).',
      );
    next();
  };
  const at = { mountedAt: WORKERS_BASE, before: [gate] };

  registerRoute(router, gatewayRoutes.listSummaryRuns, at, async ({ params, query }, req, res) => {
    res.json({ runs: await runs.list(req.workspaceId!, params.workerId, query.limit) });
  });

  registerRoute(router, gatewayRoutes.runSummaryNow, at, async ({ params }, req, res) => {
    res.status(202).json(await runs.runNow(req.workspaceId!, params.workerId));
  });
  return router;
}
