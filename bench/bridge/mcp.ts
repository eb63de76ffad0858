// `npm run bench` (after the proposals): the portfolio read through MCP against the same read through REST, side by
// side in one run. One bridge (createApp as main.ts builds it, a child process) on a throw-away database with a
// 10,000-property tenant; first checks that a `tools/call` of get_portfolio answers, as `structuredContent`, the JSON
// of GET /api/assistant-bridge/portfolio for the same page (apart from `as_of`), then loads both with autocannon
// (50 connections, BENCH_DURATION s after a 2 s warm-up each) in rounds that alternate which goes first. A `tools/call`
// is what an MCP client sends after `initialize`: a POST of one JSON-RPC request with the negotiated protocol version
// and the key, answered with JSON (the server is stateless, so no session is set up per call). Targets, on the means
// of the rounds: MCP req/s ≥ 0.8× REST's, MCP p99 ≤ 1.5× REST's. Results go to bench/results/bridge-mcp-latest.json;
// exits 0 whatever the verdicts (non-zero when something breaks, e.g. the two answers differ).
//
// Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (50), BENCH_POOL_MAX (10), BENCH_LOAD_ROUNDS (4),
// BENCH_PROPERTIES (10000), TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432), BENCH_CPU_PROF_DIR (a V8
// CPU profile of the bridge's run; bench/gateway/profile.ts summarises it).
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@pa/db-tools/testing';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../../apps/platform-bridge/src/config.ts';
import { createPrismaClient } from '../../apps/platform-bridge/src/lib/db.ts';
import { ServerHandle } from '../lib/child.ts';
import { type CpuSplit, DISTURBED_SHARE, snapshot, split } from '../lib/cpu.ts';
import { httpRequest, type LoadResult, loadTest } from '../lib/load.ts';
import { createReport, fmt, pct, round } from '../lib/report.ts';
import { seedTenant } from './seed.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(HERE, '../results/bridge-mcp-latest.json');
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const POOL_MAX = Number(process.env.BENCH_POOL_MAX ?? 10);
const LOAD_ROUNDS = Math.max(1, Number(process.env.BENCH_LOAD_ROUNDS ?? 4));
const PROPERTIES = Number(process.env.BENCH_PROPERTIES ?? 10_000);
const WARMUP_S = 2;
const TARGET = { rpsRatio: 0.8, p99Ratio: 1.5 } as const;
const PAGE = 100;

const REST_PATH = `/api/assistant-bridge/portfolio?limit=${PAGE}`;
const MCP_PATH = '/api/assistant-bridge/mcp';
// the latest version the bridge's SDK speaks; a client sends the one it negotiated in `initialize`
const PROTOCOL_VERSION = '2025-11-25';
const MCP_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'get_portfolio', arguments: { limit: PAGE } },
});

type Contender = 'rest' | 'mcp';

const report = createReport('bench mcp');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

const restHeaders = (key: string) => ({ authorization: `Bearer ${key}` });
const mcpHeaders = (key: string) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL_VERSION,
});
const withoutAsOf = (v: unknown) => JSON.stringify(v).replace(/"as_of":"[^"]*"/, '"as_of":"…"');

/** Throws unless the tool's structuredContent is the REST answer for the same page (as_of aside). */
async function verifySameAnswer(bridge: ServerHandle, key: string): Promise<void> {
  const rest = await httpRequest(bridge.url(REST_PATH), { headers: restHeaders(key), agent });
  if (rest.status !== 200) throw new Error(`REST answered ${rest.status}: ${rest.body.slice(0, 300)}`);
  const mcp = await httpRequest(bridge.url(MCP_PATH), {
    method: 'POST',
    headers: mcpHeaders(key),
    body: MCP_CALL,
    agent,
  });
  if (mcp.status !== 200) throw new Error(`MCP answered ${mcp.status}: ${mcp.body.slice(0, 300)}`);
  const answer = JSON.parse(mcp.body) as {
    result?: { structuredContent?: unknown; isError?: boolean };
    error?: unknown;
  };
  if (!answer.result || answer.result.isError)
    throw new Error(`tools/call get_portfolio failed: ${mcp.body.slice(0, 500)}`);
  const [a, b] = [withoutAsOf(answer.result.structuredContent), withoutAsOf(JSON.parse(rest.body))];
  if (a !== b) {
    let i = 0;
    while (a[i] === b[i]) i++;
    throw new Error(`MCP and REST disagree at ${i}: ${a.slice(i - 60, i + 60)} / ${b.slice(i - 60, i + 60)}`);
  }
  const page = (JSON.parse(rest.body) as { properties: unknown[] }).properties.length;
  if (page !== PAGE) throw new Error(`expected ${PAGE} properties, got ${page}`);
  report.log(
    `  same page both ways: ${PAGE} properties; REST ${rest.body.length} bytes, MCP ${mcp.body.length} bytes ` +
      '(structuredContent and its text rendering)',
  );
}

interface LoadPhase {
  load: LoadResult;
  cpu: CpuSplit;
}

async function measure(
  bridge: ServerHandle,
  database: string,
  who: Contender,
  key: string,
  durationS: number,
): Promise<LoadPhase> {
  const opts =
    who === 'rest'
      ? { url: bridge.url(REST_PATH), headers: restHeaders(key) }
      : {
          url: bridge.url(MCP_PATH),
          requests: [{ method: 'POST' as const, path: MCP_PATH, headers: mcpHeaders(key), body: MCP_CALL }],
        };
  const before = snapshot(bridge.pid, database);
  const load = await loadTest({ ...opts, connections: CONNECTIONS, durationS });
  const cpu = split(before, snapshot(bridge.pid, database), load.requests);
  return { load, cpu };
}

function printPhase(who: Contender, p: LoadPhase): void {
  const l = p.load.latencyMs;
  if (p.load.non2xx || p.load.errors)
    report.log(`! ${who}: ${p.load.non2xx} non-2xx, ${p.load.errors} errors`);
  console.log(
    `  ${who.padEnd(4)} ${fmt(p.load.rps).padStart(8)} req/s  p50 ${fmt(l.p50, 0)} ms  p99 ${fmt(l.p99, 0)} ms  ` +
      `CPU/req: server ${fmt(p.cpu.serverMsPerUnit, 2)} ms, PostgreSQL ${fmt(p.cpu.postgresMsPerUnit, 2)} ms; ` +
      `other processes ${pct(p.cpu.otherShare)} of the machine` +
      (p.cpu.otherShare > DISTURBED_SHARE ? '  ! DISTURBED' : ''),
  );
}

function meanOf(runs: LoadPhase[]) {
  const mean = (f: (r: LoadPhase) => number) => runs.reduce((sum, r) => sum + f(r), 0) / runs.length;
  return {
    rps: mean((r) => r.load.rps),
    p50: mean((r) => r.load.latencyMs.p50),
    p99: mean((r) => r.load.latencyMs.p99),
    serverMs: mean((r) => r.cpu.serverMsPerUnit),
    postgresMs: mean((r) => r.cpu.postgresMsPerUnit),
  };
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  report.log(
    `load average at start: ${os
      .loadavg()
      .map((v) => fmt(v, 2))
      .join(' ')} (the machine is shared)`,
  );
  const database = await createTestDatabase({ prefix: 'bench_mcp', migrationsDir: MIGRATIONS_DIR });
  const dbName = new URL(database.url).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => {}); // DROP DATABASE ... WITH (FORCE) may end a closing idle connection
  const db = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 2 }));
  let bridge: ServerHandle | undefined;
  try {
    const tenant = await report.phase(`seeding a ${PROPERTIES.toLocaleString('en-GB')}-property tenant`, () =>
      seedTenant(pool, db, { slug: 'bench-mcp', name: 'Bench MCP', properties: PROPERTIES }),
    );
    await db.$disconnect();
    await pool.query('VACUUM (ANALYZE)');

    bridge = await ServerHandle.start({
      label: 'bridge',
      entry: path.join(HERE, 'server.ts'),
      env: { BENCH_SERVER: 'bridge', BENCH_DATABASE_URL: database.url, BENCH_POOL_MAX: String(POOL_MAX) },
      // BENCH_CPU_PROF_DIR: a V8 CPU profile of the bridge's whole run is written there when it stops
      execArgv: process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF_DIR, 'mcp')}`]
        : [],
    });
    const server = bridge;
    await report.phase('checking that tools/call get_portfolio answers the REST page', () =>
      verifySameAnswer(server, tenant.key),
    );

    // the same warm-up under load for both, so that neither round finds the other's code better optimised
    for (const who of ['rest', 'mcp'] as const) await measure(server, dbName, who, tenant.key, 5);
    const rounds = await report.phase(
      `side by side: first page (limit=${PAGE}) of the ${PROPERTIES.toLocaleString('en-GB')}-property tenant, ` +
        `${CONNECTIONS} connections, ${DURATION_S} s after ${WARMUP_S} s warm-up` +
        (LOAD_ROUNDS > 1 ? `, ${LOAD_ROUNDS} rounds alternating which goes first` : ''),
      async () => {
        const runs: Record<Contender, LoadPhase>[] = [];
        for (let r = 0; r < LOAD_ROUNDS; r++) {
          const order: Contender[] = r % 2 === 0 ? ['rest', 'mcp'] : ['mcp', 'rest'];
          const run = {} as Record<Contender, LoadPhase>;
          for (const who of order) {
            await measure(server, dbName, who, tenant.key, WARMUP_S);
            run[who] = await measure(server, dbName, who, tenant.key, DURATION_S);
            printPhase(who, run[who]);
          }
          runs.push(run);
        }
        return runs;
      },
    );

    const rest = meanOf(rounds.map((r) => r.rest));
    const mcp = meanOf(rounds.map((r) => r.mcp));
    const rpsRatio = mcp.rps / rest.rps;
    const p99Ratio = mcp.p99 / rest.p99;
    const of = LOAD_ROUNDS > 1 ? ` (means of ${LOAD_ROUNDS} rounds)` : '';
    console.log(
      `\n  ${'mean'.padEnd(6)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}  CPU/req server\n` +
        `  ${'REST'.padEnd(6)} ${fmt(rest.rps).padStart(8)} ${fmt(rest.p50, 0).padStart(7)} ${fmt(rest.p99, 0).padStart(7)}  ${fmt(rest.serverMs, 2)} ms\n` +
        `  ${'MCP'.padEnd(6)} ${fmt(mcp.rps).padStart(8)} ${fmt(mcp.p50, 0).padStart(7)} ${fmt(mcp.p99, 0).padStart(7)}  ${fmt(mcp.serverMs, 2)} ms`,
    );
    report.target(
      `MCP tools/call get_portfolio req/s ≥ ${TARGET.rpsRatio}× GET /portfolio's for the same page`,
      `${fmt(mcp.rps)} vs ${fmt(rest.rps)} req/s = ${fmt(rpsRatio, 3)}×${of}`,
      rpsRatio >= TARGET.rpsRatio,
    );
    const byRound = rounds.map((r) => r.mcp.load.rps / r.rest.load.rps);
    if (byRound.length > 1)
      console.log(`  MCP/REST req/s by round: ${byRound.map((x) => fmt(x, 3)).join(', ')}`);
    report.target(
      `MCP p99 ≤ ${TARGET.p99Ratio}× REST's`,
      `${fmt(mcp.p99, 0)} vs ${fmt(rest.p99, 0)} ms = ${fmt(p99Ratio, 2)}×${of}`,
      p99Ratio <= TARGET.p99Ratio,
    );
    console.log(
      `  CPU per request, MCP/REST: server ${fmt(mcp.serverMs / rest.serverMs, 2)}× ` +
        `(${fmt(mcp.serverMs, 2)} vs ${fmt(rest.serverMs, 2)} ms; less sensitive to other work on the machine)`,
    );

    const disturbed = rounds.some((r) => [r.rest, r.mcp].some((x) => x.cpu.otherShare > DISTURBED_SHARE));
    report.printTargets(disturbed ? 'DISTURBED load run: other processes used the CPU' : '');
    const file = report.write(RESULTS_FILE, {
      started_at: new Date(startedAt).toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, load_average: os.loadavg() },
      config: { connections: CONNECTIONS, duration_s: DURATION_S, pool_max: POOL_MAX, warmup_s: WARMUP_S },
      properties: PROPERTIES,
      page: PAGE,
      load: { rounds, rest, mcp, rps_ratio: rpsRatio, rps_ratio_by_round: byRound, p99_ratio: p99Ratio },
      disturbed,
      total_s: round((Date.now() - startedAt) / 1000, 1),
    });
    report.log(`wrote ${path.relative(process.cwd(), file)}`);
  } finally {
    agent.destroy();
    await bridge?.stop().catch(() => bridge?.kill());
    await db.$disconnect().catch(() => {});
    await pool.end().catch(() => {});
    await database.drop();
  }
}

main().catch((err: unknown) => {
  console.error('bench failed:', err);
  process.exit(1);
});
