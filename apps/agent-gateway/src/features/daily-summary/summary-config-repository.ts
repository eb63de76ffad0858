import type { Db, Tx } from '../../lib/db.ts';

export interface SummaryConfigData {
  enabled: boolean;
  deliveryChannel: string;
  schedule: string;
  timezone: string;
}

// A worker's summary_configs row. Like a binding, it has no workspace column: its worker's workspace scopes it, so
// the API's queries take the workspace first and reach it through the worker. The exceptions are the scheduler's
// own reads (reconciliation at start, a worker bound again), which are maintenance across every workspace.
export function createSummaryConfigRepository(db: Db) {
  return {
    find: (workspaceId: string, workerId: string, tx: Tx | Db = db) =>
      tx.summaryConfig.findFirst({ where: { workerId, worker: { workspaceId } } }),

    /**
     * Saves the row under the worker's row lock, and commits only once `beforeCommit` has resolved (the
     * scheduler's change in Redis): a throw leaves the row as it was. The lock makes changes to one worker's
     * summary run one after the other, so the row and its scheduler change in the same order. Null when the
     * worker is not in the workspace.
     */
    saveLocked: (
      workspaceId: string,
      workerId: string,
      data: SummaryConfigData,
      beforeCommit: () => Promise<void>,
    ) =>
      db.$transaction(async (tx) => {
        const locked = (
          await tx.$queryRaw<unknown[]>`
            SELECT id FROM workers WHERE id = ${workerId}::uuid AND workspace_id = ${workspaceId}::uuid FOR UPDATE`
        ).length;
        if (!locked) return null;
        const saved = await tx.summaryConfig.upsert({
          where: { workerId, worker: { workspaceId } },
          create: { workerId, ...data },
          update: data,
        });
        await beforeCommit();
        return saved;
      }),

    /**
     * Whether the worker's summary is on and where it goes, by worker id alone: for the summary's own processes
     * (the queue's worker, run-now after the worker was found in its workspace).
     */
    delivery: (workerId: string) =>
      db.summaryConfig.findUnique({ where: { workerId }, select: { enabled: true, deliveryChannel: true } }),

    /** Whether the worker has a channel of this type paired with a chat (status `connected`). */
    hasConnectedChannel: async (workerId: string, type: string) =>
      (await db.channel.count({ where: { workerId, type, status: 'connected' } })) > 0,

    /** Every schedule that should have a job scheduler: enabled, and the worker bound to a platform tenant. */
    listScheduled: () =>
      db.summaryConfig.findMany({
        where: { enabled: true, worker: { binding: { isNot: null } } },
        select: { workerId: true, schedule: true, timezone: true },
        orderBy: { workerId: 'asc' },
      }),

    /** One worker's schedule if it should have a job scheduler (see listScheduled), else null. */
    findScheduled: (workerId: string) =>
      db.summaryConfig.findFirst({
        where: { workerId, enabled: true, worker: { binding: { isNot: null } } },
        select: { workerId: true, schedule: true, timezone: true },
      }),
  };
}
export type SummaryConfigRepository = ReturnType<typeof createSummaryConfigRepository>;
