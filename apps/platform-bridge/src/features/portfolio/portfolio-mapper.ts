import type { PortfolioResponse } from '@pa/contracts';
import type { SummaryRow } from './portfolio-repository.ts';

/** The tenant's maintained summary row as the portfolio page answers it, with the figures derived from it. */
export function toApiSummary(s: SummaryRow): PortfolioResponse['summary'] {
  return {
    properties_total: s.properties_total,
    units_total: s.units_total,
    units_occupied: s.units_occupied,
    units_vacant: Math.max(0, s.units_total - s.units_occupied),
    occupancy_rate: s.units_total ? Math.round((s.units_occupied / s.units_total) * 10_000) / 10_000 : 0,
    rent_roll_monthly_pence: s.rent_roll_monthly_pence,
    arrears_pence: s.arrears_pence,
    compliance: {
      valid: s.valid,
      expiring_soon: s.expiring_soon,
      expired: s.expired,
      missing: s.missing,
    },
    open_deals: s.open_deals,
    pipeline_value_pence: s.pipeline_value_pence,
  };
}
