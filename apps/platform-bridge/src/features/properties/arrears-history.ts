import { addDays, fromDateString } from '../../lib/clock.ts';
import type { Db, Tx } from '../../lib/db.ts';

/** How far back `arrears_30_days_ago_pence` looks, in days (the portfolio read's statement says 30 too). */
export const ARREARS_LOOKBACK_DAYS = 30;

/**
 * A property's arrears as they stood `ARREARS_LOOKBACK_DAYS` before `today` (YYYY-MM-DD, London): the newest row of
 * its history (property_arrears_days, kept by a trigger) on or before that day, or null when the history began
 * later, so "not known" is never shown as "none".
 */
export async function arrearsDaysAgo(db: Db | Tx, tenantId: number, propertyId: number, today: string) {
  const row = await db.propertyArrearsDay.findFirst({
    where: { tenantId, propertyId, onDate: { lte: fromDateString(addDays(today, -ARREARS_LOOKBACK_DAYS)) } },
    orderBy: { onDate: 'desc' },
    select: { arrearsPence: true },
  });
  return row ? row.arrearsPence : null;
}
