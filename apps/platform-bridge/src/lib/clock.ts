// Compliance is judged on calendar dates in Europe/London, so "today" depends on the clock and that zone,
// not on the server's time zone. Tests pass a fixed clock.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

const londonDay = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/London',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

// London's offset from UTC has been whole hours since 1847, so its date changes only on a UTC minute's boundary: one answer per
// minute is exact. Formatting with a time zone costs ~25 µs, and every portfolio or compliance read asks.
let memo = { minute: Number.NaN, date: '' };

/** The calendar date in Europe/London at `instant`, as YYYY-MM-DD. */
export function londonDate(instant: Date): string {
  const minute = Math.floor(instant.getTime() / 60_000);
  if (minute !== memo.minute) memo = { minute, date: londonDay.format(instant) };
  return memo.date;
}

/** Whole days from `from` to `to` (both YYYY-MM-DD); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** YYYY-MM-DD plus whole calendar months, clamped to the month's last day (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const first = new Date(Date.UTC(y, m - 1 + months, 1));
  const lastDay = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(d, lastDay));
  return first.toISOString().slice(0, 10);
}

/** A Prisma `@db.Date` value (midnight UTC) as YYYY-MM-DD. */
export function toDateString(value: Date): string;
export function toDateString(value: Date | null): string | null;
export function toDateString(value: Date | null): string | null {
  return value ? value.toISOString().slice(0, 10) : null;
}

export function fromDateString(value: string): Date {
  return new Date(`${value}T00:00:00Z`);
}
