import type { OwedCopyStatus } from '@pa/contracts';
import { type Db, type StatementRunner, statementRunner } from '../../lib/db.ts';
import { TENANT_COPY_DAYS, TENANT_COPY_TYPES } from './compliance-rules.ts';
import { currentTenancy } from './current-tenancy.ts';
import type { CopyPosition } from './tenant-copy-cursor.ts';

// The portfolio-wide read of tenant copies owed: compliance-rules.ts's tenantCopy as one statement, so that a
// tenant's whole portfolio is one keyset walk of the compliance_items (tenant_id, property_id) index rather than
// a read per property. Each row's current tenancy is the one currentTenancy (current-tenancy.ts) picks, found
// through the tenancies (tenant_id, property_id) index. The due date's two cases are written as comparisons of
// the stored dates with constants (`issue_date < today - 28`), never as a date computed per row and compared,
// so that the planner can use them; tenant-copies.test.ts holds the statement to tenantCopy's verdicts.

export interface OwedCopyRow {
  property_id: number;
  id: number;
}

// $1 tenant, $2/$3 the (property id, item id) after which the page starts, $4 page size, $5 today's London
// date, $6/$7 whether copies still due and copies overdue are asked for, $8 the types a copy is owed of.
const OWED_COPIES = {
  name: 'bridge_tenant_copies_owed',
  text: `
        SELECT ci.property_id, ci.id
          FROM compliance_items ci
          JOIN LATERAL (
                SELECT t.start_date
                  FROM tenancies t
                 WHERE t.tenant_id = ci.tenant_id AND t.property_id = ci.property_id AND t.status <> 'ended'
                 ORDER BY t.start_date DESC, t.id DESC
                 LIMIT 1) cur ON true
          -- overdue when today is past the due date: the tenancy's start for a check done before it, else the
          -- check + ${TENANT_COPY_DAYS} days (the ${TENANT_COPY_DAYS}th day itself is still in time)
         CROSS JOIN LATERAL (
                SELECT CASE WHEN ci.issue_date < cur.start_date THEN cur.start_date < $5::date
                            ELSE ci.issue_date < $5::date - ${TENANT_COPY_DAYS} END AS late) d
         WHERE ci.tenant_id = $1
           AND (ci.tenant_id, ci.property_id, ci.id) > ($1, $2, $3)
           AND ci.type = ANY($8::text[])
           AND ci.issue_date IS NOT NULL
           -- not served: a copy dated before the check belongs to an older record
           AND (ci.served_to_tenant_at IS NULL OR ci.served_to_tenant_at < ci.issue_date)
           AND ((d.late AND $7::boolean) OR (NOT d.late AND $6::boolean))
         ORDER BY ci.property_id, ci.id
         LIMIT $4`,
};

export function createTenantCopiesRepository(db: Db, statements: StatementRunner = statementRunner(db)) {
  return {
    /**
     * Up to `limit` (property id, item id) of the tenant's items after `after` whose tenant copy is owed and in
     * `statuses` for `today` (YYYY-MM-DD, London), in that order.
     */
    owed: (
      tenantId: number,
      today: string,
      statuses: readonly OwedCopyStatus[],
      after: CopyPosition,
      limit: number,
    ) =>
      statements<OwedCopyRow>(OWED_COPIES, [
        tenantId,
        after.propertyId,
        after.itemId,
        limit,
        today,
        statuses.includes('due'),
        statuses.includes('overdue'),
        TENANT_COPY_TYPES,
      ]),

    /** These items of the tenant (others' ids are ignored) with the facts of their property the rules need. */
    findWithProperty: (tenantId: number, ids: number[]) =>
      db.complianceItem.findMany({
        where: { tenantId, id: { in: ids } },
        include: {
          property: {
            select: {
              ref: true,
              lettingStatus: true,
              hasGas: true,
              isHmo: true,
              tenancies: { ...currentTenancy, select: { startDate: true, depositPence: true } },
            },
          },
        },
      }),
  };
}
export type TenantCopiesRepository = ReturnType<typeof createTenantCopiesRepository>;
