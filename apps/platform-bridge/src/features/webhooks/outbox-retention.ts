import type { RawQueryClient } from '@pa/db-tools';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';
import { startPeriodicTask, type PeriodicTask } from '@pa/http-kit';

/** Events (and their deliveries) are kept this long, so that `webhooks deliveries` and redelivery can reach them. */
export const OUTBOX_RETENTION_DAYS = 30;
const BATCH = 10_000;

// Older events whose deliveries are all finished are deleted (their deliveries go with them), a batch at a time;
// an event with a delivery still pending is kept whatever its age.
const SWEEP = `
WITH gone AS (
  DELETE FROM platform_events WHERE id IN (
    SELECT e.id FROM platform_events e
    WHERE e.created_at < $1::timestamptz
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
    ORDER BY e.id
    LIMIT ${BATCH}
  )
  RETURNING 1
)
SELECT count(*)::int AS n FROM gone`;

/** Deletes finished events older than the retention; returns how many. */
export async function sweepOutbox(db: RawQueryClient, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - OUTBOX_RETENTION_DAYS * 86_400_000).toISOString();
  let total = 0;
  for (;;) {
    const [row] = await db.$queryRawUnsafe<{ n: number }[]>(SWEEP, cutoff);
    total += row?.n ?? 0;
    if ((row?.n ?? 0) < BATCH) return total;
  }
}

/** The hourly sweep of the platform process. */
export function startOutboxRetention(deps: {
  db: RawQueryClient;
  clock: Clock;
  logger: Logger;
}): PeriodicTask {
  return startPeriodicTask({
    everyMs: 3_600_000,
    run: async () => {
      const n = await sweepOutbox(deps.db, deps.clock.now());
      if (n > 0) deps.logger.info({ events: n }, 'swept delivered platform events past their retention');
    },
    onError: (err) => deps.logger.error({ err }, 'sweeping the platform events outbox failed'),
  });
}
