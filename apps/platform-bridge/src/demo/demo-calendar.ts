import { addDays, type Clock, fromDateString, londonDate } from '../lib/clock.ts';

// Every demo date is an offset from the London calendar day of the seeding clock, so that a demo seeded
// today and read next month still tells a coherent story, and a test with a fixed clock sees fixed data.
export interface DemoCalendar {
  /** Today in Europe/London, YYYY-MM-DD. */
  today: string;
  now: Date;
  /** The calendar date `offset` days from today (negative = past), YYYY-MM-DD. */
  iso(offset: number): string;
  /** The same as a Prisma `@db.Date` value. */
  date(offset: number): Date;
  /** An instant `hours` before now. */
  hoursAgo(hours: number): Date;
  /** An instant `days` before now, at roughly the same time of day. */
  daysAgo(days: number): Date;
}

export function createCalendar(clock: Clock): DemoCalendar {
  const now = clock.now();
  const today = londonDate(now);
  return {
    today,
    now,
    iso: (offset) => addDays(today, offset),
    date: (offset) => fromDateString(addDays(today, offset)),
    hoursAgo: (hours) => new Date(now.getTime() - Math.round(hours * 3_600_000)),
    daysAgo: (days) => new Date(now.getTime() - days * 86_400_000),
  };
}

// the demo's dates and the rules' use the same month arithmetic
export { addMonths } from '../lib/clock.ts';

// FNV-1a: a stable, dependency-free way to vary numbers per property so the data does not look templated
// while staying identical from run to run.
export function stableHash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

/** A stable integer in [min, max] chosen by `key`. */
export function within(key: string, min: number, max: number): number {
  return min + (stableHash(key) % (max - min + 1));
}

/** A stable string of `length` decimal digits chosen by `key`. */
export function digits(key: string, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i++) out += String(stableHash(`${key}#${i}`)).padStart(10, '0');
  return out.slice(0, length);
}
