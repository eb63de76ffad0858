import { z } from 'zod';
import { CHANNEL_TYPES } from './channels.ts';
import { intField, queryFields } from './query-fields.ts';
import { text } from './text.ts';

// The daily summary: a worker's briefing, written from the platform's data on a cron schedule in a
// time zone, and delivered on the web (kept with the run, shown in the settings tab) or a connected channel.

export const DELIVERY_CHANNELS = ['web', ...CHANNEL_TYPES] as const;
export const DeliveryChannel = z.enum(DELIVERY_CHANNELS, {
  error: `must be one of ${DELIVERY_CHANNELS.join(', ')}`,
});

export const DEFAULT_SUMMARY_SCHEDULE = '0 8 * * *';
export const DEFAULT_SUMMARY_TIMEZONE = 'Europe/London';

/** The shape of a five-field cron expression; the gateway parses it with cron-parser for the rest. */
export const SummarySchedule = text()
  .max(120, 'must be at most 120 characters')
  .regex(
    /^\s*\S+(\s+\S+){4}\s*$/,
    'must be a five-field cron expression (minute hour day-of-month month day-of-week), e.g. "0 8 * * *"',
  );

/** An IANA time zone name that this runtime knows ("Europe/London", "UTC"). */
export const TimeZone = text()
  .max(64, 'must be at most 64 characters')
  .refine((zone) => {
    // Intl also accepts offsets like "+01:00", which are not zones and do not follow clock changes
    if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone)) return false;
    try {
      new Intl.DateTimeFormat('en-GB', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'is not an IANA time zone, e.g. "Europe/London"');

export const SummaryConfigRequest = z.strictObject({
  enabled: z.boolean(),
  deliveryChannel: DeliveryChannel.describe(
    '`web` (always available: the briefing is kept with the run and shown in the settings tab) or the type of a channel connected to the worker',
  ),
  summarySchedule: SummarySchedule.default(DEFAULT_SUMMARY_SCHEDULE).describe(
    `five-field cron expression in \`timezone\`; default \`${DEFAULT_SUMMARY_SCHEDULE}\``,
  ),
  timezone: TimeZone.default(DEFAULT_SUMMARY_TIMEZONE).describe(
    `IANA time zone of the schedule; default \`${DEFAULT_SUMMARY_TIMEZONE}\``,
  ),
});

export const SummaryConfig = z.strictObject({
  workerId: z.uuid(),
  enabled: z.boolean(),
  deliveryChannel: DeliveryChannel,
  summarySchedule: text(),
  timezone: text(),
  nextRunAt: z.iso
    .datetime()
    .nullable()
    .describe('the next scheduled run (UTC); null while the summary is disabled'),
  updatedAt: z.iso.datetime(),
});

export const SUMMARY_RUN_STATUSES = ['queued', 'running', 'delivered', 'failed', 'skipped'] as const;
export const SummaryRunStatus = z.enum(SUMMARY_RUN_STATUSES);

export const SummaryRun = z.strictObject({
  id: z.uuid(),
  workerId: z.uuid(),
  trigger: z.enum(['schedule', 'manual']),
  scheduledFor: z.iso.datetime().describe('the slot this run is for; one run per worker and slot'),
  status: SummaryRunStatus.describe(
    '`queued` and `running` until it ends `delivered`, `failed` (after its retries) or `skipped` (the worker is no longer bound)',
  ),
  attempts: z.number().int().min(0),
  deliveryChannel: DeliveryChannel,
  startedAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
  error: text().nullable().describe('why the run failed or was skipped, in words'),
  briefing: text().nullable().describe('the briefing delivered (Markdown, at most 4000 characters)'),
});

const runsFields = queryFields({
  limit: intField({ min: 1, max: 100, default: 20, description: 'runs, newest first' }),
});
export const SummaryRunsQuery = runsFields.query;
export const SummaryRunsResponse = z.strictObject({ runs: z.array(SummaryRun) });
export const RunNowResponse = z.strictObject({ runId: z.uuid() });

export type DeliveryChannel = z.infer<typeof DeliveryChannel>;
export type SummaryConfigRequest = z.infer<typeof SummaryConfigRequest>;
export type SummaryConfig = z.infer<typeof SummaryConfig>;
export type SummaryRun = z.infer<typeof SummaryRun>;
