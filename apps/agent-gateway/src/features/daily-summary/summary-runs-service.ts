import { isUniqueViolation, ServiceUnavailable, Unprocessable } from '@pa/http-kit';
import type { Logger } from 'pino';
import type { WorkersRepository } from '../workspace/workers-repository.ts';
import type { SummaryConfigRepository } from './summary-config-repository.ts';
import type { SummaryQueue } from './summary-queue.ts';
import { toSummaryRun } from './daily-summary-mapper.ts';
import type { SummaryRunsRepository } from './summary-runs-repository.ts';

const redisUnavailable = () =>
  new ServiceUnavailable(
    'redis-unavailable',
    'The summary queue (Redis) is unavailable; try again shortly.',
    5,
  );

// A worker's summary runs and run-now; the worker is always looked up in the caller's workspace first.
export function createSummaryRunsService(deps: {
  workers: WorkersRepository;
  runs: SummaryRunsRepository;
  configs: SummaryConfigRepository;
  /** the summary queue (null with the flag off); while its Redis is away run-now answers 503 redis-unavailable */
  queue: SummaryQueue | null;
  logger: Logger;
  now?: () => Date;
}) {
  const { workers, runs, configs, queue, logger } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    async list(workspaceId: string, workerId: string, limit: number) {
      await workers.require(workspaceId, workerId);
      return (await runs.list(workerId, limit)).map(toSummaryRun);
    },

    /** Queues a summary now, delivered to the worker's configured channel (web without a configuration). */
    async runNow(workspaceId: string, workerId: string): Promise<{ runId: string }> {
      const worker = await workers.require(workspaceId, workerId);
      if (!worker.binding)
        throw new Unprocessable('worker-not-bound', 'This worker is not bound to a platform tenant.');
      if (!queue?.ready()) throw redisUnavailable();
      const channel = (await configs.delivery(workerId))?.deliveryChannel ?? 'web';

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
        throw err instanceof ServiceUnavailable ? redisUnavailable() : err;
      }
      return { runId: run.id };
    },
  };
}
export type SummaryRunsService = ReturnType<typeof createSummaryRunsService>;
