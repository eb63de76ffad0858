import { describe, expect, it } from 'vitest';
import {
  nextRunAt,
  normaliseSchedule,
  scheduleProblem,
  upcomingRuns,
} from '../src/features/daily-summary/next-run.ts';

// The next run of a schedule in its zone (cron-parser with tz), across both of 2026's clock changes in London:
// BST starts at 01:00 GMT on Sunday 29 March (01:00 → 02:00 local), and ends at 01:00 GMT on Sunday 25 October
// (02:00 BST → 01:00 GMT).

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('nextRunAt: 0 8 * * * in Europe/London', () => {
  it('runs at 08:00 local on every day around the spring change: 08:00Z before it, 07:00Z from the Sunday on', () => {
    const runs = upcomingRuns('0 8 * * *', 'Europe/London', new Date('2026-03-26T12:00:00Z'), 5);
    expect(iso(runs)).toEqual([
      '2026-03-27T08:00:00.000Z',
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z', // the change is at 01:00, so that Sunday's 08:00 is already BST
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
    ]);
  });

  it('runs at 08:00 local on every day around the autumn change: 07:00Z before it, 08:00Z from the Sunday on', () => {
    const runs = upcomingRuns('0 8 * * *', 'Europe/London', new Date('2026-10-22T12:00:00Z'), 5);
    expect(iso(runs)).toEqual([
      '2026-10-23T07:00:00.000Z',
      '2026-10-24T07:00:00.000Z',
      '2026-10-25T08:00:00.000Z',
      '2026-10-26T08:00:00.000Z',
      '2026-10-27T08:00:00.000Z',
    ]);
  });

  it('neither skips nor doubles a day from an hour before each change to an hour after', () => {
    for (const from of ['2026-03-29T00:00:00Z', '2026-03-29T02:00:00Z', '2026-10-25T00:30:00Z']) {
      const runs = upcomingRuns('0 8 * * *', 'Europe/London', new Date(from), 3);
      const days = runs.map((d) =>
        d.toLocaleDateString('en-GB', { timeZone: 'Europe/London', dateStyle: 'short' }),
      );
      expect(new Set(days).size).toBe(3);
      const times = runs.map((d) =>
        d.toLocaleTimeString('en-GB', { timeZone: 'Europe/London', timeStyle: 'short' }),
      );
      expect(times).toEqual(['08:00', '08:00', '08:00']);
    }
  });

  it('is the same day’s run when asked before 08:00, and the next day’s after it', () => {
    expect(nextRunAt('0 8 * * *', 'Europe/London', new Date('2026-03-29T06:59:59Z')).toISOString()).toBe(
      '2026-03-29T07:00:00.000Z',
    );
    expect(nextRunAt('0 8 * * *', 'Europe/London', new Date('2026-03-29T07:00:00Z')).toISOString()).toBe(
      '2026-03-30T07:00:00.000Z',
    );
    expect(nextRunAt('0 8 * * *', 'Europe/London', new Date('2026-10-25T07:30:00Z')).toISOString()).toBe(
      '2026-10-25T08:00:00.000Z',
    );
  });

  it('follows the zone it is given: 08:00 in New York is 13:00Z in winter', () => {
    expect(nextRunAt('0 8 * * *', 'America/New_York', new Date('2026-01-10T00:00:00Z')).toISOString()).toBe(
      '2026-01-10T13:00:00.000Z',
    );
    expect(nextRunAt('0 8 * * *', 'UTC', new Date('2026-01-10T00:00:00Z')).toISOString()).toBe(
      '2026-01-10T08:00:00.000Z',
    );
  });
});

describe('nextRunAt: a schedule inside the hour the clocks skip or repeat', () => {
  it('30 1 * * * on 29 March 2026 (01:30 does not exist in London) runs an hour late, at 02:30 BST, not never', () => {
    const runs = upcomingRuns('30 1 * * *', 'Europe/London', new Date('2026-03-28T12:00:00Z'), 3);
    expect(iso(runs)).toEqual([
      // the day is kept: the skipped 01:30 is run at 01:30Z, which London calls 02:30 BST
      '2026-03-29T01:30:00.000Z',
      '2026-03-30T00:30:00.000Z',
      '2026-03-31T00:30:00.000Z',
    ]);
    expect(runs[0]!.toLocaleTimeString('en-GB', { timeZone: 'Europe/London', timeStyle: 'short' })).toBe(
      '02:30',
    );
  });

  it('30 1 * * * on 25 October 2026 (01:30 happens twice in London) runs once, at the first 01:30 (BST)', () => {
    const runs = upcomingRuns('30 1 * * *', 'Europe/London', new Date('2026-10-24T12:00:00Z'), 3);
    expect(iso(runs)).toEqual([
      '2026-10-25T00:30:00.000Z', // 01:30 BST; the second 01:30 (GMT, 01:30Z) is not run again
      '2026-10-26T01:30:00.000Z',
      '2026-10-27T01:30:00.000Z',
    ]);
  });
});

describe('scheduleProblem', () => {
  it('accepts five-field expressions cron-parser can run, names and lists included', () => {
    for (const ok of ['0 8 * * *', '30 7 * * 1-5', '0 8,18 * * MON,THU', '*/15 6-9 * * *', '0 8 L * *']) {
      expect(scheduleProblem(ok), ok).toBeNull();
    }
  });

  it('refuses what cron-parser refuses, with its reason', () => {
    expect(scheduleProblem('60 8 * * *')).toMatch(/not a valid cron expression.*0-59/);
    expect(scheduleProblem('0 25 * * *')).toMatch(/0-23/);
    expect(scheduleProblem('0 8 30 2 *')).toMatch(/not a valid cron expression/);
    expect(scheduleProblem('a b c d e')).toMatch(/not a valid cron expression/);
    expect(scheduleProblem('*/0 * * * *')).toMatch(/not a valid cron expression/);
  });

  it('refuses anything but five fields, and H, whose time is not fixed', () => {
    expect(scheduleProblem('0 0 8 * * *')).toMatch(/five-field/);
    expect(scheduleProblem('0 8 * *')).toMatch(/five-field/);
    expect(scheduleProblem('H 8 * * *')).toMatch(/H \(hashed\)/);
    expect(scheduleProblem('0 8 * * H(1-5)')).toMatch(/H \(hashed\)/);
  });

  it('normalises the spacing it stores', () => {
    expect(normaliseSchedule('  0   8 *\t* *  ')).toBe('0 8 * * *');
  });
});
