// `npm run bench` (after the portfolio benchmark): POST /api/assistant-bridge/proposals/deal, each request with a
// fresh Idempotency-Key, against a hand-written `pg` baseline doing the same work (baseline-proposals.ts). Creates
// a throw-away database with two tenants (one per server, so that neither counts the other's pending proposals),
// checks that both answer 201 with the same shape and replay a repeated key, then runs autocannon against each
// (50 connections, 10 s after a 2 s warm-up) and checks that every 201 made exactly one proposal with its audit
// entry and idempotency record. Approval latency is measured when the review queue's approve endpoint exists.
// Targets, printed with their figures: bridge req/s ≥ 50 % of the baseline's, p99 ≤ 2× the baseline's. Results go to
// bench/results/bridge-proposals-latest.json; exits 0 whatever the verdicts.
//
// Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (50), BENCH_POOL_MAX (10),
// TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432).
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProposalCreated } from '@pa/contracts';
import { createTestDatabase } from '@pa/db-tools/testing';
import { PrismaPg } from '@prisma/adapter-pg';
import type autocannon from 'autocannon';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../../apps/platform-bridge/src/config.ts';
import { createTenantAdminService } from '../../apps/platform-bridge/src/features/tenants/tenant-admin-service.ts';
import { createPrismaClient, type Db } from '../../apps/platform-bridge/src/lib/db.ts';
import { ServerHandle } from '../lib/child.ts';
import { type CpuSplit, DISTURBED_SHARE, snapshot, split } from '../lib/cpu.ts';
import { httpRequest, type LoadResult, loadTest } from '../lib/load.ts';
import { createReport, fmt, pct, round } from '../lib/report.ts';
import { latencyStats } from '../lib/stats.ts';
import type { ServerKind } from './server.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(HERE, '../results/bridge-proposals-latest.json');
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const POOL_MAX = Number(process.env.BENCH_POOL_MAX ?? 10);
const WARMUP_S = 2;
const TARGET = { rpsRatio: 0.5, p99Ratio: 2 } as const;
const APPROVALS = 200;

const PATHS: Record<ServerKind, string> = {
  bridge: '/api/assistant-bridge/proposals/deal',
  baseline: '/baseline/proposals/deal',
};

interface BenchTenant {
  id: number;
  slug: string;
  key: string;
  propertyId: number;
}

const report = createReport('bench proposals');

async function makeTenant(db: Db, slug: string): Promise<BenchTenant> {
  const admin = createTenantAdminService({ db });
  const tenant = await admin.createTenant(slug, `Bench ${slug}`);
  for (const flag of [
    'assistant_external_bridge',
    'assistant_bridge_writes',
    'assistant_bridge_review_queue',
  ])
    await admin.setFlag(slug, flag, true);
  const key = await admin.createKey(slug, ['bridge:read', 'bridge:propose'], 'bench assistant');
  const property = await db.property.create({
    data: {
      tenantId: tenant.id,
      ref: `BEN-${slug}`,
      line1: '1 Bench Street',
      town: 'Leeds',
      postcode: 'LS1 1AA',
      propertyType: 'flat',
      bedrooms: 2,
      bathrooms: 1,
      tenure: 'leasehold',
      furnishing: 'unfurnished',
      localAuthority: 'Leeds City Council',
      lettingStatus: 'let',
      managementType: 'managed',
      hasGas: true,
      unitsTotal: 1,
      unitsOccupied: 1,
    },
  });
  return { id: tenant.id, slug, key: key.key, propertyId: property.id };
}

const body = (t: BenchTenant) =>
  JSON.stringify({
    title: 'Acquire 12 Bench Row',
    property_id: t.propertyId,
    value_pence: 18_500_000,
    review_notes: 'Vendor keen; asking £185k.',
  });
const headers = (t: BenchTenant) => ({
  authorization: `Bearer ${t.key}`,
  'content-type': 'application/json',
});

const submit = (server: ServerHandle, kind: ServerKind, t: BenchTenant, key: string) =>
  httpRequest(server.url(PATHS[kind]), {
    method: 'POST',
    headers: { ...headers(t), 'idempotency-key': key },
    body: body(t),
  });

/** Throws unless both answer a new key with 201 and a ProposalCreated, and the same key again with a replay. */
async function verify(servers: Record<ServerKind, ServerHandle>, tenants: Record<ServerKind, BenchTenant>) {
  for (const kind of ['bridge', 'baseline'] as const) {
    const key = randomUUID();
    const first = await submit(servers[kind], kind, tenants[kind], key);
    const again = await submit(servers[kind], kind, tenants[kind], key);
    if (first.status !== 201 || again.status !== 201 || again.headers['idempotent-replayed'] !== 'true')
      throw new Error(`${kind}: ${first.status} then ${again.status}: ${first.body.slice(0, 300)}`);
    const parsed = ProposalCreated.safeParse(JSON.parse(first.body));
    if (!parsed.success || again.body !== first.body || first.headers.location !== again.headers.location)
      throw new Error(`${kind}: answers differ or break the contract: ${first.body} / ${again.body}`);
  }
}

/** One request per fresh Idempotency-Key, as an assistant submitting new proposals would send them. */
function freshKeyRequests(kind: ServerKind, t: BenchTenant): autocannon.Request[] {
  return [
    {
      method: 'POST',
      path: PATHS[kind],
      headers: headers(t),
      body: body(t),
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        headers: { ...req.headers, 'idempotency-key': randomUUID() },
      }),
    },
  ];
}

interface LoadPhase {
  load: LoadResult;
  cpu: CpuSplit;
}

async function measure(
  server: ServerHandle,
  kind: ServerKind,
  t: BenchTenant,
  dbName: string,
): Promise<LoadPhase> {
  const url = server.url(PATHS[kind]);
  await loadTest({ url, connections: CONNECTIONS, durationS: WARMUP_S, requests: freshKeyRequests(kind, t) });
  const before = snapshot(server.pid, dbName);
  const load = await loadTest({
    url,
    connections: CONNECTIONS,
    durationS: DURATION_S,
    requests: freshKeyRequests(kind, t),
  });
  const cpu = split(before, snapshot(server.pid, dbName), load.requests);
  if (load.non2xx || load.errors) report.log(`! ${kind}: ${load.non2xx} non-2xx, ${load.errors} errors`);
  const l = load.latencyMs;
  console.log(
    `  ${kind.padEnd(9)} ${fmt(load.rps).padStart(8)} req/s  p50 ${fmt(l.p50, 0)} ms  p99 ${fmt(l.p99, 0)} ms  ` +
      `CPU/req: server ${fmt(cpu.serverMsPerUnit, 2)} ms, PostgreSQL ${fmt(cpu.postgresMsPerUnit, 2)} ms; ` +
      `other processes ${pct(cpu.otherShare)} of the machine` +
      (cpu.otherShare > DISTURBED_SHARE ? '  ! DISTURBED' : ''),
  );
  return { load, cpu };
}

/** Every proposal has its audit entry and idempotency record, and nothing else was created. */
async function checkRows(pool: pg.Pool, t: BenchTenant) {
  const { rows } = await pool.query<{ proposals: number; audit: number; keys: number; deals: number }>(
    `SELECT (SELECT count(*)::int FROM proposals WHERE tenant_id = $1) AS proposals,
            (SELECT count(*)::int FROM audit_entries WHERE tenant_id = $1) AS audit,
            (SELECT count(*)::int FROM idempotency_keys WHERE tenant_id = $1) AS keys,
            (SELECT count(*)::int FROM deals WHERE tenant_id = $1) AS deals`,
    [t.id],
  );
  const r = rows[0]!;
  if (r.proposals !== r.audit || r.proposals !== r.keys || r.deals !== 0)
    throw new Error(`${t.slug}: ${JSON.stringify(r)} (expected equal counts and no deal)`);
  return r.proposals;
}

/** p50/p99 of POST /api/admin/proposals/{id}/approve, sequentially, when the endpoint exists. */
async function approvalLatency(server: ServerHandle, db: Db, t: BenchTenant) {
  const adminKey = await createTenantAdminService({ db }).createAdmin(t.slug, 'bench@example.com');
  const pending = await db.proposal.findMany({
    where: { tenantId: t.id, status: 'pending_review' },
    select: { id: true },
    take: APPROVALS,
  });
  const samples: number[] = [];
  for (const p of pending) {
    const r = await httpRequest(server.url(`/api/admin/proposals/${p.id}/approve`), {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey.key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    if (r.status === 404 && samples.length === 0) return undefined; // no approve endpoint on this branch
    if (r.status !== 200) throw new Error(`approve ${p.id}: ${r.status} ${r.body.slice(0, 300)}`);
    samples.push(r.ms);
  }
  return latencyStats(samples);
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  report.log(
    `load average at start: ${os
      .loadavg()
      .map((v) => fmt(v, 2))
      .join(' ')} (the machine is shared)`,
  );
  const database = await createTestDatabase({ prefix: 'bench_proposals', migrationsDir: MIGRATIONS_DIR });
  const dbName = new URL(database.url).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pool.on('error', () => {}); // DROP DATABASE ... WITH (FORCE) may end a closing idle connection
  const db = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 2 }));
  const servers: ServerHandle[] = [];
  try {
    const tenants = {
      bridge: await makeTenant(db, 'bench-bridge'),
      baseline: await makeTenant(db, 'bench-baseline'),
    };
    const start = (kind: ServerKind) =>
      ServerHandle.start({
        label: kind,
        entry: path.join(HERE, 'server.ts'),
        env: { BENCH_SERVER: kind, BENCH_DATABASE_URL: database.url, BENCH_POOL_MAX: String(POOL_MAX) },
      });
    const [bridge, baseline] = await Promise.all([start('bridge'), start('baseline')]);
    servers.push(bridge, baseline);
    await report.phase('checking that both answer 201 and replay a repeated key', () =>
      verify({ bridge, baseline }, tenants),
    );

    const load = await report.phase(
      `POST /proposals/deal with a fresh Idempotency-Key per request, ${CONNECTIONS} connections, ${DURATION_S} s after ${WARMUP_S} s warm-up`,
      async () => ({
        bridge: await measure(bridge, 'bridge', tenants.bridge, dbName),
        baseline: await measure(baseline, 'baseline', tenants.baseline, dbName),
      }),
    );
    const rows = await report.phase(
      'checking the rows: one proposal, audit entry and key per 201',
      async () => ({
        bridge: await checkRows(pool, tenants.bridge),
        baseline: await checkRows(pool, tenants.baseline),
      }),
    );
    report.log(`  proposals written: bridge ${rows.bridge}, baseline ${rows.baseline}`);

    const rpsRatio = load.bridge.load.rps / load.baseline.load.rps;
    const p99Ratio = load.bridge.load.latencyMs.p99 / load.baseline.load.latencyMs.p99;
    report.target(
      `bridge req/s ≥ ${pct(TARGET.rpsRatio)} of the pg baseline's`,
      `${fmt(load.bridge.load.rps)} vs ${fmt(load.baseline.load.rps)} req/s = ${fmt(rpsRatio, 2)}×`,
      rpsRatio >= TARGET.rpsRatio,
    );
    report.target(
      `bridge p99 ≤ ${TARGET.p99Ratio}× the baseline's`,
      `${fmt(load.bridge.load.latencyMs.p99, 0)} vs ${fmt(load.baseline.load.latencyMs.p99, 0)} ms = ${fmt(p99Ratio, 2)}×`,
      p99Ratio <= TARGET.p99Ratio,
    );
    const cpuRatio = load.baseline.cpu.serverMsPerUnit / load.bridge.cpu.serverMsPerUnit;
    console.log(`  server CPU per request, baseline/bridge: ${fmt(cpuRatio, 2)}`);

    const approval = await report.phase(
      `approval latency (${APPROVALS} sequential POST /api/admin/proposals/{id}/approve)`,
      () => approvalLatency(bridge, db, tenants.bridge),
    );
    if (approval)
      console.log(
        `  approve p50 ${fmt(approval.p50, 2)} ms  p99 ${fmt(approval.p99, 2)} ms  (n ${approval.n})`,
      );
    else report.log('  not measured: this build has no approve endpoint (the review queue is not merged)');

    const disturbed = [load.bridge, load.baseline].some((r) => r.cpu.otherShare > DISTURBED_SHARE);
    report.printTargets(disturbed ? 'DISTURBED load run: other processes used the CPU' : '');
    const file = report.write(RESULTS_FILE, {
      started_at: new Date(startedAt).toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, load_average: os.loadavg() },
      config: { connections: CONNECTIONS, duration_s: DURATION_S, pool_max: POOL_MAX, warmup_s: WARMUP_S },
      load: { ...load, rps_ratio: rpsRatio, p99_ratio: p99Ratio, cpu_ratio: cpuRatio },
      proposals_written: rows,
      approval_ms: approval ?? null,
      disturbed,
      total_s: round((Date.now() - startedAt) / 1000, 1),
    });
    report.log(`wrote ${path.relative(process.cwd(), file)}`);
  } finally {
    await Promise.all(servers.map((s) => s.stop().catch(() => s.kill())));
    await db.$disconnect().catch(() => {});
    await pool.end().catch(() => {});
    await database.drop();
  }
}

main().catch((err: unknown) => {
  console.error('bench failed:', err);
  process.exit(1);
});
