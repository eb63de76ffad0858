// Where a bridge portfolio request spends its time, measured in-process and sequentially (no load, so these
// are intrinsic costs, not queueing). The app is built with createApp on a Prisma client that reports every
// statement it sends, so the profile depends only on createApp and on the SQL, not on the app's internals:
// each request's statements are classified by their text, timed as Prisma reports them, replayed through
// plain `pg` (the database's cost without Prisma around it) and, where a proposed fix applies, replayed in
// the fixed form.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@pa/http-kit';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { createApp } from '../apps/platform-bridge/src/app.ts';
import { PrismaClient } from '../apps/platform-bridge/src/generated/prisma/client.ts';
import type { Db } from '../apps/platform-bridge/src/lib/db.ts';
import { BASELINE_SQL } from './baseline.ts';
import { type LatencyStats, latencyStats } from './lib/stats.ts';
import { get } from './load.ts';
import type { SeededTenant } from './seed.ts';

export type ProfileSteps = Record<string, LatencyStats>;

interface Captured {
  kind: string;
  query: string;
  params: unknown[];
  duration: number;
}

const UNSCOPED_ROLLUP_JOIN = 'LEFT JOIN property_compliance_rollups r ON r.property_id = p.id';
const SCOPED_ROLLUP_JOIN =
  'LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id';

function kindOf(sql: string): string {
  if (sql.includes('lookup_prefix')) return 'auth query';
  if (/UPDATE\s+"public"\."api_keys"/.test(sql)) return 'auth: last_used_at update';
  if (sql.includes('properties_total')) return 'summary query';
  if (sql.includes('property_compliance_rollups') && /INSERT|UPDATE/.test(sql)) return 'rollup refresh';
  if (sql.includes('FROM "public"."tenancies"')) return 'page: tenancies (Prisma include)';
  if (sql.includes('FROM "public"."property_compliance_rollups"')) return 'page: rollups (Prisma include)';
  if (sql.includes('FROM "public"."properties"')) return 'page: properties (Prisma findMany)';
  if (/FROM\s+properties\s+p/.test(sql)) return 'page (raw SQL)';
  return 'other';
}

async function time(n: number, fn: () => unknown): Promise<LatencyStats> {
  for (let i = 0; i < 2; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return latencyStats(samples);
}

/** Average of a synchronous step over many iterations (sub-millisecond), as a one-sample stat. */
function timeSync(n: number, fn: () => unknown): LatencyStats {
  for (let i = 0; i < 20; i++) fn();
  const started = performance.now();
  for (let i = 0; i < n; i++) fn();
  const ms = (performance.now() - started) / n;
  return { n, mean: ms, p50: ms, p90: ms, p99: ms, max: ms };
}

export class BridgeProfiler {
  private captured: Captured[] = [];
  private readonly db: Db;
  private readonly pool: pg.Pool;
  private server?: Server;

  constructor(databaseUrl: string, poolMax: number) {
    const client = new PrismaClient({
      adapter: new PrismaPg({ connectionString: databaseUrl, max: poolMax }),
      log: [{ emit: 'event', level: 'query' }],
    });
    client.$on('query', (e) => {
      this.captured.push({
        kind: kindOf(e.query),
        query: e.query,
        params: JSON.parse(e.params) as unknown[],
        duration: e.duration,
      });
    });
    this.db = client as unknown as Db;
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: poolMax });
    this.pool.on('error', () => {}); // idle clients terminated when the database is dropped
  }

  private async url(path: string): Promise<string> {
    if (!this.server) {
      const app = createApp({
        db: this.db,
        logger: createLogger('platform-bridge', 'silent'),
        rateLimitPerMin: 1_000_000_000,
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      this.server = server;
    }
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  private async request(path: string, t: SeededTenant): Promise<{ body: string; statements: Captured[] }> {
    const url = await this.url(path);
    this.captured = [];
    const r = await get(url, { authorization: `Bearer ${t.key}` });
    if (r.status !== 200) throw new Error(`in-process bridge answered ${r.status}: ${r.body.slice(0, 200)}`);
    return { body: r.body, statements: this.captured };
  }

  async profile(t: SeededTenant, firstPath: string, deepPath: string, n: number): Promise<ProfileSteps> {
    const steps: ProfileSteps = {};
    const url = await this.url(firstPath);
    const headers = { authorization: `Bearer ${t.key}` };
    steps['whole request, first page (in-process HTTP)'] = await time(n, () => get(url, headers));
    const deepUrl = await this.url(deepPath);
    steps['whole request, deep page'] = await time(n, () => get(deepUrl, headers));

    // Statements per request, with the database time Prisma reports for each.
    const perKind = new Map<string, number[]>();
    let last: { body: string; statements: Captured[] } | undefined;
    for (let i = 0; i < n; i++) {
      last = await this.request(firstPath, t);
      for (const c of last.statements) perKind.set(c.kind, [...(perKind.get(c.kind) ?? []), c.duration]);
    }
    const count = last?.statements.length ?? 0;
    steps[`  SQL statements per request: ${count}`] = {
      n: count,
      mean: NaN,
      p50: NaN,
      p90: NaN,
      p99: NaN,
      max: NaN,
    };
    for (const [kind, samples] of perKind)
      steps[`  prisma-reported db time: ${kind}`] = latencyStats(samples);

    // The same statements through plain pg, and the proposed fixes where they apply.
    for (const c of last?.statements ?? []) {
      if (c.kind.startsWith('auth: ')) continue;
      steps[`  pg replay: ${c.kind}`] = await time(n, () => this.pool.query(c.query, c.params));
      if (c.kind === 'summary query' && c.query.includes(UNSCOPED_ROLLUP_JOIN)) {
        const scoped = c.query.replace(UNSCOPED_ROLLUP_JOIN, SCOPED_ROLLUP_JOIN);
        steps['    what-if: summary with tenant-scoped rollup join (pg)'] = await time(n, () =>
          this.pool.query(scoped, c.params),
        );
      }
      if (c.kind === 'page: tenancies (Prisma include)') {
        // params: 'ended', the tenant id once per parent row, the property ids, the offset
        const nums = c.params.filter((v): v is number => typeof v === 'number');
        const ids = nums.slice(nums.findIndex((v) => v !== t.id)).filter((v) => v > 0);
        steps['    what-if: tenant_id = $1 AND property_id = ANY($2) (pg)'] = await time(n, () =>
          this.pool.query(
            `SELECT * FROM tenancies WHERE status <> 'ended' AND tenant_id = $1 AND property_id = ANY($2::int[])
              ORDER BY start_date DESC, id DESC`,
            [t.id, ids],
          ),
        );
      }
    }
    if (last) {
      const body = JSON.parse(last.body) as unknown;
      steps['JSON.stringify(response body)'] = timeSync(2000, () => JSON.stringify(body));
    }
    steps['baseline statement (pg, one round trip)'] = await time(n, () =>
      this.pool.query(BASELINE_SQL, [t.id, 0, 101]),
    );
    return steps;
  }

  /** EXPLAIN ANALYZE of the summary statement the app sends, without cost estimates and buffer lines. */
  async summaryPlan(t: SeededTenant, firstPath: string): Promise<string[]> {
    const { statements } = await this.request(firstPath, t);
    const stmt = statements.find((c) => c.kind === 'summary query');
    if (!stmt) return ['(no summary statement recognised)'];
    const { rows } = await this.pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN ANALYZE ${stmt.query}`,
      stmt.params,
    );
    return rows
      .map((r) => r['QUERY PLAN'].replace(/\(cost=[^)]*\) /, ''))
      .filter((l) => !/^\s*(Buffers|Planning:|Worker \d)/.test(l));
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await this.db.$disconnect();
    await this.pool.end();
  }
}
