import type { AttentionStatus } from '@pa/contracts';
import { type Db, type StatementRunner, statementRunner } from '../../lib/db.ts';
import { currentTenancy } from './current-tenancy.ts';
import { rollupsStale } from './rollup-statement.ts';

// The portfolio-wide compliance read starts from the rollups (property_compliance_rollups): each property's
// counts of expired and expiring-soon items and missing types, evaluated for today by rollup-statement.ts. They
// choose the page of properties that have something in the statuses asked for, walking the (tenant_id,
// property_id) index from the cursor, so a page costs the same at 1,000 properties as at 100,000; the items
// themselves are then judged by compliance-rules.ts, exactly as the per-property read judges them.

export interface CandidateRow {
  /** 1 when the tenant's rollups are stale (rollup-statement.ts's rollupsStale): the caller refreshes and reads again */
  stale: number;
  /** null when the page is empty (the row then only carries `stale`) */
  property_id: number | null;
}

// $1 tenant, $2 property id after which the page starts, $3 page size, $4 today's London date, $5–$7 whether
// expired items, expiring-soon items and missing types are asked for. The staleness test is the portfolio
// read's (rollup-statement.ts's rollupsStale), on the tenant's maintained portfolio_summaries row.
const CANDIDATES = {
  name: 'bridge_portfolio_compliance_candidates',
  text: `
        SELECT (CASE WHEN ${rollupsStale('$4::date')} THEN 1 ELSE 0 END)::int AS stale,
               c.property_id
          FROM portfolio_summaries s
          LEFT JOIN LATERAL (
                SELECT r.property_id
                  FROM property_compliance_rollups r
                 WHERE (r.tenant_id, r.property_id) > ($1, $2)
                   AND (r.tenant_id, r.property_id) <= ($1, 2147483647)
                   AND ((r.expired > 0 AND $5::boolean)
                        OR (r.expiring_soon > 0 AND $6::boolean)
                        OR (r.missing > 0 AND $7::boolean))
                 ORDER BY r.tenant_id, r.property_id
                 LIMIT $3) c ON true
         WHERE s.tenant_id = $1
         ORDER BY c.property_id`,
};

export function createPortfolioComplianceRepository(
  db: Db,
  statements: StatementRunner = statementRunner(db),
) {
  return {
    /**
     * Up to `limit` ids of the tenant's properties after `afterId` whose rollup counts something in `statuses`,
     * ascending, and whether the tenant's rollups are stale (then the ids cannot be trusted).
     */
    async candidates(
      tenantId: number,
      /** today's London date, YYYY-MM-DD */
      today: string,
      statuses: readonly AttentionStatus[],
      afterId: number,
      limit: number,
    ): Promise<{ stale: boolean; ids: number[] }> {
      const rows = await statements<CandidateRow>(CANDIDATES, [
        tenantId,
        afterId,
        limit,
        today,
        statuses.includes('expired'),
        statuses.includes('expiring_soon'),
        statuses.includes('missing'),
      ]);
      const first = rows[0];
      // every tenant gets its row when created (migration 20261123145926_portfolio_summary)
      if (!first) throw new Error(`tenant ${tenantId} has no portfolio_summaries row`);
      return {
        stale: first.stale !== 0,
        ids: rows.flatMap((r) => (r.property_id === null ? [] : [r.property_id])),
      };
    },

    /** The facts the rules need of these properties of the tenant (others' ids are ignored), by id. */
    findWithCompliance: (tenantId: number, ids: number[]) =>
      db.property.findMany({
        where: { tenantId, id: { in: ids } },
        select: {
          id: true,
          ref: true,
          lettingStatus: true,
          hasGas: true,
          isHmo: true,
          tenancies: { ...currentTenancy, select: { startDate: true, depositPence: true } },
          complianceItems: { orderBy: { type: 'asc' } },
        },
        orderBy: { id: 'asc' },
      }),
  };
}
export type PortfolioComplianceRepository = ReturnType<typeof createPortfolioComplianceRepository>;
