import { addDays } from '../../lib/clock.ts';

// The tenancy rules for England after the Renters' Rights Act 2025 (docs/rules-england-2026.md). Like the
// compliance rules they work on London calendar dates (YYYY-MM-DD) and are judged against today, so the stored
// rows never need rewriting when a rule takes effect, and a test with a fixed clock sees either side of the date.

/** The day every assured shorthold tenancy in England became a periodic assured tenancy. */
export const PERIODIC_FROM = '2026-05-01';

/**
 * Section 13(2) Housing Act 1988: a rent increase takes effect no earlier than 52 weeks after the tenancy began,
 * nor 52 weeks after the last increase took effect (so at most one a year).
 */
export const RENT_INCREASE_INTERVAL_DAYS = 52 * 7;

export interface TenancyFacts {
  status: string;
  startDate: string;
  /** when the tenancy ends (a notice's end) or ended */
  endDate: string | null;
  fixedTermEndDate: string | null;
  possessionDate: string | null;
  isPeriodic: boolean;
  lastRentIncreaseOn: string | null;
}

export interface TenancyTerms {
  isPeriodic: boolean;
  /** when it ends: the possession date, else a notice's end; before 1 May 2026 also a fixed term's end */
  endDate: string | null;
  earliestNextIncreaseOn: string;
}

/**
 * A tenancy as the rules read it on `today`. From 1 May 2026 a tenancy that has not ended is periodic whatever
 * was agreed (one that began on or after that day always was): its fixed term is history and ends nothing, so it
 * ends only on a possession date or a notice's end. Before that day a fixed term still ended the tenancy and no
 * increase could take effect within it.
 */
export function tenancyTerms(t: TenancyFacts, today: string): TenancyTerms {
  const isPeriodic =
    t.isPeriodic || (t.status !== 'ended' && (today >= PERIODIC_FROM || t.startDate >= PERIODIC_FROM));
  const endDate =
    t.status === 'ended'
      ? t.endDate
      : (t.possessionDate ?? t.endDate ?? (isPeriodic ? null : t.fixedTermEndDate));
  let earliestNextIncreaseOn = addDays(t.lastRentIncreaseOn ?? t.startDate, RENT_INCREASE_INTERVAL_DAYS);
  if (!isPeriodic && t.fixedTermEndDate) {
    const afterTerm = addDays(t.fixedTermEndDate, 1);
    if (afterTerm > earliestNextIncreaseOn) earliestNextIncreaseOn = afterTerm;
  }
  return { isPeriodic, endDate, earliestNextIncreaseOn };
}

/** The last day a deposit received on `receivedAt` may be protected (Housing Act 2004, s. 213: 30 days). */
export const DEPOSIT_PROTECTION_DAYS = 30;

export function depositProtectionDue(receivedAt: string | null, protectedAt: string | null): string | null {
  return protectedAt || !receivedAt ? null : addDays(receivedAt, DEPOSIT_PROTECTION_DAYS);
}
