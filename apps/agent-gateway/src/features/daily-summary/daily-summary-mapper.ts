import type { SummaryConfig, SummaryRun } from '@pa/contracts';
import { nextRunAt } from './next-run.ts';
import type { SummaryConfigRepository } from './summary-config-repository.ts';
import type { RunRow } from './summary-runs-repository.ts';

type ConfigRow = NonNullable<Awaited<ReturnType<SummaryConfigRepository['find']>>>;

/**
 * A worker's daily-summary configuration as the API answers it. nextRunAt is when the scheduler fires next, so it
 * is null whenever there is no scheduler: disabled, or enabled on a worker that has since been unbound (binding it
 * again brings the scheduler back).
 */
export function toSummaryConfig(
  workerId: string,
  row: Pick<ConfigRow, 'enabled' | 'deliveryChannel' | 'schedule' | 'timezone' | 'updatedAt'>,
  bound: boolean,
  now: () => Date,
): SummaryConfig {
  return {
    workerId,
    enabled: row.enabled,
    deliveryChannel: row.deliveryChannel as SummaryConfig['deliveryChannel'],
    summarySchedule: row.schedule,
    timezone: row.timezone,
    nextRunAt: row.enabled && bound ? nextRunAt(row.schedule, row.timezone, now()).toISOString() : null,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** One summary run as the API answers it. */
export function toSummaryRun(row: RunRow): SummaryRun {
  return {
    id: row.id,
    workerId: row.workerId,
    trigger: row.trigger === 'manual' ? 'manual' : 'schedule',
    scheduledFor: row.scheduledFor.toISOString(),
    status: row.status as SummaryRun['status'],
    attempts: row.attempts,
    deliveryChannel: row.deliveryChannel as SummaryRun['deliveryChannel'],
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    error: row.error,
    briefing: row.briefing,
  };
}
