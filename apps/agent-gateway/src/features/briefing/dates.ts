// Calendar arithmetic on London dates (YYYY-MM-DD). Pure: "today" is always a parameter, never the clock.

const DAY_MS = 86_400_000;

function utc(date: string): number {
  return Date.parse(`${date.slice(0, 10)}T00:00:00Z`);
}

/** Whole days from `today` to `date`; negative when `date` is in the past. */
export function daysBetween(today: string, date: string): number {
  return Math.round((utc(date) - utc(today)) / DAY_MS);
}

export function addDays(date: string, days: number): string {
  return new Date(utc(date) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The last day of `today`'s month. */
export function endOfMonth(today: string): string {
  const d = new Date(utc(today));
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
}

/** 31 December of `today`'s year. */
export function endOfYear(today: string): string {
  return `${today.slice(0, 4)}-12-31`;
}

const LONDON_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' });

/** The London date (YYYY-MM-DD) of an ISO timestamp. */
export function londonDate(isoDateTime: string): string {
  return LONDON_DAY.format(new Date(isoDateTime));
}
