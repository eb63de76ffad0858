import { CronExpressionParser } from 'cron-parser';

// A summary schedule is a five-field cron expression read in an IANA zone. cron-parser (through Luxon) does the
// zone arithmetic, so 08:00 in London is 08:00Z in winter and 07:00Z in summer, and a clock change neither skips
// nor doubles a day. BullMQ's job scheduler uses the same parser for the same pattern and zone, so the time
// computed here is the time the job fires.

/** The schedule as stored: the fields separated by single spaces. */
export function normaliseSchedule(schedule: string): string {
  return schedule.trim().split(/\s+/).join(' ');
}

/**
 * Why cron-parser refuses the schedule, in words; null when it is a usable five-field expression. `H` (hashed
 * values) is refused too: without a seed it picks a different minute each time it is parsed, so the time shown
 * would not be the time it runs.
 */
export function scheduleProblem(schedule: string): string | null {
  const fields = normaliseSchedule(schedule).split(' ');
  if (fields.length !== 5) {
    return 'must be a five-field cron expression (minute hour day-of-month month day-of-week), e.g. "0 8 * * *"';
  }
  if (fields.some((f) => f.split(',').some((part) => /^H(\(|\/|$)/i.test(part)))) {
    return 'must not use H (hashed) values: the time they stand for is not fixed';
  }
  try {
    CronExpressionParser.parse(fields.join(' '), { tz: 'UTC' }).next();
    return null;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return `is not a valid cron expression (${reason.replace(/\.$/, '')})`;
  }
}

/** The schedule's fire times after `from`, in order (UTC instants). */
export function upcomingRuns(schedule: string, timezone: string, from: Date, count: number): Date[] {
  const it = CronExpressionParser.parse(normaliseSchedule(schedule), { tz: timezone, currentDate: from });
  return Array.from({ length: count }, () => it.next().toDate());
}

/** The schedule's next fire time after `from`. */
export function nextRunAt(schedule: string, timezone: string, from: Date): Date {
  return upcomingRuns(schedule, timezone, from, 1)[0]!;
}
