import type { Db } from '../../lib/db.ts';

export interface SummaryRow {
  properties_total: number;
  units_total: number;
  units_occupied: number;
  arrears_pence: bigint;
  rent_roll_monthly_pence: bigint;
  valid: number;
  expiring_soon: number;
  expired: number;
  missing: number;
  stale: number;
  open_deals: number;
  pipeline_value_pence: bigint;
}

export interface PageRow {
  id: number;
  ref: string;
  line1: string;
  line2: string | null;
  town: string;
  county: string | null;
  postcode: string;
  property_type: string;
  bedrooms: number;
  letting_status: string;
  is_hmo: boolean;
  compliance_status: string | null;
  rent_pence: number | null;
  rent_frequency: string | null;
}

export function createPortfolioRepository(db: Db) {
  return {
    /**
     * One page of properties with their current tenancy's rent and rollup status, in one statement. The page is
     * cut from properties alone first, then joined: joined before the LIMIT, the planner merge-joined the
     * rollups over their primary key and walked other tenants' rows to reach the page. The row comparison is
     * an index condition only on the (tenant_id, id) index; with `id > x` the planner preferred walking the
     * primary key and filtering on the tenant (3-35 ms at 100,000 properties instead of 0.5 ms).
     */
    page: (tenantId: number, afterId: number, limit: number) =>
      db.$queryRaw<PageRow[]>`
        SELECT p.id, p.ref, p.line1, p.line2, p.town, p.county, p.postcode, p.property_type, p.bedrooms,
               p.letting_status, p.is_hmo, r.status AS compliance_status, t.rent_pence, t.rent_frequency
          FROM (SELECT * FROM properties
                 WHERE tenant_id = ${tenantId} AND (tenant_id, id) > (${tenantId}, ${afterId})
                 ORDER BY id
                 LIMIT ${limit}) p
          LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
          LEFT JOIN LATERAL (
                SELECT rent_pence, rent_frequency
                  FROM tenancies
                 WHERE tenant_id = p.tenant_id AND property_id = p.id AND status <> 'ended'
                 ORDER BY start_date DESC, id DESC
                 LIMIT 1) t ON true
         ORDER BY p.id`,

    /**
     * The tenant's maintained summary row (portfolio_summaries, kept by triggers): one primary-key read whatever
     * the portfolio's size. `stale` is 1 when some rollup is missing or older than `today`, so that the caller
     * can refresh them and read again.
     */
    async summary(tenantId: number, today: Date): Promise<SummaryRow> {
      const rows = await db.$queryRaw<SummaryRow[]>`
        SELECT properties_total, units_total, units_occupied, arrears_pence,
               round(rent_roll_monthly_pence)::bigint AS rent_roll_monthly_pence,
               valid, expiring_soon, expired, missing,
               (CASE WHEN properties_total > 0
                      AND (rollups_day IS NULL OR rollups_day < ${today}::date
                           OR rollups_on_day < properties_total) THEN 1 ELSE 0 END)::int AS stale,
               open_deals, pipeline_value_pence
          FROM portfolio_summaries
         WHERE tenant_id = ${tenantId}`;
      // every tenant gets its row when created (migration 20261123145926_portfolio_summary)
      if (!rows[0]) throw new Error(`tenant ${tenantId} has no portfolio_summaries row`);
      return rows[0];
    },
  };
}
export type PortfolioRepository = ReturnType<typeof createPortfolioRepository>;
