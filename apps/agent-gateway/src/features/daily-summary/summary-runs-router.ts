import { gatewayRoutes, WORKERS_BASE } from '@pa/contracts';
import { FeatureDisabled, NotFound, registerRoute, ServiceUnavailable, Unprocessable } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import type { Logger } from 'pino';
import type { Db } from '../../lib/db.ts';
import type { WorkersRepository } from '../workers/workers-repository.ts';
import type { SummaryQueue } from './summary-queue.ts';
import { createSummaryRunsRepository, toSummaryRun } from './summary-runs-repository.ts';

// A worker's summary runs and run-now (SPEC §3.7), mounted at WORKERS_BASE after the assistant router, whose
// gate (AI_WORKERS_ENABLED, X-Workspace-Id) has run by then; these routes add ASSISTANT_DAILY_SUMMARY_ENABLED.

const isUniqueViolation = (err: unknown) =>
  typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2002';

export function createSummaryRunsRouter(deps: {
  summaryEnabled: boolean;
  db: Db;
  workers: WorkersRepository;
  /** the summary queue (null with the flag off); while its Redis is away run-now answers 503 redis-unavailable */
  queue: SummaryQueue | null;
  logger: Logger;
  now?: () => Date;
}): Router {
  const { db, workers, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const runs = createSummaryRunsRepository(db);
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

  async function requireWorker(workspaceId: string, workerId: string) {
    const worker = await workers.find(workspaceId, workerId);
    if (!worker) throw new NotFound('worker-not-found', `No worker ${workerId} in this workspace.`);
    return worker;
  }

  registerRoute(router, gatewayRoutes.listSummaryRuns, at, async ({ params, query }, req, res) => {
    await requireWorker(req.workspaceId!, params.workerId);
    res.json({ runs: (await runs.list(params.workerId, query.limit)).map(toSummaryRun) });
  });

  registerRoute(router, gatewayRoutes.runSummaryNow, at, async ({ params: { workerId } }, req, res) => {
    const worker = await requireWorker(req.workspaceId!, workerId);
    if (!worker.binding)
      throw new Unprocessable('worker-not-bound', 'This worker is not bound to a platform tenant.');
    const unavailable = () =>
      new ServiceUnavailable(
        'redis-unavailable',
        'The summary queue (Redis) is unavailable; try again shortly.',
        5,
      );
    const { queue } = deps;
    if (!queue?.ready()) throw unavailable();
    const config = await db.summaryConfig.findUnique({ where: { workerId } });
    const channel = config?.deliveryChannel ?? 'web';

    // (worker, scheduled_for) is unique: two presses in the same millisecond are two runs a millisecond apart
    let run;
    for (let offset = 0; ; offset++) {
      try {
        run = await runs.createManual(workerId, new Date(now().getTime() + offset), channel);
        break;
      } catch (err) {
        if (!isUniqueViolation(err) || offset >= 5) throw err;
      }
    }
    try {
      await queue.add({ workerId, runId: run.id }, `manual-${run.id}`);
    } catch (err) {
      // a run whose job never reached the queue would wait for ever: it is not kept
      await runs.remove(run.id);
      logger.warn(
        { worker_id: workerId, error: err instanceof Error ? err.message : String(err) },
        'run-now could not be queued',
      );
      throw err instanceof ServiceUnavailable ? unavailable() : err;
    }
    res.status(202).json({ runId: run.id });
  });
  return router;
}
