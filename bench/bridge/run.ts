// `npm run bench`: GET /api/assistant-bridge/portfolio?limit=100 under load against a hand-written pg
// baseline on the same database, page latency at 1k/10k/100k properties, the servers' memory, a profile of
// where a bridge request spends its time, and the proposed fixes measured as what-ifs (applied from outside
// the app: an index in the benchmark database, a Prisma client extension). Prints a report, writes
// bench/results/latest.json, and exits 0 whatever the verdicts (non-zero only when something breaks, e.g.
// the two servers disagree on the JSON).
//
// Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50), BENCH_POOL_MAX (default 10),
// BENCH_WHATIFS=0 to skip the what-if runs, TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432).
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@pa/db-tools';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../apps/platform-bridge/src/config.ts';
import { createPrismaClient } from '../apps/platform-bridge/src/lib/db.ts';
import { ServerHandle } from './child.ts';
import { type CpuSplit, snapshot, split } from './cpu.ts';
import { type CpuBreakdown, summariseCpuProfile } from './cpuprofile.ts';
import type { LoadResult } from './lib/load.ts';
import { type LatencyStats, latencyStats } from './lib/stats.ts';
import { destroyAgent, get, loadTest, sequential } from './load.ts';
import { BridgeProfiler, type ProfileSteps } from './profile.ts';
import { type SeededTenant, seedTenant } from './seed.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const POOL_MAX = Number(process.env.BENCH_POOL_MAX ?? 10);
const RUN_WHATIFS = process.env.BENCH_WHATIFS !== '0';
const WARMUP_S = 2;
const TARGET_RPS_RATIO = 0.7;
const TARGET_P99_RATIO = 1.5;
const WHATIF_DURATION_S = Math.min(DURATION_S, 5);
const SEQUENTIAL = { durationMs: 1000, min: 12, max: 300 };
const WHATIF_INDEX = 'bench_whatif_tenancies_property_id';
// More than this share of the machine's CPU used by processes other than server, PostgreSQL and autocannon
// during a run marks it as disturbed (the figures are then not comparable).
const DISTURBED_SHARE = 0.15;
const HERD = 20;

const SIZES = { small: 1_000, main: 10_000, large: 100_000 } as const;
type SizeName = keyof typeof SIZES;
type PageName = 'first' | 'deep';
const SIZE_NAMES = ['small', 'main', 'large'] as const;
const PAGES = ['first', 'deep'] as const;

const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;
const fmt = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const pad = (s: string, n: number) => s.padEnd(n);
const lpad = (s: string, n: number) => s.padStart(n);
const sizeLabel = (name: SizeName) => SIZES[name].toLocaleString('en-GB');

function log(msg: string): void {
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
}

// Deep pages start 150 properties before the end of the tenant's portfolio: a cursor as the API would have
// returned after paging that far (same `p:<id>` base64url format), so the page is full and has a next page.
const cursorAfter = (id: number) => Buffer.from(`p:${id}`).toString('base64url');
const deepAfter = (t: SeededTenant) => t.lastId - 150;
const cursorParam = (t: SeededTenant, page: PageName) =>
  page === 'deep' ? `&cursor=${cursorAfter(deepAfter(t))}` : '';
const bridgePath = (t: SeededTenant, page: PageName) =>
  `/api/assistant-bridge/portfolio?limit=100${cursorParam(t, page)}`;
const baselinePath = (t: SeededTenant, page: PageName) =>
  `/baseline/portfolio?tenant_id=${t.id}&limit=100${cursorParam(t, page)}`;
const auth = (t: SeededTenant) => ({ authorization: `Bearer ${t.key}` });

const withoutAsOf = (body: string) => body.replace(/"as_of":"[^"]*"/, '"as_of":"…"');

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at char ${i}:\n  bridge:   …${a.slice(Math.max(0, i - 80), i + 120)}\n  baseline: …${b.slice(Math.max(0, i - 80), i + 120)}`;
}

/** Throws unless both servers answer byte-identical JSON (apart from as_of) for every tenant and page. */
async function verifySameJson(
  bridge: ServerHandle,
  baseline: ServerHandle,
  tenants: Record<SizeName, SeededTenant>,
): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  for (const name of SIZE_NAMES) {
    for (const page of PAGES) {
      const t = tenants[name];
      const a = await get(bridge.url(bridgePath(t, page)), auth(t));
      const b = await get(baseline.url(baselinePath(t, page)));
      if (a.status !== 200 || b.status !== 200) {
        throw new Error(`${name} ${page}: bridge ${a.status}, baseline ${b.status}: ${a.body.slice(0, 300)}`);
      }
      const [x, y] = [withoutAsOf(a.body), withoutAsOf(b.body)];
      if (x !== y)
        throw new Error(`bridge and baseline disagree (${name}, ${page} page) ${firstDifference(x, y)}`);
      const body = JSON.parse(a.body) as { properties: Array<{ compliance_status: string }> };
      if (body.properties.length !== 100)
        throw new Error(`expected 100 properties, got ${body.properties.length}`);
      if (name === 'main') {
        for (const p of body.properties)
          statuses[p.compliance_status] = (statuses[p.compliance_status] ?? 0) + 1;
      }
    }
  }
  return statuses;
}

interface LoadPhase {
  load: LoadResult;
  cpu: CpuSplit;
  eventLoopUtilisation: number;
  peakRssMb: number;
}

async function measureLoad(
  server: ServerHandle,
  url: string,
  headers: Record<string, string>,
  durationS = DURATION_S,
  warmupS = WARMUP_S,
): Promise<LoadPhase> {
  await loadTest({ url, headers, connections: CONNECTIONS, durationS: warmupS });
  server.takePeakRssMb();
  const before = await server.stats();
  const cpuBefore = snapshot(server.pid);
  const load = await loadTest({ url, headers, connections: CONNECTIONS, durationS });
  const cpuAfter = snapshot(server.pid);
  const after = await server.stats();
  const active = after.eventLoopActiveMs - before.eventLoopActiveMs;
  const idle = after.eventLoopIdleMs - before.eventLoopIdleMs;
  if (load.non2xx || load.errors) {
    console.warn(
      `  ! ${server.kind}: ${load.non2xx} non-2xx responses, ${load.errors} errors during the run`,
    );
  }
  return {
    load,
    cpu: split(cpuBefore, cpuAfter, load.requests),
    eventLoopUtilisation: active / (active + idle),
    peakRssMb: server.takePeakRssMb(),
  };
}

const pct = (v: number) => `${fmt(v * 100, 0)}%`;
function loadHeader(): void {
  console.log(
    `  ${pad('', 34)} ${lpad('req/s', 7)} ${lpad('p50 ms', 7)} ${lpad('p90 ms', 7)} ${lpad('p99 ms', 7)} ${lpad('max ms', 7)} ` +
      `${lpad('CPU ms/req: server', 19)} ${lpad('postgres', 9)} ${lpad('loop busy', 10)} ${lpad('peak RSS', 9)}   ` +
      'machine CPU: server/postgres/autocannon/other/idle',
  );
}
function loadRow(label: string, r: LoadPhase): void {
  const c = r.cpu;
  console.log(
    `  ${pad(label, 34)} ${lpad(fmt(r.load.rps), 7)} ${lpad(fmt(r.load.latencyMs.p50, 0), 7)} ${lpad(fmt(r.load.latencyMs.p90, 0), 7)} ${lpad(fmt(r.load.latencyMs.p99, 0), 7)} ${lpad(fmt(r.load.latencyMs.max, 0), 7)} ` +
      `${lpad(fmt(c.serverMsPerRequest, 1), 19)} ${lpad(fmt(c.postgresMsPerRequest, 1), 9)} ${lpad(pct(r.eventLoopUtilisation), 10)} ${lpad(`${fmt(r.peakRssMb, 0)} MB`, 9)}   ` +
      [c.serverShare, c.postgresShare, c.loadGeneratorShare, c.otherShare, c.idleShare].map(pct).join(' / ') +
      (c.otherShare > DISTURBED_SHARE ? '  ! disturbed by other processes' : ''),
  );
}

function printProfile(title: string, steps: ProfileSteps): void {
  console.log(`\n${title}`);
  console.log(`  ${pad('step', 72)} ${lpad('p50 ms', 8)} ${lpad('p99 ms', 8)} ${lpad('n', 5)}`);
  for (const [name, s] of Object.entries(steps)) {
    const digits = s.p50 < 1 ? 3 : 1;
    console.log(
      `  ${pad(name, 72)} ${lpad(fmt(s.p50, digits), 8)} ${lpad(fmt(s.p99, digits), 8)} ${lpad(String(s.n), 5)}`,
    );
  }
}

interface CpuProfileRun extends CpuBreakdown {
  requests: number;
}

/** A fresh bridge process under `node --cpu-prof`, loaded for a few seconds; its profile summarised. */
async function cpuProfileRun(
  databaseUrl: string,
  t: SeededTenant,
  whatIf: string,
  servers: ServerHandle[],
): Promise<CpuProfileRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-cpuprof-'));
  try {
    const server = await ServerHandle.start('bridge', databaseUrl, POOL_MAX, { BENCH_WHATIF: whatIf }, [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
    ]);
    servers.push(server);
    const load = await loadTest({
      url: server.url(bridgePath(t, 'first')),
      headers: auth(t),
      connections: CONNECTIONS,
      durationS: 5,
    });
    await server.stop();
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('no CPU profile written');
    return { ...summariseCpuProfile(path.join(dir, file)), requests: load.requests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printCpuProfiles(runs: Record<string, CpuProfileRun>): void {
  const labels = Object.keys(runs);
  console.log(
    `\n================ bridge process CPU by component under load (V8 CPU profile, 5 s, ${CONNECTIONS} connections) ================`,
  );
  console.log(
    '  V8 samples wall time: while the thread is preempted (e.g. a socket write waking a PostgreSQL backend on the\n' +
      '  same 2 cores) the sample lands on the native call, so "native built-ins" is overstated; the /proc CPU\n' +
      '  figures above are the real totals.',
  );
  console.log(
    `  ${pad('component', 44)} ${labels.map((l) => lpad(`${l}: sampled ms/req`, 24) + lpad('share', 7)).join(' ')}`,
  );
  const names = new Set(Object.values(runs).flatMap((r) => r.components.map((c) => c.name)));
  const perReq = (r: CpuProfileRun, name: string) => {
    const c = r.components.find((x) => x.name === name);
    return { ms: (c?.ms ?? 0) / Math.max(1, r.requests), share: c?.share ?? 0 };
  };
  const first = runs[labels[0]!]!;
  for (const name of [...names].sort((a, b) => perReq(first, b).ms - perReq(first, a).ms)) {
    const cells = labels.map((l) => {
      const v = perReq(runs[l]!, name);
      return lpad(fmt(v.ms, 2), 24) + lpad(pct(v.share), 7);
    });
    console.log(`  ${pad(name, 44)} ${cells.join(' ')}`);
  }
  console.log(
    `  ${pad('sampled busy time (all, incl. startup)', 44)} ${labels
      .map(
        (l) =>
          lpad(fmt(runs[l]!.busyMs / Math.max(1, runs[l]!.requests), 2), 24) +
          lpad(`(${runs[l]!.requests} req)`, 12),
      )
      .join(' ')}`,
  );
  for (const l of labels) {
    console.log(`  inside the Prisma client runtime (${l}):`);
    for (const p of runs[l]!.prismaSources.slice(0, 6)) {
      console.log(`    ${pad(p.name, 60)} ${lpad(fmt(p.ms / Math.max(1, runs[l]!.requests), 2), 8)} ms/req`);
    }
  }
}

const stat = (s: LatencyStats) => ({ p50: round(s.p50, 3), p99: round(s.p99, 3), n: s.n });
const loadJson = (r: LoadPhase) => ({
  ...r,
  cpu: Object.fromEntries(Object.entries(r.cpu).map(([k, v]) => [k, round(v, 3)])),
  eventLoopUtilisation: round(r.eventLoopUtilisation, 3),
  peakRssMb: round(r.peakRssMb),
});

async function main(): Promise<void> {
  const startedAt = Date.now();
  const results: Record<string, unknown> = {
    started_at: new Date(startedAt).toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, memory_gb: round(os.totalmem() / 2 ** 30) },
    config: { connections: CONNECTIONS, duration_s: DURATION_S, pool_max: POOL_MAX, warmup_s: WARMUP_S },
    load_average_at_start: os.loadavg().map((v) => round(v, 2)),
  };
  log(
    `load average at start: ${os
      .loadavg()
      .map((v) => fmt(v, 2))
      .join(' ')} (other work on the machine skews results)`,
  );

  log('creating the benchmark database');
  const database = await createTestDatabase({ prefix: 'bench', migrationsDir: MIGRATIONS_DIR });
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  // pool.end() resolves before its sockets are closed; DROP DATABASE ... WITH (FORCE) may then terminate a
  // closing connection, which an idle client reports as an error on the pool: not a failure of the run.
  pool.on('error', () => {});
  const seedDb = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 2 }));
  const servers: ServerHandle[] = [];
  let profiler: BridgeProfiler | undefined;
  try {
    // ---- seed: three tenants in one database, as in production ------------------------------------------
    const tenants = {} as Record<SizeName, SeededTenant>;
    for (const name of SIZE_NAMES) {
      const t = await seedTenant(pool, seedDb, {
        slug: `bench-${name}`,
        name: `Bench ${name} (${sizeLabel(name)} properties)`,
        properties: SIZES[name],
      });
      tenants[name] = t;
      log(
        `seeded ${t.slug}: ${t.properties} properties, ${t.counts.tenancies} tenancies, ` +
          `${t.counts.complianceItems} compliance items, ${t.counts.deals} deals in ${fmt(t.seedMs / 1000, 2)} s`,
      );
    }
    await seedDb.$disconnect();
    results.seed = Object.fromEntries(
      Object.entries(tenants).map(([k, t]) => [
        k,
        { properties: t.properties, ...t.counts, seconds: round(t.seedMs / 1000, 2) },
      ]),
    );

    // ---- servers ----------------------------------------------------------------------------------------
    const [bridge, baseline] = await Promise.all([
      ServerHandle.start('bridge', database.url, POOL_MAX),
      ServerHandle.start('baseline', database.url, POOL_MAX),
    ]);
    servers.push(bridge, baseline);
    log(`bridge pid ${bridge.pid} on :${bridge.port}, baseline pid ${baseline.pid} on :${baseline.port}`);

    // ---- the first read of the day: the bridge refreshes every stale compliance rollup ------------------
    const cold: Record<string, number> = {};
    for (const name of SIZE_NAMES) {
      const t = tenants[name];
      const r = await get(bridge.url(bridgePath(t, 'first')), auth(t));
      if (r.status !== 200)
        throw new Error(`bridge answered ${r.status} for ${t.slug}: ${r.body.slice(0, 300)}`);
      cold[name] = r.ms;
      log(
        `first (cold) request, ${sizeLabel(name)} properties, incl. the rollup refresh: ${fmt(r.ms, 0)} ms`,
      );
    }
    const coldRefreshHwmMb = bridge.highWaterMarkMb();
    await pool.query('ANALYZE property_compliance_rollups');
    results.cold_first_request_ms = Object.fromEntries(Object.entries(cold).map(([k, v]) => [k, round(v)]));

    // ---- honesty check: the same JSON from both ---------------------------------------------------------
    const statuses = await verifySameJson(bridge, baseline, tenants);
    const sample = JSON.parse(
      (await get(bridge.url(bridgePath(tenants.main, 'first')), auth(tenants.main))).body,
    ) as {
      summary: unknown;
    };
    log('baseline JSON == bridge JSON (apart from as_of) on the first and a deep page of all three tenants');
    log(`10k summary: ${JSON.stringify(sample.summary)}`);
    log(`compliance_status on the 10k pages compared: ${JSON.stringify(statuses)}`);
    results.verification = { equal: true, summary_10k: sample.summary, page_statuses_10k: statuses };

    // ---- main comparison under load ----------------------------------------------------------------------
    log(`load: ${CONNECTIONS} connections, ${DURATION_S} s after a ${WARMUP_S} s warm-up — bridge`);
    const bridgeLoad = await measureLoad(
      bridge,
      bridge.url(bridgePath(tenants.main, 'first')),
      auth(tenants.main),
    );
    log('load — baseline');
    const baseLoad = await measureLoad(baseline, baseline.url(baselinePath(tenants.main, 'first')), {});
    const rpsRatio = bridgeLoad.load.rps / baseLoad.load.rps;
    const p99Ratio = bridgeLoad.load.latencyMs.p99 / baseLoad.load.latencyMs.p99;
    const rpsPass = rpsRatio >= TARGET_RPS_RATIO;
    const p99Pass = p99Ratio <= TARGET_P99_RATIO;

    // ---- page latency vs portfolio size (sequential requests) --------------------------------------------
    log('page latency at 1k / 10k / 100k properties, first and deep page (sequential requests)');
    const scaling: Record<string, { bridge: LatencyStats; baseline: LatencyStats }> = {};
    bridge.takePeakRssMb();
    for (const name of SIZE_NAMES) {
      for (const page of PAGES) {
        const t = tenants[name];
        scaling[`${name}:${page}`] = {
          bridge: await sequential(bridge.url(bridgePath(t, page)), auth(t), SEQUENTIAL),
          baseline: await sequential(baseline.url(baselinePath(t, page)), {}, SEQUENTIAL),
        };
      }
    }
    const scalingPeakRssMb = bridge.takePeakRssMb();

    // ---- profile: where the bridge's time goes ----------------------------------------------------------
    log('profiling one bridge request in-process (sequential)');
    profiler = new BridgeProfiler(database.url, POOL_MAX);
    const profile10k = await profiler.profile(
      tenants.main,
      bridgePath(tenants.main, 'first'),
      bridgePath(tenants.main, 'deep'),
      15,
    );
    const profile100k = await profiler.profile(
      tenants.large,
      bridgePath(tenants.large, 'first'),
      bridgePath(tenants.large, 'deep'),
      5,
    );
    const summaryPlan100k = await profiler.summaryPlan(tenants.large, bridgePath(tenants.large, 'first'));
    await profiler.close();
    profiler = undefined;
    // ---- day rollover: every request that finds stale rollups refreshes them (is it single-flight?) -----
    log(`day rollover: ${HERD} concurrent first requests on the ${sizeLabel('small')}-property tenant`);
    const small = tenants.small;
    const makeStale = () =>
      pool.query(
        'UPDATE property_compliance_rollups SET evaluated_on = evaluated_on - 1 WHERE tenant_id = $1',
        [small.id],
      );
    const herdBridge = await ServerHandle.start('bridge', database.url, POOL_MAX);
    servers.push(herdBridge);
    await get(herdBridge.url(bridgePath(small, 'first')), auth(small)); // warm, rollups fresh
    await makeStale();
    const rolloverSingleMs = (await get(herdBridge.url(bridgePath(small, 'first')), auth(small))).ms;
    await makeStale();
    herdBridge.takePeakRssMb();
    const herdStarted = performance.now();
    const herdMs = await Promise.all(
      Array.from({ length: HERD }, async () => {
        const started = performance.now();
        const r = await fetch(herdBridge.url(bridgePath(small, 'first')), { headers: auth(small) });
        await r.text();
        if (!r.ok) throw new Error(`day-rollover request answered ${r.status}`);
        return performance.now() - started;
      }),
    );
    const herdWallMs = performance.now() - herdStarted;
    const herdPeakRssMb = herdBridge.takePeakRssMb();
    await herdBridge.stop();
    const rollover = {
      single_request_ms: round(rolloverSingleMs),
      concurrent_requests: HERD,
      concurrent: stat(latencyStats(herdMs)),
      concurrent_wall_ms: round(herdWallMs),
      peak_rss_mb: round(herdPeakRssMb),
    };

    log('CPU profile of the bridge process under load');
    const cpuProfiles: Record<string, CpuProfileRun> = {
      'as is': await cpuProfileRun(database.url, tenants.main, '', servers),
    };

    // ---- what-ifs: the proposed fixes, applied from outside the app -------------------------------------
    const whatIfs: Record<string, LoadPhase> = {};
    const whatIfScaling: Record<string, LatencyStats> = {};
    let whatIfProfile: ProfileSteps | undefined;
    // fixes that changed nothing in a variant, because the app no longer has what they target
    const notApplicable: Record<string, string[]> = {};
    if (RUN_WHATIFS) {
      log('what-if 1: CREATE INDEX ON tenancies (property_id) — same bridge process, under load');
      await pool.query(`CREATE INDEX ${WHATIF_INDEX} ON tenancies (property_id)`);
      await pool.query('ANALYZE tenancies');
      whatIfs['1 = index tenancies(property_id)'] = await measureLoad(
        bridge,
        bridge.url(bridgePath(tenants.main, 'first')),
        auth(tenants.main),
        WHATIF_DURATION_S,
        1,
      );

      // Each further fix is cumulative, in a fresh bridge process whose Prisma client is wrapped (whatif.ts).
      // `adds` is what a variant adds to the one it builds on; when none of that changes anything (the app
      // already does it), the variant is not measured.
      const variants = [
        {
          label: '2 = 1 + select',
          env: 'select',
          adds: ['select'],
          what: 'page findMany with `select` of the needed columns',
        },
        {
          label: '3 = 2 + scoped join',
          env: 'select,scoped-join',
          adds: ['scoped-join'],
          what: 'summary joins rollups by tenant_id too',
        },
        {
          label: '4 = 1 + raw page + scoped join',
          env: 'raw-page,scoped-join',
          adds: ['raw-page'],
          what: 'instead of select, the page as one $queryRaw; scoped join',
        },
        {
          label: '5 = 3 + summary single-flight',
          env: 'select,scoped-join,summary-single-flight',
          adds: ['summary-single-flight'],
          what: 'concurrent requests share the summary being computed (no TTL)',
        },
        {
          label: '6 = 3 + summary cache (5 s TTL)',
          env: 'select,scoped-join,summary-cache',
          adds: ['summary-cache'],
          what: 'summary also reused for 5 s',
        },
      ];
      for (const [i, v] of variants.entries()) {
        log(`what-if ${v.label}: ${v.what} (Prisma client extension)`);
        const fixed = await ServerHandle.start('bridge', database.url, POOL_MAX, { BENCH_WHATIF: v.env });
        servers.push(fixed);
        await verifySameJson(fixed, baseline, tenants);
        const applied = (await fixed.stats()).whatIfsApplied;
        const idle = v.env.split(',').filter((w) => !applied[w]);
        if (idle.length) notApplicable[v.label] = idle;
        if (v.adds.every((w) => !applied[w])) {
          log(`  not measured: ${v.adds.join(', ')} changes nothing in the current app code`);
          await fixed.stop();
          continue;
        }
        whatIfs[v.label] = await measureLoad(
          fixed,
          fixed.url(bridgePath(tenants.main, 'first')),
          auth(tenants.main),
          WHATIF_DURATION_S,
          1,
        );
        if (i === variants.length - 1) {
          for (const name of SIZE_NAMES) {
            for (const page of PAGES) {
              const t = tenants[name];
              whatIfScaling[`${name}:${page}`] = await sequential(
                fixed.url(bridgePath(t, page)),
                auth(t),
                SEQUENTIAL,
              );
            }
          }
        }
        await fixed.stop();
      }

      profiler = new BridgeProfiler(database.url, POOL_MAX);
      whatIfProfile = await profiler.profile(
        tenants.large,
        bridgePath(tenants.large, 'first'),
        bridgePath(tenants.large, 'deep'),
        5,
      );
      await profiler.close();
      profiler = undefined;
      log('CPU profile of the bridge with all the fixes');
      cpuProfiles['all fixes'] = await cpuProfileRun(
        database.url,
        tenants.main,
        'select,scoped-join,summary-cache',
        servers,
      );
      await pool.query(`DROP INDEX ${WHATIF_INDEX}`);
    }

    // ---- memory -----------------------------------------------------------------------------------------
    const memory = {
      bridge: {
        peak_rss_mb_under_load: round(bridgeLoad.peakRssMb),
        peak_rss_mb_size_runs: round(scalingPeakRssMb),
        vm_hwm_mb_after_cold_rollup_refreshes: round(coldRefreshHwmMb),
        vm_hwm_mb_whole_run: round(bridge.highWaterMarkMb()),
      },
      baseline: {
        peak_rss_mb_under_load: round(baseLoad.peakRssMb),
        vm_hwm_mb_whole_run: round(baseline.highWaterMarkMb()),
      },
    };

    // ---- report -----------------------------------------------------------------------------------------
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
    console.log(
      '\n================ GET /api/assistant-bridge/portfolio?limit=100, 10,000 properties ================',
    );
    console.log(
      `${CONNECTIONS} connections, ${DURATION_S} s each after ${WARMUP_S} s warm-up; pool max ${POOL_MAX} for both; ` +
        `${os.cpus().length} CPUs shared by server, PostgreSQL and autocannon; load average now ` +
        os
          .loadavg()
          .map((v) => fmt(v, 2))
          .join(' '),
    );
    loadHeader();
    loadRow('bridge', bridgeLoad);
    loadRow('baseline (pg, 1 statement)', baseLoad);
    console.log(
      `  throughput: bridge / baseline = ${fmt(rpsRatio * 100)}%  (target ≥ ${TARGET_RPS_RATIO * 100}%)  ${verdict(rpsPass)}`,
    );
    console.log(
      `  p99:        bridge / baseline = ${fmt(p99Ratio, 2)}×  (target ≤ ${TARGET_P99_RATIO}×)  ${verdict(p99Pass)}`,
    );

    console.log(
      '\n================ page latency vs portfolio size (sequential requests, ms) ================',
    );
    console.log(
      `  ${pad('properties / page', 20)} ${lpad('bridge p50', 11)} ${lpad('p99', 8)} ${lpad('baseline p50', 13)} ${lpad('p99', 8)}` +
        (RUN_WHATIFS ? ` ${lpad('fixed* p50', 17)} ${lpad('p99', 8)}` : ''),
    );
    for (const [key, r] of Object.entries(scaling)) {
      const [name, page] = key.split(':') as [SizeName, PageName];
      const w = whatIfScaling[key];
      console.log(
        `  ${pad(`${sizeLabel(name)} ${page}`, 20)} ${lpad(fmt(r.bridge.p50), 11)} ${lpad(fmt(r.bridge.p99), 8)} ${lpad(fmt(r.baseline.p50), 13)} ${lpad(fmt(r.baseline.p99), 8)}` +
          (w ? ` ${lpad(fmt(w.p50), 17)} ${lpad(fmt(w.p99), 8)}` : ''),
      );
    }
    const growth = (s: (k: string) => LatencyStats | undefined, page: PageName) =>
      fmt((s(`large:${page}`)?.p50 ?? NaN) / (s(`small:${page}`)?.p50 ?? NaN));
    const bridgeAt = (k: string) => scaling[k]?.bridge;
    const baseAt = (k: string) => scaling[k]?.baseline;
    console.log(
      `  p50 at 100k ÷ p50 at 1k: bridge first ${growth(bridgeAt, 'first')}×, deep ${growth(bridgeAt, 'deep')}×; ` +
        `baseline first ${growth(baseAt, 'first')}×, deep ${growth(baseAt, 'deep')}×` +
        (RUN_WHATIFS
          ? `; fixed* first ${growth((k) => whatIfScaling[k], 'first')}×, deep ${growth((k) => whatIfScaling[k], 'deep')}×`
          : ''),
    );
    if (RUN_WHATIFS) {
      console.log('  * fixed = bridge with what-if 6 below (index, select, scoped join, 5 s summary cache)');
    }
    console.log(
      '  first (cold) request of a London day, incl. the compliance rollup refresh: ' +
        SIZE_NAMES.map((k) => `${sizeLabel(k)}: ${fmt(cold[k] ?? NaN, 0)} ms`).join(', '),
    );

    console.log(
      `  day rollover (rollups stale), ${sizeLabel('small')} properties: one request ${fmt(rollover.single_request_ms, 0)} ms; ` +
        `${HERD} concurrent requests p50 ${fmt(rollover.concurrent.p50, 0)} ms, max ${fmt(rollover.concurrent.p99, 0)} ms ` +
        `= ${fmt(rollover.concurrent.p99 / rollover.single_request_ms, 1)}× the single request; ` +
        `peak RSS ${fmt(rollover.peak_rss_mb, 0)} MB`,
    );

    console.log('\n================ server memory (RSS) ================');
    console.log(
      `  bridge:   peak ${fmt(memory.bridge.peak_rss_mb_under_load, 0)} MB under load, ` +
        `${fmt(memory.bridge.peak_rss_mb_size_runs, 0)} MB in the size runs; high-water mark ` +
        `${fmt(memory.bridge.vm_hwm_mb_after_cold_rollup_refreshes, 0)} MB after the cold rollup refreshes ` +
        `(1k+10k+100k), ${fmt(memory.bridge.vm_hwm_mb_whole_run, 0)} MB over the whole run`,
    );
    console.log(
      `  baseline: peak ${fmt(memory.baseline.peak_rss_mb_under_load, 0)} MB under load, ` +
        `high-water mark ${fmt(memory.baseline.vm_hwm_mb_whole_run, 0)} MB`,
    );

    printProfile(
      '================ profile: one bridge request, 10,000 properties (in-process, sequential) ================',
      profile10k,
    );
    printProfile(
      '================ profile: one bridge request, 100,000 properties ================',
      profile100k,
    );
    printCpuProfiles(cpuProfiles);
    console.log('\nsummary statement plan at 100,000 properties (EXPLAIN ANALYZE, abridged):');
    for (const line of summaryPlan100k) console.log(`  ${line}`);

    if (RUN_WHATIFS) {
      console.log(
        '\n================ what-if: the proposed fixes, measured (app code unchanged) ================',
      );
      loadHeader();
      loadRow('bridge as is', bridgeLoad);
      for (const [label, r] of Object.entries(whatIfs)) loadRow(label, r);
      loadRow('baseline', baseLoad);
      for (const [label, r] of Object.entries(whatIfs)) {
        console.log(
          `  ${pad(label, 34)} throughput ${fmt((r.load.rps / baseLoad.load.rps) * 100)}% of baseline ` +
            `${verdict(r.load.rps / baseLoad.load.rps >= TARGET_RPS_RATIO)}, p99 ` +
            `${fmt(r.load.latencyMs.p99 / baseLoad.load.latencyMs.p99, 2)}× ` +
            `${verdict(r.load.latencyMs.p99 / baseLoad.load.latencyMs.p99 <= TARGET_P99_RATIO)}` +
            (notApplicable[label]
              ? `  (${notApplicable[label].join(', ')}: not applicable, nothing to fix)`
              : ''),
        );
      }
      for (const [label, idle] of Object.entries(notApplicable)) {
        if (!whatIfs[label]) {
          console.log(
            `  ${pad(label, 34)} not measured: ${idle.join(', ')} would change nothing in this code`,
          );
        }
      }
      if (whatIfProfile) {
        const keep = Object.entries(whatIfProfile).filter(([k]) => /whole request|page|statements/.test(k));
        printProfile('with the index: one request at 100,000 properties', Object.fromEntries(keep));
      }
    }

    Object.assign(results, {
      load: {
        bridge: loadJson(bridgeLoad),
        baseline: loadJson(baseLoad),
        ratios: { rps: round(rpsRatio, 3), p99: round(p99Ratio, 3) },
        targets: {
          rps_ratio_min: TARGET_RPS_RATIO,
          p99_ratio_max: TARGET_P99_RATIO,
          rps: verdict(rpsPass),
          p99: verdict(p99Pass),
        },
      },
      page_latency_ms: Object.fromEntries(
        Object.entries(scaling).map(([k, r]) => [
          k,
          {
            bridge: stat(r.bridge),
            baseline: stat(r.baseline),
            ...(whatIfScaling[k] ? { fixed_bridge: stat(whatIfScaling[k]) } : {}),
          },
        ]),
      ),
      day_rollover_small_tenant: rollover,
      memory,
      profile_ms: {
        '10k': Object.fromEntries(Object.entries(profile10k).map(([k, s]) => [k.trim(), stat(s)])),
        '100k': Object.fromEntries(Object.entries(profile100k).map(([k, s]) => [k.trim(), stat(s)])),
        ...(whatIfProfile
          ? {
              '100k_with_index': Object.fromEntries(
                Object.entries(whatIfProfile).map(([k, s]) => [k.trim(), stat(s)]),
              ),
            }
          : {}),
      },
      summary_plan_100k: summaryPlan100k,
      what_if_not_applicable: notApplicable,
      cpu_profile: Object.fromEntries(
        Object.entries(cpuProfiles).map(([k, r]) => [
          k,
          {
            requests: r.requests,
            busy_ms: round(r.busyMs),
            components_ms_per_request: Object.fromEntries(
              r.components.map((c) => [c.name, round(c.ms / Math.max(1, r.requests), 3)]),
            ),
            prisma_runtime_ms_per_request: Object.fromEntries(
              r.prismaSources.slice(0, 10).map((c) => [c.name, round(c.ms / Math.max(1, r.requests), 3)]),
            ),
          },
        ]),
      ),
      what_if: Object.fromEntries(
        Object.entries(whatIfs).map(([k, r]) => [
          k,
          {
            ...loadJson(r),
            rps_ratio: round(r.load.rps / baseLoad.load.rps, 3),
            p99_ratio: round(r.load.latencyMs.p99 / baseLoad.load.latencyMs.p99, 3),
          },
        ]),
      ),
      finished_at: new Date().toISOString(),
      total_seconds: round((Date.now() - startedAt) / 1000),
    });
    mkdirSync(path.join(BENCH_DIR, 'results'), { recursive: true });
    writeFileSync(path.join(BENCH_DIR, 'results/latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    log(`wrote bench/results/latest.json; total ${fmt((Date.now() - startedAt) / 1000)} s`);
  } finally {
    destroyAgent();
    await profiler?.close().catch(() => {});
    await Promise.all(servers.map((s) => s.stop().catch(() => s.kill())));
    await seedDb.$disconnect().catch(() => {});
    await pool.end().catch(() => {});
    await database.drop();
  }
}

main().catch((err: unknown) => {
  console.error('bench failed:', err);
  process.exit(1);
});
