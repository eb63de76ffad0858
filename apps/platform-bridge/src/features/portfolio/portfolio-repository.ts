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

// The whole-portfolio figures in one statement. `stale` counts properties whose compliance rollup is missing
// or older than `today`, so that the caller can refresh them and ask again.
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
    /** One page of properties with their current tenancy's rent and rollup status, in one statement. */
    page: (tenantId: number, afterId: number, limit: number) =>
      db.$queryRaw<PageRow[]>`
        SELECT p.id, p.ref, p.line1, p.line2, p.town, p.county, p.postcode, p.property_type, p.bedrooms,
               p.letting_status, p.is_hmo, r.status AS compliance_status, t.rent_pence, t.rent_frequency
          FROM properties p
          LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
          LEFT JOIN LATERAL (
                SELECT rent_pence, rent_frequency
                  FROM tenancies
                 WHERE tenant_id = p.tenant_id AND property_id = p.id AND status <> 'ended'
                 ORDER BY start_date DESC, id DESC
                 LIMIT 1) t ON true
         WHERE p.tenant_id = ${tenantId} AND p.id > ${afterId}
         ORDER BY p.id
         LIMIT ${limit}`,

    async summary(tenantId: number, today: Date): Promise<SummaryRow> {
      const rows = await db.$queryRaw<SummaryRow[]>`
        WITH cur AS (
          SELECT DISTINCT ON (property_id) property_id, rent_pence, rent_frequency
            FROM tenancies
           WHERE tenant_id = ${tenantId} AND status <> 'ended'
           ORDER BY property_id, start_date DESC, id DESC
        )
        SELECT count(*)::int AS properties_total,
               coalesce(sum(p.units_total), 0)::int AS units_total,
               coalesce(sum(p.units_occupied), 0)::int AS units_occupied,
               coalesce(sum(p.arrears_pence), 0)::bigint AS arrears_pence,
               round(coalesce(sum(CASE cur.rent_frequency
                                    WHEN 'weekly' THEN cur.rent_pence * 52.0 / 12
                                    WHEN 'annually' THEN cur.rent_pence / 12.0
                                    ELSE cur.rent_pence END), 0))::bigint AS rent_roll_monthly_pence,
               coalesce(sum(r.valid), 0)::int AS valid,
               coalesce(sum(r.expiring_soon), 0)::int AS expiring_soon,
               coalesce(sum(r.expired), 0)::int AS expired,
               coalesce(sum(r.missing), 0)::int AS missing,
               (count(*) FILTER (WHERE r.property_id IS NULL OR r.evaluated_on < ${today}::date))::int AS stale,
               (SELECT count(*)::int FROM deals d WHERE d.tenant_id = ${tenantId} AND d.status = 'open') AS open_deals,
               (SELECT coalesce(sum(d.value_pence), 0)::bigint FROM deals d
                 WHERE d.tenant_id = ${tenantId} AND d.status = 'open') AS pipeline_value_pence
          FROM properties p
          LEFT JOIN cur ON cur.property_id = p.id
          LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
         WHERE p.tenant_id = ${tenantId}`;
      return rows[0]!;
    },
  };
}
export type PortfolioRepository = ReturnType<typeof createPortfolioRepository>;
