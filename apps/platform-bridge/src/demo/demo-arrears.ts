import type { DemoCalendar } from './demo-calendar.ts';
import type { Portfolio } from './demo-portfolio.ts';

// The demo's arrears history (property_arrears_days): each property starts with its current arrears today, and
// three tell a story over the last weeks, so that "arrears 30 days ago" differs: MAN-004's grew (a missed month
// and a part payment), LDS-004's fell (the sharers paid a week off), LON-005's stayed where they were. Every
// history ends at the property's current arrears (demo-properties.ts).

export interface ArrearsDayRow {
  ref: string;
  onDate: Date;
  arrearsPence: number;
}

/** Earlier values, newest last: days before today and the arrears at the end of that day. */
export const ARREARS_HISTORY: Record<string, Array<{ daysAgo: number; pence: number }>> = {
  // up £450 in the last 30 days: £700 then, £1,150 now
  'MAN-004': [
    { daysAgo: 80, pence: 56_000 },
    { daysAgo: 45, pence: 70_000 },
    { daysAgo: 12, pence: 115_000 },
  ],
  // down £285: £570 then, £285 now
  'LDS-004': [
    { daysAgo: 50, pence: 57_000 },
    { daysAgo: 10, pence: 28_500 },
  ],
  // unchanged: £640 for 50 days
  'LON-005': [{ daysAgo: 50, pence: 64_000 }],
};

export function buildArrearsHistory(cal: DemoCalendar, portfolio: Portfolio): ArrearsDayRow[] {
  const rows: ArrearsDayRow[] = [];
  for (const p of portfolio.properties) {
    const current = p.arrearsPence ?? 0;
    const earlier = ARREARS_HISTORY[p.ref] ?? [];
    const last = earlier.at(-1);
    if (last && last.pence !== current) {
      throw new Error(`demo: ${p.ref}'s arrears history ends at ${last.pence}, not its arrears ${current}`);
    }
    for (const e of earlier) rows.push({ ref: p.ref, onDate: cal.date(-e.daysAgo), arrearsPence: e.pence });
    // a property without a story starts its history today, as the trigger starts a new one
    if (!last) rows.push({ ref: p.ref, onDate: cal.date(0), arrearsPence: current });
  }
  return rows;
}
