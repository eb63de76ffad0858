import { Prisma } from '../../generated/prisma/client.ts';
import type { Db, Tx } from '../../lib/db.ts';
import { ALARM_CHECK_LEAD_DAYS, LET_STATUSES, REQUIRED_TYPES, TYPE_RULES } from './compliance-rules.ts';
import { recordComplianceTransitions, type Transition } from './compliance-events.ts';

// compliance-rules.ts's evaluateProperty as one set-based statement: evaluating a whole tenant (100,000
// properties, 565,000 items) in JavaScript meant loading every property with its items through Prisma batch by
// batch (about 26 s); here PostgreSQL evaluates and upserts them in place. The constants come from
// compliance-rules.ts; the conditions mirror evaluateItem line by line (rollup-statement.test.ts compares the two
// over every combination). Writing the rollups fires the trigger that keeps portfolio_summaries true.

// Each type: its window (null: none) and its bit, so that the types a property holds are one integer (bit_or) and
// its missing ones a count of bits, instead of an array per property and a subquery over it.
const TYPES = Object.entries(TYPE_RULES);
const TYPE_NAMES = TYPES.map(([type]) => type);
const TYPE_WINDOWS = TYPES.map(([, r]) => r.windowDays);
const TYPE_BITS = TYPES.map((_, i) => 2 ** i);
const maskOf = (types: readonly string[]) => types.reduce((m, t) => m | (2 ** TYPE_NAMES.indexOf(t)), 0);
const REQUIRED_MASKS = {
  let: maskOf(REQUIRED_TYPES.let),
  gas: maskOf(REQUIRED_TYPES.gas),
  hmo: maskOf(REQUIRED_TYPES.hmo),
  deposit: maskOf(REQUIRED_TYPES.deposit),
};

export interface RollupScope {
  /** only these properties (ids of other tenants are ignored) */
  ids?: number[];
  /** only properties without a rollup or with one evaluated before `today` */
  staleOnly?: boolean;
}

/**
 * Evaluates the tenant's properties in scope for `today` (YYYY-MM-DD, London) and upserts their rollups. Given a
 * transaction, it runs inside it (a writer refreshing the properties it changed before it commits).
 */
export async function writeRollups(
  db: Db | Tx,
  tenantId: number,
  today: string,
  scope: RollupScope,
): Promise<number> {
  // The properties are chosen first and passed as an array: the planner then knows how many there are (one or
  // 100,000). Chosen inside the statement, their count is a guess from statistics that a day rollover has just
  // made wrong, and a guess of one row turned the joins into nested loops (minutes at 10,000 properties).
  const ids = scope.staleOnly
    ? await staleIds(db, tenantId, today, scope.ids)
    : (scope.ids ?? (await staleIds(db, tenantId, null, undefined)));
  if (ids.length === 0) return 0;
  const statement = rollupStatement(tenantId, today, ids);
  // The rollups and the events of the items that entered expiring_soon or expired commit together.
  const run = async (tx: Tx) => {
    const [row] = await tx.$queryRaw<Array<{ rollups: number; transitions: string }>>(statement);
    await recordComplianceTransitions(tx, tenantId, JSON.parse(row?.transitions ?? '[]') as Transition[]);
    return row?.rollups ?? 0;
  };
  if (!('$transaction' in db)) return run(db);
  if (ids.length <= 1000) return db.$transaction(run);
  // A whole tenant is one large statement: JIT compiling it costs more than it saves (about 1 s), and the
  // default work_mem makes its hash joins and aggregate spill to disk.
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SET LOCAL jit = off`;
      await tx.$executeRaw`SET LOCAL work_mem = '64MB'`;
      return run(tx);
    },
    { maxWait: 10_000, timeout: 600_000 },
  );
}

/** The upsert of the rollups of properties `ids` of the tenant, evaluated for `today`. */
export function rollupStatement(tenantId: number, today: string, ids: number[]): Prisma.Sql {
  return Prisma.sql`
    WITH cur AS (
      -- each property's current tenancy, as property-repository.ts's currentTenancy picks it: in one pass over the
      -- tenancies in scope rather than a lookup and a sort per property
      SELECT DISTINCT ON (t.property_id) t.property_id, t.start_date, t.deposit_pence
        FROM tenancies t
       WHERE t.tenant_id = ${tenantId} AND t.property_id = ANY(${ids}::int[]) AND t.status <> 'ended'
       ORDER BY t.property_id, t.start_date DESC, t.id DESC
    ), facts AS MATERIALIZED (
      SELECT p.id, cur.start_date, cur.start_date IS NOT NULL AS has_tenancy,
             p.letting_status = ANY(${LET_STATUSES}::text[]) OR cur.start_date IS NOT NULL AS is_let,
             p.has_gas, p.is_hmo, coalesce(cur.deposit_pence, 0) <> 0 AS has_deposit
        FROM properties p
        LEFT JOIN cur ON cur.property_id = p.id
       WHERE p.tenant_id = ${tenantId} AND p.id = ANY(${ids}::int[])
    ), items AS (
      SELECT i.id AS item_id, i.property_id, i.type, i.notified_status AS prev, w.bit,
             coalesce(i.next_due_date, i.expiry_date) AS due,
             -- a property never evaluated before is baselined silently: no flood of events on a first refresh
             EXISTS (SELECT 1 FROM property_compliance_rollups r WHERE r.property_id = i.property_id) AS seen_before,
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
        LEFT JOIN unnest(${TYPE_NAMES}::text[], ${TYPE_WINDOWS}::int[], ${TYPE_BITS}::int[]) AS w(type, days, bit)
               ON w.type = i.type
        CROSS JOIN LATERAL (
              SELECT CASE WHEN i.type = 'deposit_protection' AND i.issue_date IS NOT NULL THEN NULL
                          ELSE coalesce(i.next_due_date, i.expiry_date) END - ${today}::date AS days_until_due,
                     coalesce(i.outcome = 'unsatisfactory' AND i.remedial_due_date >= ${today}::date, false)
                       AS remedial_open) e
       WHERE i.tenant_id = ${tenantId} AND i.property_id = ANY(${ids}::int[])
    ), per_item AS (
      SELECT property_id,
             count(*) FILTER (WHERE status = 'valid')::int AS valid,
             count(*) FILTER (WHERE status = 'expiring_soon')::int AS expiring_soon,
             count(*) FILTER (WHERE status = 'expired')::int AS expired,
             bit_or(bit) AS held
        FROM items
       GROUP BY property_id
    ), per_property AS (
      SELECT f.id, coalesce(a.valid, 0) AS valid, coalesce(a.expiring_soon, 0) AS expiring_soon,
             coalesce(a.expired, 0) AS expired,
             -- the required types (as bits) the property holds no item of
             bit_count((CASE WHEN f.is_let THEN
                               ${REQUIRED_MASKS.let}::int
                               | CASE WHEN f.has_gas THEN ${REQUIRED_MASKS.gas}::int ELSE 0 END
                               | CASE WHEN f.is_hmo THEN ${REQUIRED_MASKS.hmo}::int ELSE 0 END
                               | CASE WHEN f.has_deposit THEN ${REQUIRED_MASKS.deposit}::int ELSE 0 END
                             ELSE 0 END & ~coalesce(a.held, 0))::bit(32))::int AS missing
        FROM facts f
        LEFT JOIN per_item a ON a.property_id = f.id
    -- Each item's status is noted when it is not valid (or is valid again after not being), so that the items
    -- that just entered expiring_soon or expired are known: valid items, the most, are never written.
    ), noted AS (
      -- (judged first on the status the item was read with, so that only the few changed items are joined to
      -- compliance_items; then again on the row being updated)
      UPDATE compliance_items ci SET notified_status = it.status
        FROM items it
       WHERE it.prev IS DISTINCT FROM it.status AND (it.status <> 'valid' OR it.prev IS NOT NULL)
         AND ci.id = it.item_id AND ci.notified_status IS DISTINCT FROM it.status
         AND (it.status <> 'valid' OR ci.notified_status IS NOT NULL)
      RETURNING ci.id, it.property_id, it.type, it.prev, it.status, it.due, it.seen_before
    ), rolled AS (
      INSERT INTO property_compliance_rollups
             (property_id, tenant_id, status, valid, expiring_soon, expired, missing, evaluated_on)
      SELECT id, ${tenantId},
             CASE WHEN missing > 0 THEN 'missing' WHEN expired > 0 THEN 'expired'
                  WHEN expiring_soon > 0 THEN 'expiring_soon' ELSE 'valid' END,
             valid, expiring_soon, expired, missing, ${today}::date
        FROM per_property
      ON CONFLICT (property_id) DO UPDATE
         SET status = EXCLUDED.status, valid = EXCLUDED.valid, expiring_soon = EXCLUDED.expiring_soon,
             expired = EXCLUDED.expired, missing = EXCLUDED.missing, evaluated_on = EXCLUDED.evaluated_on
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM rolled)::int AS rollups,
           coalesce((SELECT json_agg(json_build_object(
                               'item_id', n.id, 'property_id', n.property_id, 'type', n.type,
                               'previous_status', coalesce(n.prev, 'valid'), 'status', n.status, 'due', n.due)
                             ORDER BY n.id)
                       FROM noted n
                      WHERE n.seen_before AND n.status IN ('expiring_soon', 'expired')), '[]')::text
             AS transitions`;
}

/** The tenant's properties (among `among`, if given) whose rollup is missing or older than `today` (null: all). */
async function staleIds(db: Db | Tx, tenantId: number, today: string | null, among: number[] | undefined) {
  const rows = await db.$queryRaw<Array<{ ids: number[] | null }>>`
    SELECT array_agg(p.id) AS ids
      FROM properties p
      LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
     WHERE p.tenant_id = ${tenantId}
       AND (${among ?? null}::int[] IS NULL OR p.id = ANY(${among ?? null}::int[]))
       AND (${today}::date IS NULL OR r.property_id IS NULL OR r.evaluated_on < ${today}::date)`;
  return rows[0]?.ids ?? [];
}
