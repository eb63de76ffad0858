import { type KnowledgeSyncDeps, type KnowledgeSyncOutcome, syncKnowledge } from './knowledge-sync.ts';

// Runs knowledge syncs in this process: one at a time per binding here (the binding's lock keeps it to one across
// processes), and a sync asked for while one runs gets one more pass after it. The worker process starts its
// schedule (start): every `scanMs` the bindings whose sync is due (asked for, never finished, or last finished
// `everyMs` ago) are synced one after another. Any process may sync a binding at once (syncNow): the app does when
// a `knowledge.changed` event comes in, so the change is searchable without waiting for the schedule.

export interface KnowledgeSyncer {
  /** syncs the worker's copy now (or joins the sync of it already running here); never throws */
  syncNow(workerId: string): Promise<KnowledgeSyncOutcome | null>;
  /** one pass over the due bindings now (what the schedule runs) */
  tick(): Promise<void>;
  /** starts the schedule; stop() ends it and waits for running syncs */
  start(opts: { everyMs: number; scanMs: number }): void;
  stop(): Promise<void>;
}

export function createKnowledgeSyncer(deps: KnowledgeSyncDeps): KnowledgeSyncer {
  const { store, logger } = deps;
  const syncing = new Map<string, Promise<KnowledgeSyncOutcome | null>>();
  const again = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let everyMs = 5 * 60_000;
  let stopped = false;

  function syncNow(workerId: string): Promise<KnowledgeSyncOutcome | null> {
    const current = syncing.get(workerId);
    if (current) {
      again.add(workerId);
      return current;
    }
    const run = (async () => {
      let result: KnowledgeSyncOutcome;
      do {
        again.delete(workerId);
        result = await syncKnowledge(deps, workerId);
        if (result.outcome === 'synced' && result.again) again.add(workerId);
      } while (again.has(workerId) && !stopped);
      return result;
    })()
      .catch((err: unknown) => {
        logger.error({ err, workerId }, 'knowledge sync crashed');
        return null;
      })
      .finally(() => syncing.delete(workerId));
    syncing.set(workerId, run);
    return run;
  }

  async function pass() {
    await store.reconcile();
    for (const workerId of await store.due(everyMs)) {
      if (stopped) return;
      await syncNow(workerId);
    }
  }

  const tick = () => {
    running ??= pass()
      .catch((err: unknown) => logger.error({ err }, 'knowledge sync pass failed'))
      .finally(() => {
        running = null;
      });
    return running;
  };

  return {
    syncNow,
    tick,
    start(opts) {
      everyMs = opts.everyMs;
      if (timer) return;
      timer = setInterval(() => void tick(), opts.scanMs);
      timer.unref();
      void tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
      await Promise.all(syncing.values());
    },
  };
}
