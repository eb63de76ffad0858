import type { PortfolioProperty } from '@pa/contracts';
import { daysBetween } from './dates.ts';

// Arrears, tenancies ending and empty units, from the portfolio page alone.

/** Properties with arrears, largest first. */
export function arrearsByProperty(properties: PortfolioProperty[]): PortfolioProperty[] {
  return properties
    .filter((p) => p.arrears_pence > 0)
    .sort((a, b) => b.arrears_pence - a.arrears_pence || a.ref.localeCompare(b.ref));
}

export interface ArrearsTrend {
  property: PortfolioProperty;
  /** arrears now less arrears 30 days ago (the bridge's history), in pence; null when the bridge does not know */
  changePence: number | null;
}

/**
 * Properties with arrears, those whose arrears grew in the last 30 days first (the largest rise first), then the
 * rest largest first: a debt that is growing needs the call before one that is being paid off or standing still.
 */
export function arrearsTrends(properties: PortfolioProperty[]): ArrearsTrend[] {
  const trends = arrearsByProperty(properties).map((property) => ({
    property,
    changePence:
      property.arrears_30_days_ago_pence === null
        ? null
        : property.arrears_pence - property.arrears_30_days_ago_pence,
  }));
  const rise = (t: ArrearsTrend) => Math.max(0, t.changePence ?? 0);
  // stable: within the same rise (0 for all that did not grow) the largest arrears stay first
  return trends.sort((a, b) => rise(b) - rise(a));
}

export function totalArrears(properties: PortfolioProperty[]): number {
  return properties.reduce((sum, p) => sum + p.arrears_pence, 0);
}

export interface TenancyEnding {
  property: PortfolioProperty;
  endDate: string;
  days: number;
  noticeGiven: boolean;
}

/**
 * Current tenancies whose end date falls between today and `until` (inclusive), soonest first, plus, when
 * `withNotice`, every tenancy under notice whatever its date. A tenancy with no end date (periodic, open-ended)
 * never ends by date.
 */
export function tenanciesEnding(
  properties: PortfolioProperty[],
  today: string,
  until: string,
  withNotice = true,
): TenancyEnding[] {
  const out: TenancyEnding[] = [];
  for (const p of properties) {
    if (p.tenancy_status !== 'active' && p.tenancy_status !== 'notice_given') continue;
    const notice = p.tenancy_status === 'notice_given';
    const end = p.tenancy_end_date;
    const inWindow = end !== null && end >= today && end <= until;
    if (!inWindow && !(withNotice && notice)) continue;
    if (end === null) continue;
    out.push({ property: p, endDate: end, days: daysBetween(today, end), noticeGiven: notice });
  }
  return out.sort((a, b) => a.days - b.days || a.property.ref.localeCompare(b.property.ref));
}

/** Tenancies under notice, soonest end first (those without an end date last). */
export function noticeGiven(properties: PortfolioProperty[]): PortfolioProperty[] {
  return properties
    .filter((p) => p.tenancy_status === 'notice_given')
    .sort((a, b) => (a.tenancy_end_date ?? '9999').localeCompare(b.tenancy_end_date ?? '9999'));
}

export interface VacantFacts {
  /** properties with units and none of them occupied, whatever their letting status */
  voids: PortfolioProperty[];
  /** multi-unit properties with some units empty */
  partlyVacant: PortfolioProperty[];
  vacantUnits: number;
}

export function vacancies(properties: PortfolioProperty[]): VacantFacts {
  const voids = properties.filter((p) => p.units_total > 0 && p.units_occupied === 0);
  const partlyVacant = properties.filter(
    (p) => p.units_total > 1 && p.units_occupied > 0 && p.units_occupied < p.units_total,
  );
  const vacantUnits = properties.reduce((n, p) => n + Math.max(0, p.units_total - p.units_occupied), 0);
  return { voids, partlyVacant, vacantUnits };
}

/** Monthly equivalent of one property's current rent (weekly × 52 / 12, annual / 12), in pence. */
export function monthlyRent(p: PortfolioProperty): number {
  if (p.rent_pence === null) return 0;
  if (p.rent_frequency === 'weekly') return Math.round((p.rent_pence * 52) / 12);
  if (p.rent_frequency === 'annually') return Math.round(p.rent_pence / 12);
  return p.rent_pence;
}
