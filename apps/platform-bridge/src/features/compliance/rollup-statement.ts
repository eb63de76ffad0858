import type { Db } from '../../lib/db.ts';
import { ALARM_CHECK_LEAD_DAYS, LET_STATUSES, REQUIRED_TYPES, TYPE_RULES } from './compliance-rules.ts';

// compliance-rules.ts's evaluateProperty as one set-based statement: evaluating a whole tenant (100,000
// properties, 565,000 items) in JavaScript meant loading every property with its items through Prisma batch by
// batch (about 26 s); here PostgreSQL evaluates and upserts them in place. The constants come from
// compliance-rules.ts; the conditions mirror evaluateItem line by line (rollup-statement.test.ts compares the two
// over every combination). Writing the rollups fires the trigger that keeps portfolio_summaries true.

const WINDOWS = Object.entries(TYPE_RULES).filter(([, r]) => r.windowDays !== null);
const WINDOW_TYPES = WINDOWS.map(([type]) => type);
const WINDOW_DAYS = WINDOWS.map(([, r]) => r.windowDays!);

export interface RollupScope {
  /** only these properties */
  ids?: number[];
  /** only properties without a rollup or with one evaluated before `today` */
  staleOnly?: boolean;
}

/** Evaluates the tenant's properties in scope for `today` (YYYY-MM-DD, London) and upserts their rollups. */
export function writeRollups(db: Db, tenantId: number, today: string, scope: RollupScope): Promise<number> {
  return db.$executeRaw`
    WITH scope AS (
      SELECT p.id, p.letting_status, p.has_gas, p.is_hmo
        FROM properties p
        LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
       WHERE p.tenant_id = ${tenantId}
         AND (${scope.ids ?? null}::int[] IS NULL OR p.id = ANY(${scope.ids ?? null}::int[]))
         AND (NOT ${scope.staleOnly ?? false} OR r.property_id IS NULL OR r.evaluated_on < ${today}::date)
    ), cur AS (
      -- the current tenancy, as property-repository.ts's currentTenancy picks it
      SELECT DISTINCT ON (t.property_id) t.property_id, t.start_date, t.deposit_pence
        FROM tenancies t
        JOIN scope s ON s.id = t.property_id
       WHERE t.tenant_id = ${tenantId} AND t.status <> 'ended'
       ORDER BY t.property_id, t.start_date DESC, t.id DESC
    ), facts AS (
      SELECT s.id, cur.property_id IS NOT NULL AS has_tenancy, cur.start_date,
             s.letting_status = ANY(${LET_STATUSES}::text[]) OR cur.property_id IS NOT NULL AS is_let,
             s.has_gas, s.is_hmo, coalesce(cur.deposit_pence, 0) <> 0 AS has_deposit
        FROM scope s
        LEFT JOIN cur ON cur.property_id = s.id
    ), items AS (
      SELECT i.property_id, i.type,
             CASE WHEN e.days_until_due < 0
                    OR i.outcome = 'fail'
                    OR (i.outcome = 'unsatisfactory' AND NOT e.remedial_open)
                    OR (i.type = 'epc' AND i.rating IN ('F', 'G')
                        AND NOT coalesce(i.exemption_valid_until >= ${today}::date, false))
                    OR (i.type = 'smoke_co_alarms' AND f.has_tenancy
                        AND (i.issue_date IS NULL
                             OR i.issue_date < f.start_date - ${ALARM_CHECK_LEAD_DAYS}::int))
                  THEN 'expired'
                  WHEN e.days_until_due <= w.days OR e.remedial_open THEN 'expiring_soon'
                  ELSE 'valid' END AS status
        FROM compliance_items i
        JOIN facts f ON f.id = i.property_id
        LEFT JOIN unnest(${WINDOW_TYPES}::text[], ${WINDOW_DAYS}::int[]) AS w(type, days) ON w.type = i.type
        CROSS JOIN LATERAL (
              SELECT CASE WHEN i.type = 'deposit_protection' AND i.issue_date IS NOT NULL THEN NULL
                          ELSE coalesce(i.next_due_date, i.expiry_date) END - ${today}::date AS days_until_due,
                     coalesce(i.outcome = 'unsatisfactory' AND i.remedial_due_date >= ${today}::date, false)
                       AS remedial_open) e
       WHERE i.tenant_id = ${tenantId}
    ), per_property AS (
      SELECT f.id,
             count(i.status) FILTER (WHERE i.status = 'valid')::int AS valid,
             count(i.status) FILTER (WHERE i.status = 'expiring_soon')::int AS expiring_soon,
             count(i.status) FILTER (WHERE i.status = 'expired')::int AS expired,
             (SELECT count(*)::int
                FROM unnest(CASE WHEN f.is_let THEN
                                   ${REQUIRED_TYPES.let}::text[]
                                   || CASE WHEN f.has_gas THEN ${REQUIRED_TYPES.gas}::text[] ELSE '{}' END
                                   || CASE WHEN f.is_hmo THEN ${REQUIRED_TYPES.hmo}::text[] ELSE '{}' END
                                   || CASE WHEN f.has_deposit THEN ${REQUIRED_TYPES.deposit}::text[] ELSE '{}' END
                                 ELSE '{}'::text[] END) AS req(type)
               WHERE NOT req.type = ANY(array_remove(array_agg(i.type), NULL))) AS missing
        FROM facts f
        LEFT JOIN items i ON i.property_id = f.id
       GROUP BY f.id, f.is_let, f.has_gas, f.is_hmo, f.has_deposit
    )
    INSERT INTO property_compliance_rollups
           (property_id, tenant_id, status, valid, expiring_soon, expired, missing, evaluated_on)
    SELECT id, ${tenantId},
           CASE WHEN missing > 0 THEN 'missing' WHEN expired > 0 THEN 'expired'
                WHEN expiring_soon > 0 THEN 'expiring_soon' ELSE 'valid' END,
           valid, expiring_soon, expired, missing, ${today}::date
      FROM per_property
    ON CONFLICT (property_id) DO UPDATE
       SET status = EXCLUDED.status, valid = EXCLUDED.valid, expiring_soon = EXCLUDED.expiring_soon,
           expired = EXCLUDED.expired, missing = EXCLUDED.missing, evaluated_on = EXCLUDED.evaluated_on`;
}
