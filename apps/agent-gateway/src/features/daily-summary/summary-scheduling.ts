import type { Logger } from 'pino';
import type { SummaryConfigRepository } from './summary-config-repository.ts';
import type { ReconcileReport, SummaryQueue } from './summary-queue.ts';

// Keeping the job schedulers in step with what happens to workers elsewhere: a worker deleted or unbound loses its
// scheduler, a worker bound again gets it back if its summary is on. These follow a change the database has
// already made, so they are best effort: when Redis cannot be reached the change stands, a warning is logged, and
// reconciliation (at start, on reconnecting and every few minutes) puts Redis right. A scheduler left behind
// meanwhile is harmless: the processor skips a worker that is gone or no longer bound.

export interface SummaryScheduling {
  workerDeleted(workerId: string): Promise<void>;
  workerUnbound(workerId: string): Promise<void>;
  workerBound(workerId: string): Promise<void>;
  /** Makes Redis's schedulers match the database's enabled, bound workers. */
  reconcile(): Promise<ReconcileReport>;
}

export function createSummaryScheduling(deps: {
  queue: SummaryQueue;
  configs: SummaryConfigRepository;
  logger: Logger;
}): SummaryScheduling {
  const { queue, configs, logger } = deps;

  async function bestEffort(workerId: string, what: string, op: () => Promise<unknown>) {
    try {
      await op();
    } catch (err) {
      logger.warn(
        { worker_id: workerId, error: err instanceof Error ? err.message : String(err) },
        `could not ${what} the worker's daily summary scheduler; reconciliation will`,
      );
    }
  }

  return {
    workerDeleted: (workerId) => bestEffort(workerId, 'remove', () => queue.unschedule(workerId)),
    workerUnbound: (workerId) => bestEffort(workerId, 'remove', () => queue.unschedule(workerId)),
    workerBound: (workerId) =>
      bestEffort(workerId, 'restore', async () => {
        const wanted = await configs.findScheduled(workerId);
        if (wanted) await queue.schedule(wanted);
      }),
    reconcile: async () => queue.reconcile(await configs.listScheduled()),
  };
}

/**
 * Reconciles now, whenever the queue's Redis connection becomes ready (at first, or back after a loss: a Redis
 * restarted empty has lost every scheduler), and every `intervalMs` (which also mends a best-effort change that failed, or a race between a
 * reconciliation and a config change). Several processes may run it at once: scheduler ids make it idempotent.
 */
export function startSummaryReconciler(deps: {
  scheduling: SummaryScheduling;
  queue: SummaryQueue;
  logger: Logger;
  intervalMs?: number;
}): {
  stop(): void;
  /** the first reconciliation, settled (tests and start-up logs wait for it) */ first: Promise<void>;
} {
  const { scheduling, queue, logger } = deps;
  let running: Promise<void> | null = null;
  let stopped = false;

  const run = (why: string): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= (async () => {
      try {
        const r = await scheduling.reconcile();
        const changed = r.created.length + r.updated.length + r.removed.length;
        logger[changed ? 'info' : 'debug'](
          {
            why,
            created: r.created.length,
            updated: r.updated.length,
            removed: r.removed.length,
            unchanged: r.unchanged,
          },
          'daily summary schedulers reconciled with the database',
        );
      } catch (err) {
        logger.warn(
          { why, error: err instanceof Error ? err.message : String(err) },
          'daily summary schedulers could not be reconciled (Redis unreachable?); trying again on reconnecting',
        );
      } finally {
        running = null;
      }
    })();
    return running;
  };

  queue.onReady(() => void run('redis-ready'));
  const timer = setInterval(() => void run('interval'), deps.intervalMs ?? 5 * 60_000);
  timer.unref();
  return {
    // not connected yet: the connection's first 'ready' reconciles
    first: queue.ready() ? run('start') : Promise.resolve(),
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
