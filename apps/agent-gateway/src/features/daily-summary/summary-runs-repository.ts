import type { Db } from '../../lib/db.ts';

// The summary_runs rows. (worker_id, scheduled_for) is unique, and a run is claimed attempt by attempt with a
// conditional update, so that one slot runs once however many processes are handed its job.

export type RunRow = NonNullable<Awaited<ReturnType<Db['summaryRun']['findUnique']>>>;
export type RunOutcome = 'delivered' | 'failed' | 'skipped';

const isForeignKeyViolation = (err: unknown) =>
  typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2003';

export function createSummaryRunsRepository(db: Db) {
  return {
    find: (id: string) => db.summaryRun.findUnique({ where: { id } }),

    /**
     * The scheduled run of a worker's slot: created queued unless it exists (INSERT … ON CONFLICT DO NOTHING),
     * then read back. Null when the worker no longer exists (deleted after its job was scheduled).
     */
    async ensureScheduled(workerId: string, scheduledFor: Date, deliveryChannel: string) {
      try {
        await db.summaryRun.createMany({
          data: [{ workerId, scheduledFor, deliveryChannel, trigger: 'schedule' }],
          skipDuplicates: true,
        });
      } catch (err) {
        if (isForeignKeyViolation(err)) return null;
        throw err;
      }
      return db.summaryRun.findUnique({ where: { workerId_scheduledFor: { workerId, scheduledFor } } });
    },

    /** A run-now run, queued; its job is added by the caller. */
    createManual: (workerId: string, scheduledFor: Date, deliveryChannel: string) =>
      db.summaryRun.create({ data: { workerId, scheduledFor, deliveryChannel, trigger: 'manual' } }),

    /**
     * Takes the run for attempt `attempt` (1, 2, 3 …): only while it is queued or running and no attempt this
     * late has started. A second process handed the same attempt finds it taken; a retry or a job recovered from
     * a stalled process starts a later attempt and takes it over. True when this caller has it.
     */
    async claim(id: string, attempt: number, now: Date): Promise<boolean> {
      const taken = await db.$executeRaw`
        UPDATE summary_runs
           SET status = 'running', attempts = ${attempt}, started_at = COALESCE(started_at, ${now})
         WHERE id = ${id}::uuid AND status IN ('queued', 'running') AND attempts < ${attempt}`;
      return taken === 1;
    },

    /** An attempt failed and another will follow: back to queued, with why in words. */
    retrying: (id: string, error: string) =>
      db.summaryRun.updateMany({ where: { id, status: 'running' }, data: { status: 'queued', error } }),

    finish: (
      id: string,
      outcome: RunOutcome,
      fields: { error?: string | null; briefing?: string | null; now: Date },
    ) =>
      db.summaryRun.update({
        where: { id },
        data: {
          status: outcome,
          error: fields.error ?? null,
          briefing: fields.briefing ?? null,
          finishedAt: fields.now,
        },
      }),

    /** A run whose job could not be queued leaves no trace. */
    remove: (id: string) => db.summaryRun.deleteMany({ where: { id } }),

    list: (workerId: string, limit: number) =>
      db.summaryRun.findMany({
        where: { workerId },
        orderBy: [{ createdAt: 'desc' }, { scheduledFor: 'desc' }],
        take: limit,
      }),
  };
}
export type SummaryRunsRepository = ReturnType<typeof createSummaryRunsRepository>;
