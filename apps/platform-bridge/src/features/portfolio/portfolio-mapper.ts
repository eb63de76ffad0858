import type { PortfolioProperty } from '@pa/contracts';
import type { PageRow } from './portfolio-repository.ts';

export function toPortfolioProperty(row: PageRow): PortfolioProperty {
  return {
    id: row.id,
    ref: row.ref,
    address: {
      line1: row.line1,
      line2: row.line2,
      town: row.town,
      county: row.county,
      postcode: row.postcode,
    },
    property_type: row.property_type as PortfolioProperty['property_type'],
    bedrooms: row.bedrooms,
    letting_status: row.letting_status as PortfolioProperty['letting_status'],
    is_hmo: row.is_hmo,
    // the rollup was refreshed just before, so a property without one is new since: judged valid until then
    compliance_status: (row.compliance_status ?? 'valid') as PortfolioProperty['compliance_status'],
    rent_pence: row.rent_pence,
    rent_frequency: row.rent_frequency as PortfolioProperty['rent_frequency'],
    arrears_pence: row.p_arrears_pence,
    units_total: row.p_units_total,
    units_occupied: row.p_units_occupied,
    tenancy_status: row.tenancy_status as PortfolioProperty['tenancy_status'],
    tenancy_end_date: row.tenancy_end_date,
    tenancy_is_periodic: row.tenancy_is_periodic,
  };
}
