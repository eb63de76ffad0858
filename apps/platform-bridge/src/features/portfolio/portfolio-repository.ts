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
export function createPortfolioRepository(db: Db) {
  return {
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
          LEFT JOIN property_compliance_rollups r ON r.property_id = p.id
         WHERE p.tenant_id = ${tenantId}`;
      return rows[0]!;
    },
  };
}
export type PortfolioRepository = ReturnType<typeof createPortfolioRepository>;
