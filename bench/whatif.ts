// What-if experiments: the proposed fixes applied to the UNCHANGED app from outside, so that their effect can
// be measured before anyone edits the code. A Prisma client extension wraps the client handed to createApp:
//
// - `select`: the portfolio page's findMany (recognised by its `include: { complianceRollup }`) fetches only
//   the columns the response needs instead of every column of properties and tenancies: what changing
//   `include` to `select` in property-repository.ts `page` would do.
// - `raw-page`: that findMany becomes ONE $queryRaw (LATERAL join for the current tenancy, rollup join), with
//   rows shaped as toPortfolioProperty expects: what rewriting `page` as raw SQL would do.
// - `scoped-join`: the summary's join to property_compliance_rollups also matches tenant_id, so PostgreSQL
//   reads one tenant's rollups instead of hashing every tenant's: the one-line change in
//   portfolio-repository.ts `summary`.
// - `summary-single-flight`: requests for the same tenant's summary that arrive while one is being computed
//   share its result (nothing is kept once it is answered, so no figure is older than one query).
// - `summary-cache`: as single-flight, and the result is also reused for `ttlMs` (a real cache must also be
//   invalidated by refreshStale and by writes).
//
// The index on tenancies(property_id) is created in the benchmark database by run.ts.
import { Prisma } from '../apps/platform-bridge/src/generated/prisma/client.ts';
import type { Db } from '../apps/platform-bridge/src/lib/db.ts';

export type WhatIf = 'select' | 'raw-page' | 'scoped-join' | 'summary-single-flight' | 'summary-cache';

const ROLLUP_JOIN = 'LEFT JOIN property_compliance_rollups r ON r.property_id = p.id';
const SCOPED_ROLLUP_JOIN =
  'LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id';

export const PAGE_SELECT = {
  id: true,
  ref: true,
  line1: true,
  line2: true,
  town: true,
  county: true,
  postcode: true,
  propertyType: true,
  bedrooms: true,
  lettingStatus: true,
  isHmo: true,
  complianceRollup: { select: { status: true } },
  tenancies: {
    where: { status: { not: 'ended' } },
    orderBy: [{ startDate: 'desc' as const }, { id: 'desc' as const }],
    take: 1,
    select: { rentPence: true, rentFrequency: true },
  },
} satisfies Prisma.PropertySelect;

interface RawPageRow {
  id: number;
  ref: string;
  line1: string;
  line2: string | null;
  town: string;
  county: string | null;
  postcode: string;
  propertyType: string;
  bedrooms: number;
  lettingStatus: string;
  isHmo: boolean;
  rollupStatus: string | null;
  rentPence: number | null;
  rentFrequency: string | null;
}

async function rawPage(db: Db, tenantId: number, afterId: number, take: number) {
  const rows = await db.$queryRaw<RawPageRow[]>`
    SELECT p.id, p.ref, p.line1, p.line2, p.town, p.county, p.postcode, p.property_type AS "propertyType",
           p.bedrooms, p.letting_status AS "lettingStatus", p.is_hmo AS "isHmo", r.status AS "rollupStatus",
           c.rent_pence AS "rentPence", c.rent_frequency AS "rentFrequency"
      FROM properties p
      LEFT JOIN LATERAL (
        SELECT t.rent_pence, t.rent_frequency
          FROM tenancies t
         WHERE t.tenant_id = p.tenant_id AND t.property_id = p.id AND t.status <> 'ended'
         ORDER BY t.start_date DESC, t.id DESC
         LIMIT 1) c ON true
      LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
     WHERE p.tenant_id = ${tenantId} AND p.id > ${afterId}
     ORDER BY p.id
     LIMIT ${take}`;
  return rows.map(({ rollupStatus, rentPence, rentFrequency, ...p }) => ({
    ...p,
    complianceRollup: rollupStatus === null ? null : { status: rollupStatus },
    tenancies: rentPence === null ? [] : [{ rentPence, rentFrequency }],
  }));
}

/** How many times each fix actually changed something: 0 means the app no longer has what it targets. */
export const applied: Record<WhatIf, number> = {
  select: 0,
  'raw-page': 0,
  'scoped-join': 0,
  'summary-single-flight': 0,
  'summary-cache': 0,
};

export function withWhatIfs(db: Db, whatIfs: WhatIf[], ttlMs = 5_000): Db {
  const cache = new Map<string, { until: number; settled: boolean; result: Promise<unknown> }>();
  const share = whatIfs.includes('summary-cache') || whatIfs.includes('summary-single-flight');
  const keepMs = whatIfs.includes('summary-cache') ? ttlMs : 0;
  const extended = db.$extends({
    query: {
      property: {
        findMany({ args, query }) {
          const isPortfolioPage = !!args.include && 'complianceRollup' in args.include;
          if (isPortfolioPage && whatIfs.includes('raw-page')) {
            applied['raw-page']++;
            const where = args.where as { tenantId: number; id: { gt: number } };
            return rawPage(db, where.tenantId, where.id.gt, args.take ?? 100) as unknown as ReturnType<
              typeof query
            >;
          }
          if (isPortfolioPage && whatIfs.includes('select')) {
            applied.select++;
            const { include: _include, ...rest } = args;
            return query({ ...rest, select: PAGE_SELECT });
          }
          return query(args);
        },
      },
      $queryRaw({ args, query }) {
        const sql = args as unknown as { strings: readonly string[]; values: unknown[] };
        if (!sql.strings?.join('?').includes('properties_total')) return query(args);
        let run = args;
        if (whatIfs.includes('scoped-join') && sql.strings.some((s) => s.includes(ROLLUP_JOIN))) {
          applied['scoped-join']++;
          const strings = sql.strings.map((s) => s.replace(ROLLUP_JOIN, SCOPED_ROLLUP_JOIN));
          run = new Prisma.Sql(strings, sql.values as Prisma.Sql['values']) as unknown as typeof args;
        }
        if (!share) return query(run);
        for (const w of ['summary-single-flight', 'summary-cache'] as const)
          if (whatIfs.includes(w)) applied[w]++;
        const key = JSON.stringify(sql.values);
        const hit = cache.get(key);
        if (hit && (!hit.settled || hit.until > Date.now())) return hit.result;
        const entry = { until: 0, settled: false, result: query(run) };
        cache.set(key, entry);
        entry.result.then(
          () => {
            entry.settled = true;
            entry.until = Date.now() + keepMs;
            if (!keepMs && cache.get(key) === entry) cache.delete(key);
          },
          () => {
            if (cache.get(key) === entry) cache.delete(key);
          },
        );
        return entry.result;
      },
    },
  });
  return extended as unknown as Db;
}
