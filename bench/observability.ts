// What tracing and metrics cost (`tsx bench/observability.ts`, the last part of `npm run bench`; issue 39's
// "numbers to reach"): the bridge's portfolio read (GET /api/assistant-bridge/portfolio?limit=100 on a seeded
// tenant) and the gateway's POST /api/chat (local provider), each served by three processes side by side in one run:
//
// - `none`: the app as before observability: no metrics object given, tracing never started (bench/bridge/server.ts,
//   bench/gateway/server.ts as the other benchmarks run them);
// - `off`: the app as serve.ts builds it with METRICS_ENABLED=false and no OTEL_* variable: the entry starts tracing
//   first as main.ts does (bench/observability/traced-entry.ts), which then stays off, and the metrics are the no-op
//   ones;
// - `on`: tracing on, exporting over OTLP/HTTP (the SDK's defaults: every request sampled, a batch span processor)
//   to a sink in this process (observability/otlp-sink.ts) that counts the spans of each server, and
//   METRICS_ENABLED=true with GET /metrics (METRICS_TOKEN) scraped every few seconds while `on` is under load.
//
// Each app's three servers get the same warm-up, then rounds of one load run per mode at a fixed concurrency, the
// order rotating from round to round so that a drift of the shared machine falls on every mode alike; each mode's
// figure is the median of its rounds. Targets: `on` ≥ 0.9× and `off` ≥ 0.98× the req/s of `none`. A run in which
// `on` exported no span, a server of another mode exported one, or the scrape missed the pa_ families is an error
// (exit code 1), not a verdict. When an `on` target is missed (BENCH_OBS_PROFILE=1: always; =0: never) the `none` and
// `on` servers are profiled under the same load and the difference per request is printed, by package and function.
// BENCH_OBS_BREAKDOWN=1 adds modes that say where `on`'s cost comes from (SPECS below; bench/README.md), and
// BENCH_OBS_MODES picks the modes measured beside `none`, BENCH_OBS_PROFILE_MODE the one profiled against it.
//
// Environment: BENCH_OBS_ROUNDS (4), BENCH_OBS_DURATION (s per run, 5), BENCH_OBS_WARMUP (s per server, 5),
// BENCH_OBS_CONNECTIONS (50), BENCH_OBS_SCRAPE_S (2), BENCH_OBS_PROPERTIES (the bridge tenant's size, 10000),
// BENCH_OBS_LOG_LEVEL (both apps', default info: one pino line a request, to /dev/null, as in production),
// BENCH_OBS_APPS (bridge,gateway), BENCH_OBS_PROFILE, TEST_DATABASE_URL and REDIS_URL as for the tests. Results go to
// bench/results/observability-latest.json.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@pa/db-tools/testing';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { MIGRATIONS_DIR as GATEWAY_MIGRATIONS } from '../apps/agent-gateway/src/config.ts';
import { connectRedis } from '../apps/agent-gateway/src/lib/redis.ts';
import { MIGRATIONS_DIR as BRIDGE_MIGRATIONS } from '../apps/platform-bridge/src/config.ts';
import { createComplianceRollup } from '../apps/platform-bridge/src/features/compliance/compliance-rollup.ts';
import { systemClock } from '../apps/platform-bridge/src/lib/clock.ts';
import { createPrismaClient } from '../apps/platform-bridge/src/lib/db.ts';
import { seedTenant } from './bridge/seed.ts';
import { chatLoad } from './gateway/load.ts';
import { type ProfileSummary, summariseProfile } from './gateway/profile.ts';
import type { CpuProfile } from './gateway/server.ts';
import { ServerHandle } from './lib/child.ts';
import { type CpuSplit, DISTURBED_SHARE, snapshot, split } from './lib/cpu.ts';
import { httpRequest, type LoadResult, loadTest } from './lib/load.ts';
import { createReport, fmt, pct } from './lib/report.ts';
import { type OtlpSink, startOtlpSink } from './observability/otlp-sink.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(BENCH_DIR, '..');
const RESULTS_FILE = path.join(BENCH_DIR, 'results/observability-latest.json');

const ROUNDS = Math.max(1, Number(process.env.BENCH_OBS_ROUNDS ?? 4));
const DURATION_S = Number(process.env.BENCH_OBS_DURATION ?? 5);
const WARMUP_S = Number(process.env.BENCH_OBS_WARMUP ?? 5);
const CONNECTIONS = Number(process.env.BENCH_OBS_CONNECTIONS ?? 50);
const SCRAPE_MS = Number(process.env.BENCH_OBS_SCRAPE_S ?? 2) * 1000;
const PROPERTIES = Number(process.env.BENCH_OBS_PROPERTIES ?? 10_000);
const LOG_LEVEL = process.env.BENCH_OBS_LOG_LEVEL ?? 'info';
const APPS = (process.env.BENCH_OBS_APPS ?? 'bridge,gateway').split(',').map((s) => s.trim());
const PROFILE = process.env.BENCH_OBS_PROFILE; // '1' always, '0' never, else on a missed `on` target
const PROFILE_S = 5;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TARGET = { on: 0.9, off: 0.98 } as const;

const BREAKDOWN = process.env.BENCH_OBS_BREAKDOWN === '1';

/** How a mode's server is started. */
interface ModeSpec {
  /** the metrics given to the app: null none at all (as before), false the no-op ones, true on (and scraped) */
  metrics: boolean | null;
  /** null: the usual entry, tracing never started; else the tracing-first entry, with these OTEL_* variables */
  otel: ((sinkUrl: string) => Record<string, string>) | null;
  /** whether its spans must reach the sink (when false, not one may) */
  exports: boolean;
  /** more variables for the server */
  env?: Record<string, string>;
}
const endpoint = (url: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: url });
const SPECS = {
  none: { metrics: null, otel: null, exports: false },
  off: { metrics: false, otel: () => ({}), exports: false },
  on: { metrics: true, otel: endpoint, exports: true },
  // BENCH_OBS_BREAKDOWN=1: where `on`'s cost comes from
  metrics: { metrics: true, otel: () => ({}), exports: false },
  tracing: { metrics: false, otel: endpoint, exports: true },
  // as `on` without the express instrumentation (its wrapper runs on every layer of every request)
  'on-no-express': {
    metrics: true,
    otel: (url) => ({ ...endpoint(url), OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'express' }),
    exports: true,
  },
  // no OpenTelemetry at all, only what its context manager switches on in Node 20: an AsyncLocalStorage holding a
  // value, whose async_hooks then run on every promise the process makes
  als: { metrics: null, otel: () => ({}), exports: false, env: { BENCH_OBS_ALS: '1' } },
  // the instrumentations and the context propagation alone: every span made but not recorded, nothing exported
  unsampled: {
    metrics: false,
    otel: (url) => ({ ...endpoint(url), OTEL_TRACES_SAMPLER: 'always_off' }),
    exports: false,
  },
  // the floor of any tracing the issue asks for: only the HTTP instrumentation (a server span a request and the
  // context it makes active), as `tracing` and as `unsampled`
  'http-only': {
    metrics: false,
    otel: (url) => ({ ...endpoint(url), OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http' }),
    exports: true,
  },
  'http-only-unsampled': {
    metrics: false,
    otel: (url) => ({
      ...endpoint(url),
      OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http',
      OTEL_TRACES_SAMPLER: 'always_off',
    }),
    exports: false,
  },
  // what an operator would run under load: as `on`, one trace in ten recorded
  'on-ratio': {
    metrics: true,
    otel: (url) => ({
      ...endpoint(url),
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    }),
    exports: true,
  },
} satisfies Record<string, ModeSpec>;
type Mode = keyof typeof SPECS;
const isMode = (m: string): m is Mode => Object.hasOwn(SPECS, m);
// BENCH_OBS_MODES picks others (`none`, the baseline, always comes first)
const MODES: Mode[] = [
  ...new Set([
    'none' as const,
    ...(process.env.BENCH_OBS_MODES?.split(',').map((m) => {
      if (!isMode(m.trim()))
        throw new Error(`BENCH_OBS_MODES: no mode ${m} (${Object.keys(SPECS).join(', ')})`);
      return m.trim() as Mode;
    }) ?? [
      'off' as const,
      'on' as const,
      ...(BREAKDOWN
        ? ([
            'metrics',
            'tracing',
            'unsampled',
            'on-ratio',
            'on-no-express',
            'http-only',
            'http-only-unsampled',
            'als',
          ] as const)
        : []),
    ]),
  ]),
];
// the mode profiled against `none` (BENCH_OBS_PROFILE_MODE, `on` by default)
const PROFILE_MODE: Mode = (() => {
  const m = process.env.BENCH_OBS_PROFILE_MODE ?? 'on';
  if (!isMode(m) || !MODES.includes(m)) throw new Error(`BENCH_OBS_PROFILE_MODE: ${m} is not measured`);
  return m;
})();
const METRICS_TOKEN = randomBytes(24).toString('hex');
const RUN_ID = randomBytes(4).toString('hex');
const REDIS_PREFIX = `bench_obs:${process.pid}:${RUN_ID}:`;

const report = createReport('bench observability');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadAverage = () =>
  os
    .loadavg()
    .map((v) => fmt(v, 2))
    .join(' ');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** the modes in round `r`'s order: rotated by one each round */
const orderOf = (r: number): Mode[] => MODES.map((_, i) => MODES[(i + r) % MODES.length]!);
const MODE_WIDTH = Math.max(...MODES.map((m) => m.length));
const byMode = <T>(f: (m: Mode) => T) => Object.fromEntries(MODES.map((m) => [m, f(m)])) as Record<Mode, T>;

// ---- the scrape ---------------------------------------------------------------------------------------------

interface Scrape {
  status: number;
  ms: number;
  bytes: number;
  /** the pa_ families the exposition declares (# TYPE lines) */
  families: string[];
  /** pa_http_requests_total summed over the measured route's samples */
  routeRequests: number;
}

async function scrapeOnce(server: ServerHandle, route: string): Promise<Scrape> {
  const r = await httpRequest(server.url('/metrics'), {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const families = [...r.body.matchAll(/^# TYPE (pa_\w+) /gm)].map((m) => m[1]!);
  let routeRequests = 0;
  for (const line of r.body.split('\n'))
    if (line.startsWith('pa_http_requests_total{') && line.includes(`route="${route}"`))
      routeRequests += Number(line.slice(line.lastIndexOf(' ') + 1));
  return { status: r.status, ms: r.ms, bytes: Buffer.byteLength(r.body), families, routeRequests };
}

/** Scrapes every SCRAPE_MS until stopped, as a Prometheus would; one scrape at a time. */
function startScraper(server: ServerHandle, route: string) {
  const scrapes: Scrape[] = [];
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, SCRAPE_MS);
      });
      if (stopped) break;
      scrapes.push(await scrapeOnce(server, route));
    }
  })();
  return {
    async stop(): Promise<Scrape[]> {
      stopped = true;
      wake?.();
      await loop;
      return scrapes;
    },
  };
}

// ---- one app's three servers ----------------------------------------------------------------------------------

interface AppUnderTest {
  name: 'bridge' | 'gateway';
  /** what is loaded, for the report */
  what: string;
  /** the route label the scrape must count the load under */
  route: string;
  /** families the scrape must find */
  families: string[];
  servers: Record<Mode, ServerHandle>;
  /** the database whose backends the CPU split counts */
  dbName: string;
  /** one load run (`tag` keeps the runs' sessions apart) */
  load(server: ServerHandle, mode: Mode, durationS: number, tag: string): Promise<LoadResult>;
  /** before each load run (the gateway clears its rate limiter's keys) */
  beforeRun(): Promise<void>;
}

interface Run {
  mode: Mode;
  round: number;
  load: LoadResult;
  cpu: CpuSplit;
  scrapes?: Scrape[];
}

interface ModeFigures {
  rps: number;
  p50: number;
  p99: number;
  /** CPU ms a request: the server, and the server with PostgreSQL and Redis */
  serverMs: number;
  totalMs: number;
  rpsByRound: number[];
}

function figuresOf(runs: Run[]): ModeFigures {
  return {
    rps: median(runs.map((r) => r.load.rps)),
    p50: median(runs.map((r) => r.load.latencyMs.p50)),
    p99: median(runs.map((r) => r.load.latencyMs.p99)),
    serverMs: median(runs.map((r) => r.cpu.serverMsPerUnit)),
    totalMs: median(runs.map((r) => r.cpu.serverMsPerUnit + r.cpu.postgresMsPerUnit + r.cpu.redisMsPerUnit)),
    rpsByRound: runs.map((r) => r.load.rps),
  };
}

/** Waits until the sink has heard nothing new from `pid` for 6 s (the batch processor exports every 5 s), ≤ 20 s. */
async function spansSettled(sink: OtlpSink, pid: number): Promise<number> {
  const deadline = Date.now() + 20_000;
  let last = sink.from(pid).spans;
  let since = Date.now();
  while (Date.now() < deadline && Date.now() - since < 6_000) {
    await sleep(250);
    const now = sink.from(pid).spans;
    if (now !== last) [last, since] = [now, Date.now()];
  }
  return last;
}

async function measureApp(app: AppUnderTest, sink: OtlpSink, problems: string[]) {
  report.log(`${app.name}: load average ${loadAverage()}`);
  const served = byMode(() => 0);

  // /metrics: served only with the metrics on (and the token); 404 otherwise
  for (const mode of MODES) {
    const s = await scrapeOnce(app.servers[mode], app.route);
    if (s.status !== (SPECS[mode].metrics ? 200 : 404))
      problems.push(`${app.name} ${mode}: GET /metrics answered ${s.status}`);
  }

  await report.phase(`${app.name}: warm-up, ${WARMUP_S} s under load per server`, async () => {
    for (const mode of MODES) {
      await app.beforeRun();
      served[mode] += (await app.load(app.servers[mode], mode, WARMUP_S, 'warm')).requests;
    }
  });

  const runs = await report.phase(
    `${app.name}: ${app.what}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s per mode, the ` +
      `order rotating (${orderOf(0).join(', ')}; ${orderOf(1).join(', ')}; ...); /metrics scraped every ` +
      `${SCRAPE_MS / 1000} s while a server with metrics on is loaded`,
    async () => {
      const all: Run[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of orderOf(round)) {
          const server = app.servers[mode];
          await app.beforeRun();
          const scraper = SPECS[mode].metrics ? startScraper(server, app.route) : undefined;
          const before = snapshot(server.pid, app.dbName);
          const load = await app.load(server, mode, DURATION_S, `r${round}`);
          const cpu = split(before, snapshot(server.pid, app.dbName), load.requests);
          const scrapes = await scraper?.stop();
          served[mode] += load.requests;
          all.push({ mode, round, load, cpu, ...(scrapes ? { scrapes } : {}) });
          const l = load.latencyMs;
          console.log(
            `    round ${round + 1}  ${mode.padEnd(MODE_WIDTH)} ${fmt(load.rps).padStart(8)} req/s  p50 ` +
              `${fmt(l.p50, 0).padStart(3)} ms  p99 ${fmt(l.p99, 0).padStart(4)} ms  CPU/req: server ` +
              `${fmt(cpu.serverMsPerUnit, 2)} ms, PostgreSQL ${fmt(cpu.postgresMsPerUnit, 2)} ms, Redis ` +
              `${fmt(cpu.redisMsPerUnit, 2)} ms; other processes ${pct(cpu.otherShare)}` +
              (cpu.otherShare > DISTURBED_SHARE ? '  ! DISTURBED' : '') +
              (scrapes ? `  (${scrapes.length} scrapes)` : ''),
          );
          if (load.non2xx || load.errors || load.timeouts)
            problems.push(
              `${app.name} ${mode} round ${round + 1}: ${load.non2xx} non-2xx, ${load.errors} errors, ${load.timeouts} timeouts`,
            );
        }
      }
      return all;
    },
  );

  const figures = byMode((m) => figuresOf(runs.filter((r) => r.mode === m)));
  const ratio = byMode((m) => figures[m].rps / figures.none.rps);
  // each round's own ratio to the `none` run of the same round: their spread is the bench's noise
  const ratioByRound = byMode((m) =>
    Array.from({ length: ROUNDS }, (_, r) => {
      const x = runs.find((run) => run.round === r && run.mode === m)!;
      const base = runs.find((run) => run.round === r && run.mode === 'none')!;
      return x.load.rps / base.load.rps;
    }),
  );
  // CPU per request is steadier than req/s on a shared machine: none's over the mode's is the req/s ratio to
  // expect when the server's one thread is the limit
  const cpuRatio = byMode((m) => figures.none.serverMs / figures[m].serverMs);
  console.log(
    `\n  ${app.name}, medians of ${ROUNDS} rounds:\n` +
      `    ${'mode'.padEnd(MODE_WIDTH)}    req/s   p50 ms   p99 ms  server CPU/req  with PG+Redis   ` +
      `req/s ÷ none  CPU none ÷ mode  per round ÷ none`,
  );
  for (const m of MODES) {
    const f = figures[m];
    console.log(
      `    ${m.padEnd(MODE_WIDTH)} ${fmt(f.rps).padStart(8)} ${fmt(f.p50, 1).padStart(8)} ${fmt(f.p99, 1).padStart(8)} ` +
        `${fmt(f.serverMs, 3).padStart(11)} ms ${fmt(f.totalMs, 3).padStart(11)} ms ` +
        `${fmt(ratio[m], 3).padStart(13)} ${fmt(cpuRatio[m], 3).padStart(16)}  ` +
        ratioByRound[m].map((x) => fmt(x, 2)).join(', '),
    );
  }

  // spans: everything the exporting modes sent (once their last batches are in), and nothing from the others
  const settled = await Promise.all(
    MODES.map((m) => (SPECS[m].exports ? spansSettled(sink, app.servers[m].pid) : Promise.resolve(0))),
  );
  const spans = byMode((m) => ({ ...sink.from(app.servers[m].pid), spans: settled[MODES.indexOf(m)]! }));
  for (const m of MODES) {
    const got = sink.from(app.servers[m].pid).spans;
    if (SPECS[m].exports && got === 0) problems.push(`${app.name}: \`${m}\` exported no span`);
    if (!SPECS[m].exports && got > 0) problems.push(`${app.name}: \`${m}\` exported ${got} spans`);
    if (!SPECS[m].exports) spans[m].spans = got;
  }
  const spansPerRequest = byMode((m) => spans[m].spans / Math.max(1, served[m]));
  console.log(
    `  spans received: ` +
      MODES.map(
        (m) =>
          `${m} ${spans[m].spans.toLocaleString('en-GB')}` +
          (spans[m].spans
            ? ` (${spans[m].exports} exports, ${fmt(spans[m].bytes / 2 ** 20, 1)} MB, ≈ ${fmt(spansPerRequest[m], 2)} ` +
              `a request over the ${served[m].toLocaleString('en-GB')} it answered)`
            : ''),
      ).join(', '),
  );
  // a request's spans, from the exports parsed in full: each name's share of them times the spans a request
  const named = MODES.find((m) => m === 'on' || m === 'tracing') ?? MODES.find((m) => SPECS[m].exports);
  const names = named ? [...spans[named].names].sort((a, b) => b[1] - a[1]) : [];
  const sampled = names.reduce((n, [, c]) => n + c, 0);
  if (named)
    console.log(
      `  a request's spans in \`${named}\` (from its first exports, ${sampled} spans): ` +
        names
          .slice(0, 12)
          .map(([n, c]) => `${n} ${fmt((c / Math.max(1, sampled)) * spansPerRequest[named], 2)}`)
          .join('; '),
    );

  // the scrape: every one answered, the families there, the load counted under the route's label
  const scrapes = runs.flatMap((r) => r.scrapes ?? []);
  const families = [...new Set(scrapes.flatMap((s) => s.families))].sort();
  const missing = app.families.filter((f) => !families.includes(f));
  const failed = scrapes.filter((s) => s.status !== 200).length;
  const counted = Math.max(0, ...scrapes.map((s) => s.routeRequests));
  console.log(
    `  scrapes: ${scrapes.length} (${failed} failed), p50 ${fmt(median(scrapes.map((s) => s.ms)), 1)} ms, ` +
      `${fmt(median(scrapes.map((s) => s.bytes)) / 1024, 1)} KB; pa_ families: ${families.join(', ')}; ` +
      `pa_http_requests_total{route="${app.route}"} reached ${counted.toLocaleString('en-GB')}`,
  );
  if (MODES.some((m) => SPECS[m].metrics)) {
    if (scrapes.length === 0 || failed)
      problems.push(`${app.name}: ${failed} of ${scrapes.length} scrapes failed`);
    if (missing.length) problems.push(`${app.name}: the scrape found no ${missing.join(', ')}`);
    if (counted === 0) problems.push(`${app.name}: no request counted under route="${app.route}"`);
  }

  const target = (m: 'on' | 'off', what: string) =>
    report.target(
      `${app.name}: ${what} ≥ ${TARGET[m]}× the req/s of none`,
      `${fmt(figures[m].rps)} vs ${fmt(figures.none.rps)} req/s = ${fmt(ratio[m], 3)}× (medians of ${ROUNDS} rounds; ` +
        `by round ${ratioByRound[m].map((x) => fmt(x, 3)).join(', ')}); p99 ${fmt(figures[m].p99, 0)} vs ` +
        `${fmt(figures.none.p99, 0)} ms; server CPU a request, none/${m}, ${fmt(cpuRatio[m], 3)}`,
      ratio[m] >= TARGET[m],
    );
  const pass = {
    on: MODES.includes('on') ? target('on', 'tracing and metrics on') : undefined,
    off: MODES.includes('off') ? target('off', 'tracing and metrics off') : undefined,
  };

  let profile: Awaited<ReturnType<typeof profileDifference>> | undefined;
  if (PROFILE === '1' || (PROFILE !== '0' && pass.on === false)) {
    profile = await report.phase(
      `${app.name}: CPU profiles of none and ${PROFILE_MODE} under the same load (${PROFILE_S} s each)`,
      () => profileDifference(app, PROFILE_MODE),
    );
  }

  return {
    what: app.what,
    figures,
    ratio,
    ratioByRound,
    cpuRatio,
    pass,
    runs,
    served,
    spans: byMode((m) => ({ spans: spans[m].spans, exports: spans[m].exports, bytes: spans[m].bytes })),
    spansPerRequest,
    spanNames: Object.fromEntries(names),
    scrape: { count: scrapes.length, failed, families, routeRequests: counted },
    disturbed: runs.some((r) => r.cpu.otherShare > DISTURBED_SHARE),
    ...(profile ? { profile } : {}),
  };
}

// ---- profiles -----------------------------------------------------------------------------------------------

async function profileOf(app: AppUnderTest, mode: Mode) {
  const server = app.servers[mode];
  await app.beforeRun();
  await server.ask({ type: 'profile-start' });
  const load = await app.load(server, mode, PROFILE_S, 'profile');
  const { profile } = await server.ask<{ profile: CpuProfile | null }>({ type: 'profile-stop' });
  if (!profile) throw new Error(`${app.name} ${mode}: no CPU profile`);
  return { summary: summariseProfile(profile, 400), requests: load.requests };
}

/** Where `mode` spends more CPU a request than `none` (µs a request), by package and by function. */
async function profileDifference(app: AppUnderTest, mode: Mode) {
  const none = await profileOf(app, 'none');
  const on = await profileOf(app, mode);
  const us = (ms: number, requests: number) => (ms * 1000) / Math.max(1, requests);
  const diff = <T extends { ms: number }>(a: T[], b: T[], key: (x: T) => string) => {
    const base = new Map(a.map((x) => [key(x), us(x.ms, none.requests)]));
    const rows = new Map<string, number>();
    for (const x of b) rows.set(key(x), us(x.ms, on.requests) - (base.get(key(x)) ?? 0));
    for (const [k, v] of base) if (!rows.has(k)) rows.set(k, -v);
    return [...rows].sort((x, y) => y[1] - x[1]);
  };
  const busy = { none: us(none.summary.busyMs, none.requests), on: us(on.summary.busyMs, on.requests) };
  console.log(
    `    busy CPU a request in the profiles: ${mode} ${fmt(busy.on)} µs vs none ${fmt(busy.none)} µs ` +
      `(+${fmt(busy.on - busy.none)} µs, ${pct(busy.on / busy.none - 1)})`,
  );
  const byCategory = diff(none.summary.byCategory, on.summary.byCategory, (c) => c.category);
  console.log(`    by package (µs a request, ${mode} minus none; node internals charged to their callers):`);
  for (const [k, v] of byCategory.slice(0, 12)) console.log(`      ${fmt(v, 1).padStart(7)}  ${k}`);
  // inclusive: a frame of the package anywhere on the stack (what the instrumentations wrap shows under them)
  const inclusive = on.summary.inclusive
    .filter((c) =>
      /opentelemetry|in-the-middle|prom-client|@pa\/telemetry|bullmq-otel|shimmer/.test(c.category),
    )
    .map((c) => ({ category: c.category, us: us(c.ms, on.requests), share: c.share }));
  console.log(`    telemetry code on the stack in ${mode} (inclusive, µs a request and share of busy time):`);
  for (const c of inclusive.slice(0, 12))
    console.log(`      ${fmt(c.us, 1).padStart(7)}  ${pct(c.share).padStart(5)}  ${c.category}`);
  const byFunction = diff(none.summary.topFunctions, on.summary.topFunctions, (f) => `${f.fn}  ${f.where}`);
  console.log(`    by function (self time, µs a request, ${mode} minus none):`);
  for (const [k, v] of byFunction.slice(0, 20)) console.log(`      ${fmt(v, 1).padStart(7)}  ${k}`);
  const top = (s: ProfileSummary) => s.byCategory.slice(0, 15);
  return {
    mode,
    requests: { none: none.requests, [mode]: on.requests },
    busyUsPerRequest: busy,
    byCategory: byCategory.slice(0, 20),
    inclusive,
    byFunction: byFunction.slice(0, 30),
    categories: { none: top(none.summary), [mode]: top(on.summary) },
  };
}

// ---- the two apps -------------------------------------------------------------------------------------------

const TRACED_ENTRY = path.join(BENCH_DIR, 'observability/traced-entry.ts');

/**
 * An app's server for each mode: `none` from its usual entry (tracing never started), the others through the
 * tracing-first entry with their OTEL_* variables. `env(metrics)`: the app's own variables for the metrics given.
 */
async function startServers(
  name: string,
  entry: string,
  env: (metrics: boolean | null, mode: Mode) => Record<string, string>,
  sink: OtlpSink,
): Promise<Record<Mode, ServerHandle>> {
  const servers = {} as Record<Mode, ServerHandle>;
  // one at a time: several compiling at once would take the machine for a while
  for (const mode of MODES) {
    const spec: ModeSpec = SPECS[mode];
    servers[mode] = await ServerHandle.start({
      label: `${name} (${mode})`,
      entry: spec.otel ? TRACED_ENTRY : entry,
      env: {
        ...env(spec.metrics, mode),
        ...(spec.otel ? { BENCH_OBS_APP: name, ...spec.otel(sink.url) } : {}),
        ...spec.env,
      },
    });
  }
  return servers;
}

const withoutAsOf = (body: string) => body.replace(/"as_of":"[^"]*"/, '"as_of":"…"');

async function bridgeApp(sink: OtlpSink, problems: string[]) {
  const database = await createTestDatabase({ prefix: 'bench_obs', migrationsDir: BRIDGE_MIGRATIONS });
  const dbName = new URL(database.url).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => {}); // DROP DATABASE ... WITH (FORCE) may end a closing idle connection
  const db = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 2 }));
  let servers: Record<Mode, ServerHandle> | undefined;
  try {
    const tenant = await report.phase(
      `bridge: seeding a ${PROPERTIES.toLocaleString('en-GB')}-property tenant`,
      async () => {
        const t = await seedTenant(pool, db, {
          slug: 'bench-obs',
          name: 'Bench observability',
          properties: PROPERTIES,
        });
        await createComplianceRollup({ db, clock: systemClock }).refreshStale(t.id);
        await db.$disconnect();
        // the seed's writes cleaned up now rather than by autovacuum during the rounds
        await pool.query('VACUUM (ANALYZE)');
        return t;
      },
    );
    servers = await report.phase(`bridge: starting ${MODES.join(', ')}`, () =>
      startServers(
        'bridge',
        path.join(BENCH_DIR, 'bridge/server.ts'),
        (metrics) => ({
          BENCH_SERVER: 'bridge',
          BENCH_DATABASE_URL: database.url,
          BENCH_POOL_MAX: '10',
          BENCH_LOG_LEVEL: LOG_LEVEL,
          ...(metrics === null
            ? {}
            : { BENCH_METRICS: metrics ? 'on' : 'off', BENCH_METRICS_TOKEN: METRICS_TOKEN }),
        }),
        sink,
      ),
    );
    const route = '/api/assistant-bridge/portfolio';
    const headers = { authorization: `Bearer ${tenant.key}` };
    const agent = new http.Agent({ keepAlive: false });
    // the same page from all three, byte for byte apart from as_of
    const pages = await Promise.all(
      MODES.map((m) => httpRequest(servers![m].url(`${route}?limit=100`), { headers, agent })),
    );
    for (const [i, p] of pages.entries())
      if (p.status !== 200) throw new Error(`bridge ${MODES[i]}: ${p.status} ${p.body.slice(0, 300)}`);
    if (new Set(pages.map((p) => withoutAsOf(p.body))).size !== 1)
      throw new Error('bridge: the three servers answer different pages');
    if ((JSON.parse(pages[0]!.body) as { properties: unknown[] }).properties.length !== 100)
      throw new Error('bridge: expected a page of 100 properties');

    const s = servers;
    return await measureApp(
      {
        name: 'bridge',
        what: `GET ${route}?limit=100, ${PROPERTIES.toLocaleString('en-GB')} properties`,
        route,
        families: ['pa_http_requests_total', 'pa_http_request_duration_seconds', 'pa_db_pool_connections'],
        servers: s,
        dbName,
        load: (server, _mode, durationS) =>
          loadTest({ url: server.url(`${route}?limit=100`), headers, connections: CONNECTIONS, durationS }),
        beforeRun: async () => {},
      },
      sink,
      problems,
    );
  } finally {
    if (servers) await Promise.all(Object.values(servers).map((s) => s.stop().catch(() => s.kill())));
    await db.$disconnect().catch(() => {});
    await pool.end().catch(() => {});
    await database.drop();
  }
}

async function gatewayApp(sink: OtlpSink, problems: string[]) {
  const database = await createTestDatabase({ prefix: 'bench_obs_gw', migrationsDir: GATEWAY_MIGRATIONS });
  const dbName = new URL(database.url).pathname.slice(1);
  const redis = await connectRedis(REDIS_URL);
  if (!redis) throw new Error(`Redis is unreachable at ${REDIS_URL}`);
  const clearRedis = async (pattern: string) => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  };
  let servers: Record<Mode, ServerHandle> | undefined;
  try {
    servers = await report.phase(`gateway: starting ${MODES.join(', ')}`, () =>
      startServers(
        'gateway',
        path.join(BENCH_DIR, 'gateway/server.ts'),
        (metrics, mode) => ({
          BENCH_GW_KIND: 'gateway',
          BENCH_GW_DATABASE_URL: database.url,
          BENCH_GW_CONFIG: JSON.stringify({
            REDIS_URL,
            REDIS_PREFIX: `${REDIS_PREFIX}${mode}:`,
            LOG_LEVEL,
            PROVIDER: 'local',
            // the config's maximum, and the limiter's keys cleared before each run: never a 429, while its
            // bookkeeping (a Redis round trip a request) still runs
            CHAT_RATE_LIMIT_PER_MIN: '100000',
            LOCAL_PROVIDER_DELAY_MS: '0',
            ...(metrics === null ? {} : { METRICS_ENABLED: String(metrics), METRICS_TOKEN: METRICS_TOKEN }),
          }),
          ...(metrics === null ? {} : { BENCH_GW_METRICS: '1' }),
        }),
        sink,
      ),
    );
    const s = servers;
    // the same reply from all three
    const replies = await Promise.all(
      MODES.map((m) =>
        httpRequest(s[m].url('/api/chat'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'help', sessionId: `obs-check-${RUN_ID}-${m}` }),
        }),
      ),
    );
    for (const [i, r] of replies.entries())
      if (r.status !== 200) throw new Error(`gateway ${MODES[i]}: ${r.status} ${r.body.slice(0, 300)}`);
    if (new Set(replies.map((r) => (JSON.parse(r.body) as { reply: string }).reply)).size !== 1)
      throw new Error('gateway: the three servers answer different replies');

    return await measureApp(
      {
        name: 'gateway',
        what: 'POST /api/chat "help", local provider, 500 sessions in rotation',
        route: '/api/chat',
        families: [
          'pa_http_requests_total',
          'pa_http_request_duration_seconds',
          'pa_chat_turns_total',
          'pa_chat_turn_duration_seconds',
          'pa_db_pool_connections',
        ],
        servers: s,
        dbName,
        load: (server, mode, durationS, tag) =>
          chatLoad({
            baseUrl: server.url(),
            connections: CONNECTIONS,
            durationS,
            message: 'help',
            sessions: 500,
            sessionPrefix: `obs-${RUN_ID}-${mode}-${tag}-`,
          }),
        beforeRun: () => clearRedis(`${REDIS_PREFIX}*rl:*`),
      },
      sink,
      problems,
    );
  } finally {
    if (servers) await Promise.all(Object.values(servers).map((s) => s.stop().catch(() => s.kill())));
    await clearRedis(`${REDIS_PREFIX}*`).catch(() => {});
    redis.disconnect();
    await database.drop();
  }
}

// ---- main ---------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = Date.now();
  // `none` and `off` must see no OTEL_* variable, and `on` only the endpoint: whatever this shell has is dropped
  for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) delete process.env[k];
  const loadAtStart = os.loadavg();
  report.log(
    `${os.cpus().length} CPUs, Node ${process.version}, load average ${loadAverage()} (the machine is shared)`,
  );
  const sink = await startOtlpSink();
  const problems: string[] = [];
  const results: Record<string, unknown> = {};
  try {
    if (APPS.includes('bridge')) results.bridge = await bridgeApp(sink, problems);
    if (APPS.includes('gateway')) results.gateway = await gatewayApp(sink, problems);
  } finally {
    await sink.close();
  }
  problems.push(...sink.problems().map((p) => `OTLP sink: ${p}`));
  const disturbed = Object.values(results).some((r) => (r as { disturbed: boolean }).disturbed);
  report.printTargets(
    `load average ${fmt(loadAtStart[0]!, 2)} at the start, ${loadAverage()} at the end` +
      (disturbed ? '; DISTURBED: other processes used the CPU during some runs' : ''),
  );
  const file = report.write(RESULTS_FILE, {
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, load_average_start: loadAtStart },
    settings: {
      rounds: ROUNDS,
      durationS: DURATION_S,
      warmupS: WARMUP_S,
      connections: CONNECTIONS,
      scrapeS: SCRAPE_MS / 1000,
      properties: PROPERTIES,
      logLevel: LOG_LEVEL,
      targets: TARGET,
    },
    ...results,
    load_average_end: os.loadavg(),
    problems,
    elapsedS: (Date.now() - started) / 1000,
  });
  report.log(`wrote ${path.relative(REPO_ROOT, file)}`);
  if (problems.length) throw new Error(`the run is not valid:\n  ${problems.join('\n  ')}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error('observability benchmark failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
