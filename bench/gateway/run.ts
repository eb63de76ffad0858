// The agent gateway's benchmark (`tsx bench/gateway/run.ts`): POST /api/chat with the `local` provider and the
// SSE stream GET /api/chat/stream, each beside a baseline measured in the same run (baseline.ts: a bare
// Express app with the same replies and events, without database, rate limiter or helmet), and 1,000 idle
// open streams against the gateway's memory. Prints figures, ratios and PASS/FAIL per target, writes
// bench/results/gateway-latest.json, and exits 0 whatever the verdicts (non-zero only when something breaks,
// e.g. the two servers disagree on what they send).
//
// The servers run as child processes (server.ts); the database is a fresh PostgreSQL database made with
// createTestDatabase (prefix bench_gw, dropped at the end); Redis keys live under a unique prefix, deleted at
// the end. Environment: BENCH_GW_DURATION (s per load run, default 10), BENCH_GW_CONNECTIONS (the chat
// phase's concurrency levels, default 50,100,200; the streams' phases use the first),
// BENCH_GW_SESSIONS (500), BENCH_GW_IDLE_STREAMS (1000), BENCH_GW_PROFILE=0 (no CPU profile on a miss), BENCH_GW_PROFILE_DIR (the raw
// profiles of the gateway and, under the same load, of the baseline are written there),
// BENCH_GW_RETRY_BUDGET (s of repeated load runs allowed when other processes disturbed one, default 45),
// TEST_DATABASE_URL and REDIS_URL as for the tests.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@pa/db-tools/testing';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../../apps/agent-gateway/src/config.ts';
import { connectRedis } from '../../apps/agent-gateway/src/lib/redis.ts';
import { type Listening, ServerHandle as Handle } from '../lib/child.ts';
import { type CpuSplit, DISTURBED_SHARE, snapshot, split } from '../lib/cpu.ts';
import type { LoadResult } from '../lib/load.ts';
import { createReport, fmt, pct } from '../lib/report.ts';
import {
  chatLoad,
  openIdleStreams,
  sequentialFirstEvent,
  type StreamLoadResult,
  streamLoad,
} from './load.ts';
import { printProfile, type ProfileSummary, summariseProfile } from './profile.ts';
import { checkSameOutput } from './same-output.ts';
import type { CpuProfile, ServerKind, ServerStats, ToParent } from './server.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RESULTS_FILE = path.join(REPO_ROOT, 'bench/results/gateway-latest.json');

const DURATION_S = Number(process.env.BENCH_GW_DURATION ?? 10);
const CONNECTION_LEVELS = (process.env.BENCH_GW_CONNECTIONS ?? '50,100,200').split(',').map(Number);
const CONNECTIONS = CONNECTION_LEVELS[0]!;
const SESSIONS = Number(process.env.BENCH_GW_SESSIONS ?? 500);
const IDLE_STREAMS = Number(process.env.BENCH_GW_IDLE_STREAMS ?? 1000);
const PROFILE = process.env.BENCH_GW_PROFILE !== '0';
const PROFILE_DIR = process.env.BENCH_GW_PROFILE_DIR;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const WARMUP_S = 2;
const MESSAGE = 'help';
const STREAM_CLIENTS = 50;
const TTFE = { warmup: 20, samples: 200 };
const PROFILE_S = 5;
const IDLE_DELAY_MS = 5000; // the config's maximum: one provider chunk every 5 s
const IDLE_OPEN_CONCURRENCY = 100;
const IDLE_HOLD_SAMPLE_MS = 3000;

const TARGET = { chatRatio: 0.5, firstEventDiffMs: 10, idleGrowthMb: 100 } as const;
// A disturbed load run (see DISTURBED_SHARE) is repeated while this many seconds of repeats are left, and the
// least disturbed attempt is kept.
let retryBudgetS = Number(process.env.BENCH_GW_RETRY_BUDGET ?? 45);

const RUN_ID = randomBytes(4).toString('hex');
/** the benchmark database's name, once created (for the CPU split) */
let DB_NAME = '';
const REDIS_PREFIX = `bench_gw:${process.pid}:${RUN_ID}:`;

const GATEWAY_CONFIG: Record<string, string> = {
  REDIS_URL,
  REDIS_PREFIX: `${REDIS_PREFIX}main:`,
  LOG_LEVEL: 'silent',
  PROVIDER: 'local',
  // The config's maximum; run.ts also clears the limiter's keys before each phase, so it never answers 429
  // while its bookkeeping (a Redis round trip per request) still runs.
  CHAT_RATE_LIMIT_PER_MIN: '100000',
  MAX_STREAMS_PER_IP: String(Math.min(10_000, Math.max(2000, IDLE_STREAMS * 2))),
  LOCAL_PROVIDER_DELAY_MS: '0',
};

// ---- formatting -------------------------------------------------------------------------------------------

const report = createReport('bench gateway');

type ServerHandle = Handle<Extract<ToParent, Listening>, ServerStats>;
const startServer = (label: string, kind: ServerKind, env: Record<string, string>): Promise<ServerHandle> =>
  Handle.start({
    label,
    entry: path.join(REPO_ROOT, 'bench/gateway/server.ts'),
    env: { BENCH_GW_KIND: kind, ...env },
    // stats after a forced GC
    execArgv: ['--expose-gc'],
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cpuLine(c: CpuSplit, unit: string): string {
  return (
    `CPU per ${unit}: server ${fmt(c.serverMsPerUnit, 2)} ms, PostgreSQL ${fmt(c.postgresMsPerUnit, 2)} ms, ` +
    `Redis ${fmt(c.redisMsPerUnit, 2)} ms, load generator ${fmt(c.loadMsPerUnit, 2)} ms | machine: server ` +
    `${pct(c.serverShare)}, PostgreSQL ${pct(c.postgresShare)}, Redis ${pct(c.redisShare)}, load ` +
    `${pct(c.loadShare)}, other ${pct(c.otherShare)}, idle ${pct(c.idleShare)}` +
    (c.otherShare > DISTURBED_SHARE ? '  ** DISTURBED: other processes used the CPU **' : '')
  );
}

// ---- helpers ----------------------------------------------------------------------------------------------

async function clearRedis(redis: Awaited<ReturnType<typeof connectRedis>>, pattern: string): Promise<number> {
  if (!redis) return 0;
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** Statements per request (a stream is one request), from the gateway's own counts over the same window. */
function queryDelta(a: ServerStats, b: ServerStats) {
  const units = b.requests - a.requests;
  const out: Record<string, { perUnit: number; meanMs: number }> = {};
  let total = 0;
  for (const [kind, after] of Object.entries(b.queries)) {
    const before = a.queries[kind] ?? { count: 0, ms: 0 };
    const count = after.count - before.count;
    if (count <= 0) continue;
    total += count;
    out[kind] = { perUnit: count / Math.max(1, units), meanMs: (after.ms - before.ms) / count };
  }
  const texts = Object.entries(b.statements)
    .map(([text, n]) => ({
      text: text.replace(/\s+/g, ' ').replaceAll('"public".', '').trim(),
      perUnit: (n - (a.statements[text] ?? 0)) / Math.max(1, units),
    }))
    .filter((t) => t.perUnit > 0)
    .sort((x, y) => y.perUnit - x.perUnit);
  return { requests: units, statementsPerUnit: total / Math.max(1, units), byKind: out, statements: texts };
}

function queryLine(q: ReturnType<typeof queryDelta>, unit: string): string {
  const parts = Object.entries(q.byKind)
    .sort((x, y) => y[1].perUnit - x[1].perUnit)
    .map(([k, v]) => `${k} ${fmt(v.perUnit, 2)} (${fmt(v.meanMs, 2)} ms)`);
  return `PostgreSQL statements per ${unit}: ${fmt(q.statementsPerUnit, 2)} — ${parts.join(', ')} (mean time per statement, from the client)`;
}

// ---- phases -----------------------------------------------------------------------------------------------

/** Runs a load measurement; repeats it while it was disturbed and the retry budget lasts. */
async function leastDisturbed<T extends { cpu: CpuSplit }>(
  label: string,
  costS: number,
  run: () => Promise<T>,
): Promise<T & { attempts: number }> {
  let best = await run();
  let attempts = 1;
  while (best.cpu.otherShare > DISTURBED_SHARE && retryBudgetS >= costS) {
    retryBudgetS -= costS;
    console.log(
      `    (${label}: other processes used ${pct(best.cpu.otherShare)} of the CPU; measuring again)`,
    );
    await sleep(2000);
    const next = await run();
    attempts++;
    if (next.cpu.otherShare < best.cpu.otherShare) best = next;
  }
  return { ...best, attempts };
}

interface Measured<L> {
  load: L;
  cpu: CpuSplit;
  queries?: ReturnType<typeof queryDelta>;
}

/**
 * The server's stats and the CPU split around `run`; `run` may restart the CPU count (after its own warm-up).
 * `units`: the requests or streams the CPU is shared between.
 */
async function measured<L>(
  server: ServerHandle,
  measureQueries: boolean,
  run: (restartCpu: () => void) => Promise<L>,
  units: (load: L) => number,
): Promise<Measured<L> & { s0: ServerStats; s1: ServerStats }> {
  const s0 = await server.stats();
  let c0 = snapshot(server.pid, DB_NAME);
  const load = await run(() => (c0 = snapshot(server.pid, DB_NAME)));
  const c1 = snapshot(server.pid, DB_NAME);
  const s1 = await server.stats();
  return {
    load,
    cpu: split(c0, c1, units(load)),
    ...(measureQueries ? { queries: queryDelta(s0, s1) } : {}),
    s0,
    s1,
  };
}

interface ChatMeasure extends Measured<LoadResult> {
  eventLoopUtilisation: number;
}

async function measureChat(
  server: ServerHandle,
  measureQueries: boolean,
  connections: number,
  durationS = DURATION_S,
): Promise<ChatMeasure> {
  const opts = {
    baseUrl: server.url(),
    connections,
    message: MESSAGE,
    sessions: SESSIONS,
    sessionPrefix: `bench-chat-${RUN_ID}-`,
  };
  await chatLoad({ ...opts, durationS: WARMUP_S });
  const { s0, s1, ...m } = await measured(
    server,
    measureQueries,
    () => chatLoad({ ...opts, durationS }),
    (l) => l.requests,
  );
  return {
    ...m,
    eventLoopUtilisation:
      (s1.eventLoopActiveMs - s0.eventLoopActiveMs) /
      (s1.eventLoopActiveMs - s0.eventLoopActiveMs + s1.eventLoopIdleMs - s0.eventLoopIdleMs),
  };
}

const streamUrl = (server: ServerHandle, prefix: string) => (i: number) =>
  server.url(`/api/chat/stream?message=${encodeURIComponent(MESSAGE)}&sessionId=${prefix}${i % SESSIONS}`);

async function measureStreams(
  server: ServerHandle,
  measureQueries: boolean,
): Promise<Measured<StreamLoadResult>> {
  const {
    s0: _s0,
    s1: _s1,
    ...m
  } = await measured(
    server,
    measureQueries,
    (restartCpu) =>
      streamLoad({
        streamUrl: streamUrl(server, `bench-sse-${RUN_ID}-`),
        clients: STREAM_CLIENTS,
        durationS: DURATION_S,
        warmupS: WARMUP_S,
        // CPU is counted from the end of the warm-up
        onMeasuring: restartCpu,
      }),
    (l) => l.streams,
  );
  return m;
}

async function profileUnderChatLoad(server: ServerHandle): Promise<ProfileSummary> {
  const load = chatLoad({
    baseUrl: server.url(),
    connections: CONNECTIONS,
    message: MESSAGE,
    sessions: SESSIONS,
    sessionPrefix: `bench-chat-${RUN_ID}-`,
    durationS: PROFILE_S + 2,
  });
  await sleep(1000);
  const before = (await server.stats()).requests;
  await server.ask({ type: 'profile-start' });
  await sleep(PROFILE_S * 1000);
  const { profile } = await server.ask<{ profile: CpuProfile | null }>({ type: 'profile-stop' });
  const requests = (await server.stats()).requests - before;
  await load;
  if (!profile) throw new Error('no CPU profile');
  // BENCH_GW_PROFILE_DIR: the raw profile too, with the requests answered while it ran, for a function-by-function
  // comparison (per request) with the baseline's
  if (PROFILE_DIR) {
    fs.mkdirSync(PROFILE_DIR, { recursive: true });
    fs.writeFileSync(path.join(PROFILE_DIR, `${server.label}.cpuprofile`), JSON.stringify(profile));
    fs.writeFileSync(path.join(PROFILE_DIR, `${server.label}.requests`), String(requests));
  }
  return summariseProfile(profile);
}

async function countInterrupted(sql: pg.Client, prefix: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM turns t JOIN chat_sessions s ON s.id = t.session_id
      WHERE s.external_id LIKE $1 AND t.role = 'assistant' AND t.status = 'interrupted'`,
    [`${prefix}%`],
  );
  return rows[0]!.n;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(100);
  }
  return check();
}

async function sampleRss(server: ServerHandle, ms: number): Promise<{ mean: number; max: number }> {
  const samples: number[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    samples.push(server.rssMb());
    await sleep(100);
  }
  return { mean: samples.reduce((a, b) => a + b, 0) / samples.length, max: Math.max(...samples) };
}

async function idlePhase(databaseUrl: string, sql: pg.Client) {
  const server = await startServer('gateway (idle streams)', 'gateway', {
    BENCH_GW_DATABASE_URL: databaseUrl,
    BENCH_GW_CONFIG: JSON.stringify({
      ...GATEWAY_CONFIG,
      REDIS_PREFIX: `${REDIS_PREFIX}idle:`,
      LOCAL_PROVIDER_DELAY_MS: String(IDLE_DELAY_MS),
    }),
  });
  try {
    const url = (prefix: string) => (i: number) =>
      server.url(`/api/chat/stream?message=${encodeURIComponent(MESSAGE)}&sessionId=${prefix}${i}`);
    // Warm-up: the same path (streams opened, first event, aborted, aborts stored) on 100 streams.
    const warmPrefix = `bench-idlewarm-${RUN_ID}-`;
    const warm = await openIdleStreams({
      streamUrl: url(warmPrefix),
      count: 100,
      concurrency: 50,
      timeoutMs: 20_000,
    });
    await sleep(300);
    warm.closeAll();
    await waitFor(async () => (await countInterrupted(sql, warmPrefix)) >= warm.open, 15_000);
    await sleep(1000);
    const statsBefore = await server.stats({ gc: true });
    await sleep(500);
    const before = await sampleRss(server, 1000);

    const prefix = `bench-idle-${RUN_ID}-`;
    server.takePeakRssMb();
    const streams = await openIdleStreams({
      streamUrl: url(prefix),
      count: IDLE_STREAMS,
      concurrency: IDLE_OPEN_CONCURRENCY,
      timeoutMs: 30_000,
    });
    await sleep(1000);
    const held = await sampleRss(server, IDLE_HOLD_SAMPLE_MS);
    const statsHeld = await server.stats();
    const statsHeldGc = await server.stats({ gc: true });
    const heldAfterGc = server.rssMb();
    const peak = server.takePeakRssMb();
    const eventsWhileHeld = streams.events();
    const endedByServer = streams.ended();

    const closedAt = Date.now();
    streams.closeAll();
    let stored = 0;
    const allStored = await waitFor(async () => {
      stored = await countInterrupted(sql, prefix);
      return stored >= streams.open;
    }, 30_000);
    const storedMs = Date.now() - closedAt;
    await waitFor(async () => (await server.stats()).connections === 0, 5000);
    await sleep(1000);
    // forced GC: what the 1,000 streams left behind, if anything
    const statsAfter = await server.stats({ gc: true });
    const after = await sampleRss(server, 1000);

    const growth = held.mean - before.mean;
    return {
      streams: IDLE_STREAMS,
      open: streams.open,
      failed: streams.failed.length,
      failures: streams.failed.slice(0, 3),
      openingMs: streams.openingMs,
      firstEventMs: streams.firstEventMs,
      eventsWhileHeld,
      endedByServerWhileHeld: endedByServer,
      serverConnectionsHeld: statsHeld.connections,
      rssMb: {
        before: before.mean,
        held: held.mean,
        heldMax: held.max,
        heldAfterGc,
        peak,
        after: after.mean,
      },
      heapUsedMb: {
        before: statsBefore.heapUsed / 2 ** 20,
        held: statsHeld.heapUsed / 2 ** 20,
        heldAfterGc: statsHeldGc.heapUsed / 2 ** 20,
        after: statsAfter.heapUsed / 2 ** 20,
      },
      growthMb: growth,
      perStreamKb: (growth * 1024) / Math.max(1, streams.open),
      retainedPerStreamKb: (statsHeldGc.heapUsed - statsBefore.heapUsed) / 1024 / Math.max(1, streams.open),
      interruptedStored: stored,
      allInterruptedStored: allStored,
      interruptedStoredMs: storedMs,
      serverConnectionsAfter: statsAfter.connections,
    };
  } finally {
    await server.stop();
  }
}

// ---- phases of the report ---------------------------------------------------------------------------------

/**
 * 1. POST /api/chat. A server's requests/s is its throughput when the offered load saturates it. The gateway
 * waits on Redis and PostgreSQL within each request, so at low concurrency it is bound by latency (its event
 * loop partly idle) while the bare baseline is already CPU-bound; so both are measured at each level, alternating
 * which goes first, and the target compares their peaks. The per-level ratios are printed too.
 */
async function chatPhase(
  gateway: ServerHandle,
  baseline: ServerHandle,
  resetLimiter: () => Promise<unknown>,
) {
  const chatCost = WARMUP_S + DURATION_S + 1;
  const levels: { connections: number; gateway: ChatMeasure; baseline: ChatMeasure }[] = [];
  for (const [i, connections] of CONNECTION_LEVELS.entries()) {
    const measure = async (name: 'gateway' | 'baseline') => {
      await resetLimiter();
      const server = name === 'gateway' ? gateway : baseline;
      return leastDisturbed(`${name} at ${connections}`, chatCost, () =>
        measureChat(server, name === 'gateway', connections),
      );
    };
    const order = i % 2 === 0 ? (['gateway', 'baseline'] as const) : (['baseline', 'gateway'] as const);
    const first = await measure(order[0]);
    const second = await measure(order[1]);
    levels.push({
      connections,
      gateway: order[0] === 'gateway' ? first : second,
      baseline: order[0] === 'gateway' ? second : first,
    });
  }
  const peakOf = (name: 'gateway' | 'baseline') =>
    levels.reduce((best, l) => (l[name].load.rps > best[name].load.rps ? l : best));
  const gatewayPeak = peakOf('gateway');
  const baselinePeak = peakOf('baseline');
  const chatGateway = gatewayPeak.gateway;
  const chatBaseline = baselinePeak.baseline;
  const ratio = chatGateway.load.rps / chatBaseline.load.rps;
  console.log(
    '    connections            req/s   p50 ms   p90 ms   p99 ms   non-2xx  errors  loop busy   ratio',
  );
  for (const level of levels) {
    for (const name of ['gateway', 'baseline'] as const) {
      const r = level[name];
      const l = r.load;
      console.log(
        `    ${String(level.connections).padStart(5)}  ${name.padEnd(10)} ${fmt(l.rps, 0).padStart(7)} ` +
          `${fmt(l.latencyMs.p50).padStart(8)} ${fmt(l.latencyMs.p90).padStart(8)} ` +
          `${fmt(l.latencyMs.p99).padStart(8)} ${String(l.non2xx).padStart(9)} ` +
          `${String(l.errors + l.timeouts).padStart(7)} ${pct(r.eventLoopUtilisation).padStart(10)}` +
          (name === 'gateway'
            ? `   ${fmt(level.gateway.load.rps / level.baseline.load.rps, 3).padStart(5)}`
            : ''),
      );
    }
  }
  console.log(
    `    peak gateway ${fmt(chatGateway.load.rps, 0)} req/s (${gatewayPeak.connections} connections) / peak ` +
      `baseline ${fmt(chatBaseline.load.rps, 0)} req/s (${baselinePeak.connections} connections) = ` +
      `${fmt(ratio, 3)} (target ≥ ${TARGET.chatRatio})`,
  );
  const pass = report.target(
    `POST /api/chat peak ≥ ${pct(TARGET.chatRatio)} of its bare baseline`,
    `${fmt(chatGateway.load.rps, 0)} vs ${fmt(chatBaseline.load.rps, 0)} req/s = ${pct(ratio)} ` +
      `(at ${CONNECTIONS} connections: ${pct(levels[0]!.gateway.load.rps / levels[0]!.baseline.load.rps)})`,
    ratio >= TARGET.chatRatio,
  );
  // When both servers are bound by their one JS thread, their req/s ratio on a quiet machine is about the inverse
  // ratio of their CPU time per request; this figure is much less sensitive to other processes on the machine.
  const cpuRatio = chatBaseline.cpu.serverMsPerUnit / chatGateway.cpu.serverMsPerUnit;
  console.log(
    `    CPU time per request at the peaks, baseline/gateway: ${fmt(cpuRatio, 3)} (the req/s ratio to ` +
      `expect when both are bound by their JS thread; less sensitive to other load on the machine)`,
  );
  console.log(`    gateway:  ${cpuLine(chatGateway.cpu, 'request')}`);
  console.log(`    baseline: ${cpuLine(chatBaseline.cpu, 'request')}`);
  if (chatGateway.queries) {
    console.log(`    ${queryLine(chatGateway.queries, 'request')}`);
    for (const t of chatGateway.queries.statements.slice(0, 6))
      console.log(`      ${fmt(t.perUnit, 2)} × ${t.text.slice(0, 110)}${t.text.length > 110 ? '…' : ''}`);
  }
  return {
    levels: levels.map((l) => ({ ...l, ratio: l.gateway.load.rps / l.baseline.load.rps })),
    peak: {
      gateway: { connections: gatewayPeak.connections, ...chatGateway },
      baseline: { connections: baselinePeak.connections, ...chatBaseline },
    },
    ratio,
    cpuRatio,
    target: TARGET.chatRatio,
    pass,
  };
}

/** 2. Time to first event, sequential streams alternating between the servers. */
async function firstEventPhase(gateway: ServerHandle, baseline: ServerHandle) {
  const ttfe = await sequentialFirstEvent(
    [
      { name: 'gateway', streamUrl: streamUrl(gateway, `bench-ttfe-${RUN_ID}-`) },
      { name: 'baseline', streamUrl: streamUrl(baseline, `bench-ttfe-${RUN_ID}-`) },
    ],
    TTFE,
  );
  const tg = ttfe.gateway!;
  const tb = ttfe.baseline!;
  const differenceMs = {
    p50: tg.firstEventMs.p50 - tb.firstEventMs.p50,
    p99: tg.firstEventMs.p99 - tb.firstEventMs.p99,
  };
  console.log('                 first event p50 / p90 / p99 ms     whole stream p50 / p99 ms   non-200');
  for (const [name, t] of [
    ['gateway', tg],
    ['baseline', tb],
  ] as const) {
    console.log(
      `    ${name.padEnd(10)} ${fmt(t.firstEventMs.p50, 2).padStart(8)} / ${fmt(t.firstEventMs.p90, 2).padStart(6)} / ` +
        `${fmt(t.firstEventMs.p99, 2).padStart(6)}        ${fmt(t.streamMs.p50, 2).padStart(7)} / ` +
        `${fmt(t.streamMs.p99, 2).padStart(6)}       ${t.non200}`,
    );
  }
  console.log(`    difference: p50 +${fmt(differenceMs.p50, 2)} ms, p99 +${fmt(differenceMs.p99, 2)} ms`);
  const pass = report.target(
    `time to first event within ${TARGET.firstEventDiffMs} ms of the baseline's (p50)`,
    `+${fmt(differenceMs.p50, 2)} ms`,
    differenceMs.p50 <= TARGET.firstEventDiffMs,
  );
  return { gateway: tg, baseline: tb, differenceMs, targetMs: TARGET.firstEventDiffMs, pass };
}

/** 3. Events/s of looping stream clients. */
async function streamsPhase(gateway: ServerHandle, baseline: ServerHandle) {
  const cost = WARMUP_S + DURATION_S + 1;
  const streamGateway = await leastDisturbed('gateway', cost, () => measureStreams(gateway, true));
  const streamBaseline = await leastDisturbed('baseline', cost, () => measureStreams(baseline, false));
  console.log(
    '                 events/s  streams/s  stream p50 / p99 ms  first event p50 / p99 ms  non-200  errors',
  );
  for (const [name, r] of [
    ['gateway', streamGateway],
    ['baseline', streamBaseline],
  ] as const) {
    const l = r.load;
    console.log(
      `    ${name.padEnd(10)} ${fmt(l.eventsPerS, 0).padStart(9)} ${fmt(l.streamsPerS, 0).padStart(10)} ` +
        `${fmt(l.streamMs.p50).padStart(10)} / ${fmt(l.streamMs.p99).padStart(6)} ` +
        `${fmt(l.firstEventMs.p50).padStart(13)} / ${fmt(l.firstEventMs.p99).padStart(6)}  ${String(l.non200).padStart(9)} ` +
        `${String(l.errors).padStart(7)}`,
    );
  }
  const eventsRatio = streamGateway.load.eventsPerS / streamBaseline.load.eventsPerS;
  console.log(`    ratio gateway/baseline ${fmt(eventsRatio, 3)} events/s (no target; reported)`);
  console.log(`    gateway:  ${cpuLine(streamGateway.cpu, 'stream')}`);
  console.log(`    baseline: ${cpuLine(streamBaseline.cpu, 'stream')}`);
  if (streamGateway.queries) console.log(`    ${queryLine(streamGateway.queries, 'stream')}`);
  return { gateway: streamGateway, baseline: streamBaseline, eventsRatio };
}

/** 5. Idle streams against a second gateway's memory. */
async function idleStreamsPhase(databaseUrl: string, sql: pg.Client) {
  const idle = await idlePhase(databaseUrl, sql);
  console.log(
    `    opened ${idle.open}/${idle.streams} in ${fmt(idle.openingMs, 0)} ms (first event p50 ` +
      `${fmt(idle.firstEventMs.p50)} ms, p99 ${fmt(idle.firstEventMs.p99)} ms), failed ${idle.failed}, server ` +
      `sockets while held ${idle.serverConnectionsHeld}, ended by the server while held ${idle.endedByServerWhileHeld}`,
  );
  for (const f of idle.failures) console.log(`      failure: ${f.status} ${f.body.slice(0, 200)}`);
  console.log(
    `    gateway RSS: before ${fmt(idle.rssMb.before)} MB → held ${fmt(idle.rssMb.held)} MB (max ` +
      `${fmt(idle.rssMb.heldMax)}, after forced GC ${fmt(idle.rssMb.heldAfterGc)}) → after closing ` +
      `${fmt(idle.rssMb.after)} MB`,
  );
  console.log(
    `    heap used: before ${fmt(idle.heapUsedMb.before)} MB, held ${fmt(idle.heapUsedMb.held)} MB ` +
      `(${fmt(idle.heapUsedMb.heldAfterGc)} after GC, ${fmt(idle.retainedPerStreamKb)} KB retained per stream), ` +
      `after closing and a forced GC ${fmt(idle.heapUsedMb.after)} MB`,
  );
  console.log(
    `    growth ${fmt(idle.growthMb)} MB for ${idle.open} streams (${fmt(idle.perStreamKb)} KB each)`,
  );
  const pass = report.target(
    `${IDLE_STREAMS} idle streams, gateway memory growth < ${TARGET.idleGrowthMb} MB`,
    `${fmt(idle.growthMb)} MB`,
    idle.open === IDLE_STREAMS && idle.growthMb < TARGET.idleGrowthMb,
  );
  console.log(
    `    after closing: ${idle.interruptedStored}/${idle.open} interrupted assistant turns stored in ` +
      `${fmt(idle.interruptedStoredMs, 0)} ms ${idle.allInterruptedStored ? '(all)' : '(NOT ALL)'}, server ` +
      `sockets ${idle.serverConnectionsAfter}`,
  );
  return { ...idle, targetMb: TARGET.idleGrowthMb, pass };
}

// ---- main -------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = Date.now();
  report.log(
    `${os.cpus().length} CPUs, Node ${process.version}, ${DURATION_S} s per load run, load average ` +
      `${os
        .loadavg()
        .map((v) => fmt(v, 2))
        .join(' ')} (the machine is shared)`,
  );
  const database = await createTestDatabase({ prefix: 'bench_gw', migrationsDir: MIGRATIONS_DIR });
  DB_NAME = new URL(database.url).pathname.slice(1);
  const redis = await connectRedis(REDIS_URL);
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  const servers: ServerHandle[] = [];
  try {
    const pgVersion = (await sql.query<{ v: string }>("SELECT current_setting('server_version') AS v"))
      .rows[0]!.v;
    const [gateway, baseline] = await Promise.all([
      startServer('gateway', 'gateway', {
        BENCH_GW_DATABASE_URL: database.url,
        BENCH_GW_CONFIG: JSON.stringify(GATEWAY_CONFIG),
      }),
      startServer('baseline', 'baseline', {}),
    ]);
    servers.push(gateway, baseline);
    report.log(
      `PostgreSQL ${pgVersion} (database ${DB_NAME}, pool 10), Redis ${gateway.listening.redis} (prefix ` +
        `${REDIS_PREFIX}), gateway pid ${gateway.pid}, baseline pid ${baseline.pid}`,
    );
    const same = await report.phase('checking that gateway and baseline send the same output', async () => {
      const same = await checkSameOutput(gateway, baseline, MESSAGE, RUN_ID);
      console.log(
        `    reply JSON ${same.replyJsonBytes} B; stream ${same.streamEvents} events (${same.streamBytes} B ` +
          `gateway / ${same.baselineStreamBytes} B baseline), same SSE headers`,
      );
      return same;
    });
    const resetLimiter = () => clearRedis(redis, `${REDIS_PREFIX}main:rl:*`);

    const chat = await report.phase(
      `1. POST /api/chat — "${MESSAGE}", local provider, ${CONNECTION_LEVELS.join(' / ')} connections, ` +
        `${DURATION_S} s each after ${WARMUP_S} s warm-up, ${SESSIONS} sessions in rotation`,
      () => chatPhase(gateway, baseline, resetLimiter),
    );

    await resetLimiter();
    const firstEvent = await report.phase(
      `2. GET /api/chat/stream — time to first event: ${TTFE.samples} sequential streams each (after ` +
        `${TTFE.warmup} warm-up), alternating between the servers, each read to [DONE]`,
      () => firstEventPhase(gateway, baseline),
    );

    await resetLimiter();
    const streams = await report.phase(
      `3. GET /api/chat/stream — ${STREAM_CLIENTS} concurrent clients, each opening a stream, reading to [DONE] ` +
        `and opening the next, ${DURATION_S} s after ${WARMUP_S} s warm-up`,
      () => streamsPhase(gateway, baseline),
    );

    let chatProfile: ProfileSummary | undefined;
    if (PROFILE && !chat.pass) {
      await resetLimiter();
      chatProfile = await report.phase(
        `4. chat target missed: CPU profile of the gateway under the same load (${PROFILE_S} s)`,
        async () => {
          const profile = await profileUnderChatLoad(gateway);
          printProfile(profile);
          if (PROFILE_DIR) await profileUnderChatLoad(baseline);
          return profile;
        },
      );
    }
    await Promise.all(servers.splice(0).map((s) => s.stop()));

    const idle = await report.phase(
      `5. ${IDLE_STREAMS} idle open streams — a second gateway with LOCAL_PROVIDER_DELAY_MS=${IDLE_DELAY_MS} ` +
        '(one chunk every 5 s), SSE_PING_MS default',
      () => idleStreamsPhase(database.url, sql),
    );

    const elapsedS = (Date.now() - started) / 1000;
    const disturbed = [
      ...chat.levels.flatMap((l) => [l.gateway, l.baseline]),
      streams.gateway,
      streams.baseline,
    ].some((p) => p.cpu.otherShare > DISTURBED_SHARE);
    report.printTargets(`${fmt(elapsedS, 0)} s${disturbed ? '; DISTURBED run, figures not comparable' : ''}`);
    const file = report.write(RESULTS_FILE, {
      at: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        node: process.version,
        postgres: pgVersion,
        redis: gateway.listening.redis,
      },
      settings: {
        durationS: DURATION_S,
        warmupS: WARMUP_S,
        connections: CONNECTION_LEVELS,
        sessions: SESSIONS,
        message: MESSAGE,
        streamClients: STREAM_CLIENTS,
        firstEvent: TTFE,
        idleStreams: IDLE_STREAMS,
        idleDelayMs: IDLE_DELAY_MS,
        gatewayConfig: GATEWAY_CONFIG,
      },
      sameOutput: same,
      chat: { ...chat, ...(chatProfile ? { profile: chatProfile } : {}) },
      firstEvent,
      streams,
      idle,
      disturbed,
      elapsedS,
    });
    report.log(`wrote ${path.relative(REPO_ROOT, file)}`);
  } finally {
    for (const s of servers) s.kill();
    await sql.end().catch(() => {});
    await clearRedis(redis, `${REDIS_PREFIX}*`).catch(() => 0);
    redis?.disconnect();
    await database.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error('gateway benchmark failed:', err);
    process.exit(1);
  },
);
