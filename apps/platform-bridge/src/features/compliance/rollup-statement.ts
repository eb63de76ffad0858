import type { ComplianceType } from '@pa/contracts';
import { isUniqueViolation } from '@pa/http-kit';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db, Tx } from '../../lib/db.ts';
import { ALARM_CHECK_LEAD_DAYS, LET_STATUSES, REQUIRED_TYPES, TYPE_RULES } from './compliance-rules.ts';
import { recordComplianceTransitions, type Transition } from './compliance-events.ts';

// compliance-rules.ts's evaluateProperty as one set-based statement: evaluating a whole tenant (100,000
// properties, 565,000 items) in JavaScript meant loading every property with its items through Prisma batch by
// batch (about 26 s); here PostgreSQL evaluates them in place and writes the rollups whose figures changed. The
// constants come from compliance-rules.ts; the conditions mirror evaluateItem line by line
// (rollup-statement.test.ts compares the two over every combination). Writing the rollups fires the trigger that
// keeps portfolio_summaries true.

// Each type's bit, so that a set of types is one integer: the types a property holds (bit_or) and its missing
// ones (a count of bits), and the types whose item was expiring soon or expired at the last evaluation, which the
// rollups store (property_compliance_rollups.expiring_types / expired_types). Stored, so a type keeps its bit:
// a new type takes the next free one.
export const TYPE_BITS: Readonly<Record<ComplianceType, number>> = {
  gas_safety: 1,
  eicr: 2,
  epc: 4,
  smoke_co_alarms: 8,
  hmo_licence: 16,
  legionella_risk_assessment: 32,
  fire_risk_assessment: 64,
  deposit_protection: 128,
  right_to_rent: 256,
  pat: 512,
};
const TYPES = Object.entries(TYPE_RULES) as Array<[ComplianceType, (typeof TYPE_RULES)[ComplianceType]]>;
const TYPE_NAMES = TYPES.map(([type]) => type);
const TYPE_WINDOWS = TYPES.map(([, r]) => r.windowDays);
const TYPE_BIT_LIST = TYPES.map(([type]) => TYPE_BITS[type]);
const maskOf = (types: readonly ComplianceType[]) => types.reduce((m, t) => m | TYPE_BITS[t], 0);
const REQUIRED_MASKS = {
  let: maskOf(REQUIRED_TYPES.let),
  gas: maskOf(REQUIRED_TYPES.gas),
  hmo: maskOf(REQUIRED_TYPES.hmo),
  deposit: maskOf(REQUIRED_TYPES.deposit),
};

/**
 * A writer's refresh: evaluates the tenant's properties `ids` (ids of other tenants are ignored) for `today`
 * (YYYY-MM-DD, London), writes the rollups whose figures changed and returns how many properties it evaluated.
 * Given a transaction `tx`, it runs inside it (the writer refreshing the properties it changed before it commits);
 * otherwise in a transaction of its own on `db`.
 */
export function writeRollups(
  db: Db,
  tenantId: number,
  today: string,
  ids: number[],
  tx?: Tx,
): Promise<number> {
  return ids.length === 0 ? Promise.resolve(0) : evaluate(db, tenantId, today, ids, false, tx);
}

/**
 * The tenant-wide refresh for `today`, in a transaction of its own: all of the tenant's properties when its
 * portfolio was last evaluated for an earlier day (or never), else those without a rollup. Returns how many
 * properties it evaluated.
 *
 * It inserts new rollups plainly (an upsert's speculative insertion was about half a second of a first evaluation
 * at 100,000 properties). A writer may store the rollup of a property this refresh found without one, just
 * before it: the insert then fails on the key, and the refresh runs again, finding that rollup.
 */
export async function refreshTenantRollups(db: Db, tenantId: number, today: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const ids = await staleTarget(db, tenantId, today);
      return ids?.length === 0 ? 0 : await evaluate(db, tenantId, today, ids, true);
    } catch (err) {
      if (attempt < 3 && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}

async function evaluate(
  db: Db,
  tenantId: number,
  today: string,
  ids: number[] | null,
  daily: boolean,
  tx?: Tx,
) {
  const statement = rollupStatement(tenantId, today, ids, daily);
  // The rollups and the events of the items that entered expiring_soon or expired commit together.
  const run = async (client: Tx) => {
    const [row] = await client.$queryRaw<Array<{ evaluated: number; transitions: string }>>(statement);
    await recordComplianceTransitions(client, tenantId, JSON.parse(row?.transitions ?? '[]') as Transition[]);
    return row?.evaluated ?? 0;
  };
  // Inside the caller's transaction as it is: a transaction client has $transaction too, but nested it is a
  // savepoint, which buys nothing here (and which the embedded database's adapter once lacked: issue 30).
  if (tx) return run(tx);
  if (ids && ids.length <= 1000) return db.$transaction(run);
  // A whole tenant is one large statement: JIT compiling it costs more than it saves (about 1 s), and the
  // default work_mem makes its hash joins and aggregate spill to disk.
  return db.$transaction(
    async (own) => {
      await own.$executeRaw`SET LOCAL jit = off`;
      await own.$executeRaw`SET LOCAL work_mem = '64MB'`;
      return run(own);
    },
    { maxWait: 10_000, timeout: 600_000 },
  );
}

/**
 * The statement evaluating the tenant's properties `ids` (null: all of them, and the summary then records that
 * the whole portfolio was evaluated for `today`). `daily`: the tenant-wide refresh, which leaves alone a rollup a
 * writer stored today (it may have committed after this statement's snapshot was taken, with newer items).
 */
export function rollupStatement(
  tenantId: number,
  today: string,
  ids: number[] | null,
  daily = false,
): Prisma.Sql {
  // the writers' refresh, inside their own transactions, overwrites a rollup another transaction stored
  // meanwhile; the daily refresh fails on it and tries again (refreshTenantRollups)
  const onConflict = daily
    ? Prisma.empty
    : Prisma.sql`ON CONFLICT (tenant_id, property_id) DO UPDATE
         SET status = EXCLUDED.status, valid = EXCLUDED.valid, expiring_soon = EXCLUDED.expiring_soon,
             expired = EXCLUDED.expired, missing = EXCLUDED.missing, expiring_types = EXCLUDED.expiring_types,
             expired_types = EXCLUDED.expired_types, evaluated_on = EXCLUDED.evaluated_on`;
  // A subset is passed as an array, so that the planner knows how many properties there are (one or 100,000);
  // the whole tenant as null, which drops the filter from the plan instead of matching 100,000 ids three times.
  const inScope = (column: Prisma.Sql) =>
    ids ? Prisma.sql`AND ${column} = ANY(${ids}::int[])` : Prisma.empty;
  return Prisma.sql`
    WITH cur AS (
      -- each property's current tenancy, as currentTenancy (current-tenancy.ts) picks it: in one pass over the
      -- tenancies in scope rather than a lookup and a sort per property
      SELECT DISTINCT ON (t.property_id) t.property_id, t.start_date, t.deposit_pence
        FROM tenancies t
       WHERE t.tenant_id = ${tenantId} ${inScope(Prisma.sql`t.property_id`)} AND t.status <> 'ended'
       ORDER BY t.property_id, t.start_date DESC, t.id DESC
    ), facts AS MATERIALIZED (
      SELECT p.id, cur.start_date, cur.start_date IS NOT NULL AS has_tenancy,
             p.letting_status = ANY(${LET_STATUSES}::text[]) OR cur.start_date IS NOT NULL AS is_let,
             p.has_gas, p.is_hmo, coalesce(cur.deposit_pence, 0) <> 0 AS has_deposit,
             -- a property never evaluated before is baselined silently: no flood of events on a first refresh
             r.property_id IS NOT NULL AS seen_before, coalesce(r.expiring_types, 0) AS was_expiring,
             coalesce(r.expired_types, 0) AS was_expired
        FROM properties p
        LEFT JOIN cur ON cur.property_id = p.id
        LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
       WHERE p.tenant_id = ${tenantId} ${inScope(Prisma.sql`p.id`)}
    ), items AS MATERIALIZED (
      -- (materialised so that each item's status is computed once: inlined, the CASE below was evaluated again
      -- for every aggregate that filters on it, about half a second at 565,000 items)
      SELECT i.property_id, w.bit,
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
        LEFT JOIN unnest(${TYPE_NAMES}::text[], ${TYPE_WINDOWS}::int[], ${TYPE_BIT_LIST}::int[]) AS w(type, days, bit)
               ON w.type = i.type
        CROSS JOIN LATERAL (
              SELECT CASE WHEN i.type = 'deposit_protection' AND i.issue_date IS NOT NULL THEN NULL
                          ELSE coalesce(i.next_due_date, i.expiry_date) END - ${today}::date AS days_until_due,
                     coalesce(i.outcome = 'unsatisfactory' AND i.remedial_due_date >= ${today}::date, false)
                       AS remedial_open) e
       WHERE i.tenant_id = ${tenantId} ${inScope(Prisma.sql`i.property_id`)}
    ), per_item AS (
      -- (plain integer aggregates only, so that the items are hashed into their properties, not sorted)
      SELECT property_id,
             count(*) FILTER (WHERE status = 'valid')::int AS valid,
             count(*) FILTER (WHERE status = 'expiring_soon')::int AS expiring_soon,
             count(*) FILTER (WHERE status = 'expired')::int AS expired,
             bit_or(bit) AS held,
             coalesce(bit_or(bit) FILTER (WHERE status = 'expiring_soon'), 0) AS expiring_types,
             coalesce(bit_or(bit) FILTER (WHERE status = 'expired'), 0) AS expired_types
        FROM items
       GROUP BY property_id
    ), evaluated AS MATERIALIZED (
      SELECT f.id, f.seen_before, f.was_expiring, f.was_expired,
             coalesce(a.valid, 0) AS valid, coalesce(a.expiring_soon, 0) AS expiring_soon,
             coalesce(a.expired, 0) AS expired, coalesce(a.expiring_types, 0) AS expiring_types,
             coalesce(a.expired_types, 0) AS expired_types,
             -- the required types (as bits) the property holds no item of
             bit_count((CASE WHEN f.is_let THEN
                               ${REQUIRED_MASKS.let}::int
                               | CASE WHEN f.has_gas THEN ${REQUIRED_MASKS.gas}::int ELSE 0 END
                               | CASE WHEN f.is_hmo THEN ${REQUIRED_MASKS.hmo}::int ELSE 0 END
                               | CASE WHEN f.has_deposit THEN ${REQUIRED_MASKS.deposit}::int ELSE 0 END
                             ELSE 0 END & ~coalesce(a.held, 0))::bit(32))::int AS missing
        FROM facts f
        LEFT JOIN per_item a ON a.property_id = f.id
    ), rollups AS (
      SELECT id, CASE WHEN missing > 0 THEN 'missing' WHEN expired > 0 THEN 'expired'
                      WHEN expiring_soon > 0 THEN 'expiring_soon' ELSE 'valid' END AS status,
             valid, expiring_soon, expired, missing, expiring_types, expired_types, seen_before
        FROM evaluated
    ), updated AS (
      -- a rollup is rewritten only when its figures (or the items behind them) changed: most of a day's
      -- evaluation finds them as they were
      UPDATE property_compliance_rollups r
         SET status = n.status, valid = n.valid, expiring_soon = n.expiring_soon, expired = n.expired,
             missing = n.missing, expiring_types = n.expiring_types, expired_types = n.expired_types,
             evaluated_on = ${today}::date
        FROM rollups n
       WHERE n.seen_before AND r.tenant_id = ${tenantId} AND r.property_id = n.id
         AND (r.status, r.valid, r.expiring_soon, r.expired, r.missing, r.expiring_types, r.expired_types)
             IS DISTINCT FROM
             (n.status, n.valid, n.expiring_soon, n.expired, n.missing, n.expiring_types, n.expired_types)
         AND NOT (${daily}::boolean AND r.evaluated_on >= ${today}::date)
      RETURNING r.property_id
    ), inserted AS (
      INSERT INTO property_compliance_rollups AS r
             (tenant_id, property_id, status, valid, expiring_soon, expired, missing, expiring_types, expired_types,
              evaluated_on)
      SELECT ${tenantId}, id, status, valid, expiring_soon, expired, missing, expiring_types, expired_types,
             ${today}::date
        FROM rollups
       WHERE NOT seen_before
      ${onConflict}
    ), whole AS (
      UPDATE portfolio_summaries SET rollups_full_day = ${today}::date
       WHERE tenant_id = ${tenantId} AND ${ids === null}::boolean
    ), entered AS (
      -- the items that just entered expiring_soon or expired: of a type newly in that status on a property
      -- evaluated before (a first evaluation is a baseline, not a flood of events) whose rollup this statement
      -- rewrote (a writer that stored it meanwhile reported them), read by (property, type)
      SELECT i.id AS item_id, i.property_id, i.type,
             CASE WHEN (e.was_expired & b.bit) <> 0 THEN 'expired'
                  WHEN (e.was_expiring & b.bit) <> 0 THEN 'expiring_soon' ELSE 'valid' END AS previous_status,
             CASE WHEN (e.entered & e.expired_types & b.bit) <> 0 THEN 'expired' ELSE 'expiring_soon' END AS status,
             coalesce(i.next_due_date, i.expiry_date) AS due
        FROM (SELECT id, was_expiring, was_expired, expired_types,
                     (expiring_types & (~was_expiring)) | (expired_types & (~was_expired)) AS entered
                FROM evaluated
               WHERE id IN (SELECT property_id FROM updated)) e
        CROSS JOIN LATERAL unnest(${TYPE_NAMES}::text[], ${TYPE_BIT_LIST}::int[]) AS b(type, bit)
        -- one index lookup per item (OFFSET 0 keeps it a lookup: the planner, which cannot count the rows of
        -- \`evaluated\`, otherwise hashes all of the tenant's items to find a few hundred)
        CROSS JOIN LATERAL (SELECT i.id, i.property_id, i.type, i.next_due_date, i.expiry_date
                              FROM compliance_items i
                             WHERE i.tenant_id = ${tenantId} AND i.property_id = e.id AND i.type = b.type
                            OFFSET 0) i
       WHERE e.entered <> 0 AND (e.entered & b.bit) <> 0
    )
    SELECT (SELECT count(*) FROM evaluated)::int AS evaluated,
           coalesce((SELECT json_agg(json_build_object(
                               'item_id', n.item_id, 'property_id', n.property_id, 'type', n.type,
                               'previous_status', n.previous_status, 'status', n.status, 'due', n.due)
                             ORDER BY n.item_id)
                       FROM entered n), '[]')::text AS transitions`;
}

/**
 * The one test of whether a tenant's rollups need the tenant-wide refresh before a read, on its portfolio_summaries
 * row `s`: its portfolio was last evaluated for a day before `today` (a SQL date expression), or some property has
 * no rollup. The reads (portfolio-repository.ts, portfolio-compliance-repository.ts) select it.
 */
export const rollupsStale = (today: string) =>
  `s.properties_total > 0 AND (s.rollups_full_day IS NULL OR s.rollups_full_day < ${today}
                                OR s.rollups_total < s.properties_total)`;

/**
 * What the tenant-wide refresh for `today` evaluates: the whole tenant (null) when its portfolio was last evaluated
 * for an earlier day, else the properties that have no rollup (none: nothing to do), looked for only when the
 * summary counts fewer rollups than properties.
 */
async function staleTarget(db: Db, tenantId: number, today: string): Promise<number[] | null> {
  const rows = await db.$queryRaw<Array<{ current: boolean; missing: number[] | null }>>`
    SELECT coalesce(s.rollups_full_day >= ${today}::date, false) AS current,
           CASE WHEN s.rollups_full_day >= ${today}::date AND s.rollups_total < s.properties_total THEN
             (SELECT array_agg(p.id)
                FROM properties p
                LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
               WHERE p.tenant_id = ${tenantId} AND r.property_id IS NULL)
           END AS missing
      FROM portfolio_summaries s
     WHERE s.tenant_id = ${tenantId}`;
  const row = rows[0];
  if (!row) return []; // no such tenant
  return row.current ? (row.missing ?? []) : null;
}
