// The daily summary's benchmark (`tsx bench/gateway/daily-summary.ts`, part of `npm run bench`): N bound workers
// (default 1,000) across a handful of tenants (default 5) run their summaries at once, on the real bridge and
// the real gateway code, and the time until every briefing is delivered is measured.
//
// The platform side: a fresh platform database (createTestDatabase, prefix bench_sum_plat, dropped at the end)
// with the demo portfolio (seedDemo, 24 properties) for each tenant, and one remote key per worker, as each
// workspace binds its own; the bridge runs as a child (summary-bridge.ts: createApp as main.ts builds it, the
// rate limit lifted, every request counted by route). The gateway side: a fresh gateway database (prefix
// bench_sum_gw) with the workspaces, workers, their bindings (keys sealed with GATEWAY_SECRET_KEY, as the bind
// endpoint stores them) and their summary configuration (enabled, `web`, 08:00 London), written set-based; and
// the worker process itself, `apps/agent-gateway/src/worker.ts` as docker compose's summary-worker runs it, with a
// unique SUMMARY_QUEUE_PREFIX and REDIS_PREFIX (their keys deleted at the end).
//
// The run: one job per worker, all put on the queue at once (as the schedulers of N workers firing at 08:00 do;
// each job `{ workerId }` for the same slot); from the moment they are queued until every worker's run for the
// slot is `delivered` (the gateway database polled every 50 ms). Reported: time until all delivered (target
// ≤ 60 s), briefings/s, bridge calls per briefing counted at the bridge (target ≤ 6, and by route), the peak RSS of
// the worker process and of the bridge (sampled every 100 ms), and a check of the briefings themselves (each at
// most 4,000 characters, naming the demo's MAN-004 whose gas certificate has expired). Writes
// bench/results/daily-summary-latest.json; exits 0 whatever the verdicts (non-zero when something breaks).
//
// Environment: BENCH_SUM_WORKERS (1000), BENCH_SUM_TENANTS (5), BENCH_SUM_TIMEOUT_S (300: give up waiting),
// TEST_DATABASE_URL and REDIS_URL as for the tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@pa/db-tools/testing';
import { PrismaPg } from '@prisma/adapter-pg';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { MIGRATIONS_DIR as GATEWAY_MIGRATIONS } from '../../apps/agent-gateway/src/config.ts';
import { createKeyCipher } from '../../apps/agent-gateway/src/features/binding/key-cipher.ts';
import {
  SUMMARY_JOB_NAME,
  SUMMARY_QUEUE_NAME,
  type SummaryJobData,
  summaryJobOptions,
} from '../../apps/agent-gateway/src/features/daily-summary/summary-queue.ts';
import { MIGRATIONS_DIR as PLATFORM_MIGRATIONS } from '../../apps/platform-bridge/src/config.ts';
import { seedDemo } from '../../apps/platform-bridge/src/demo/demo-seed.ts';
import { createTenantAdminService } from '../../apps/platform-bridge/src/features/tenants/tenant-admin-service.ts';
import { systemClock } from '../../apps/platform-bridge/src/lib/clock.ts';
import { createPrismaClient } from '../../apps/platform-bridge/src/lib/db.ts';
import { procStatusKb, ServerHandle } from '../lib/child.ts';
import { type CpuSnapshot, DISTURBED_SHARE, snapshot, split } from '../lib/cpu.ts';
import { createReport, fmt, pct } from '../lib/report.ts';
import type { SummaryBridgeStats } from './summary-bridge.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RESULTS_FILE = path.join(REPO_ROOT, 'bench/results/daily-summary-latest.json');
const WORKERS = Number(process.env.BENCH_SUM_WORKERS ?? 1000);
const TENANTS = Number(process.env.BENCH_SUM_TENANTS ?? 5);
const TIMEOUT_S = Number(process.env.BENCH_SUM_TIMEOUT_S ?? 300);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TARGET = { allDeliveredS: 60, callsPerBriefing: 6 } as const;
const BRIEFING_MAX_CHARS = 4000;
/** a demo property whose gas certificate has expired: every briefing must name it */
const EXPIRED_REF = 'MAN-004';

const report = createReport('bench daily summary');

interface Tenant {
  slug: string;
  name: string;
}
interface BoundWorker {
  workerId: string;
  workspaceId: string;
  tenantSlug: string;
  key: string;
}

/** The demo portfolio for each tenant, and one remote key per worker (workers dealt round the tenants). */
async function seedPlatform(databaseUrl: string): Promise<{ tenants: Tenant[]; workers: BoundWorker[] }> {
  const db = createPrismaClient(new PrismaPg({ connectionString: databaseUrl, max: 4 }));
  try {
    const admin = createTenantAdminService({ db });
    const tenants: Tenant[] = [];
    for (let i = 0; i < TENANTS; i++) {
      const seeded = await seedDemo({ db, clock: systemClock }, { tenantSlug: `bench-agency-${i + 1}` });
      tenants.push({ slug: seeded.tenant.slug, name: seeded.tenant.name });
    }
    const workers: BoundWorker[] = [];
    for (let i = 0; i < WORKERS; i++) {
      const tenant = tenants[i % tenants.length]!;
      const key = await admin.createKey(tenant.slug, ['bridge:read'], `bench worker ${i + 1}`);
      workers.push({
        workerId: randomUUID(),
        workspaceId: randomUUID(),
        tenantSlug: tenant.slug,
        key: key.key,
      });
    }
    return { tenants, workers };
  } finally {
    await db.$disconnect();
  }
}

/** Workspaces, workers, bindings and summary configurations, set-based (as the bind and config endpoints store them). */
async function seedGateway(sql: pg.Pool, workers: BoundWorker[], secretKeyHex: string): Promise<void> {
  const cipher = createKeyCipher(Buffer.from(secretKeyHex, 'hex'));
  const col = <K extends keyof BoundWorker>(k: K) => workers.map((w) => w[k]);
  await sql.query(
    `INSERT INTO workspaces (id, name) SELECT id, 'Bench agency ' || n FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n)`,
    [col('workspaceId')],
  );
  await sql.query(
    `INSERT INTO workers (id, workspace_id, name, template, skill_packs)
     SELECT w, s, 'Property Manager', 'property-manager', '{}' FROM unnest($1::uuid[], $2::uuid[]) AS u(w, s)`,
    [col('workerId'), col('workspaceId')],
  );
  await sql.query(
    `INSERT INTO platform_bindings (worker_id, tenant_slug, key_ciphertext, key_preview, properties_total, bound_at)
     SELECT w, t, k, p, 24, now() FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::text[]) AS u(w, t, k, p)`,
    [
      col('workerId'),
      col('tenantSlug'),
      workers.map((w) => Buffer.from(cipher.encrypt(w.key))),
      workers.map((w) => `${w.key.slice(0, 13)}…`),
    ],
  );
  await sql.query(
    `INSERT INTO summary_configs (worker_id, enabled, delivery_channel, schedule, timezone)
     SELECT w, true, 'web', '0 8 * * *', 'Europe/London' FROM unnest($1::uuid[]) AS u(w)`,
    [col('workerId')],
  );
}

/** The worker process as compose's summary-worker service runs it. */
function startWorkerProcess(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'apps/agent-gateway/src/worker.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Peak resident memory of a process, sampled every 100 ms until stopped (MB). */
function rssSampler(pid: number) {
  let peakKb = 0;
  const sample = () => {
    try {
      peakKb = Math.max(peakKb, procStatusKb(pid, 'VmRSS'));
    } catch {
      // the process is going away
    }
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    /** peak since the previous call (MB); starts a new window */
    takePeakMb() {
      sample();
      const peak = peakKb;
      peakKb = 0;
      return peak / 1024;
    },
    stop: () => clearInterval(timer),
  };
}

async function waitFor<T>(what: string, fn: () => Promise<T | false>, timeoutMs: number, everyMs = 50) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function deleteKeys(redis: Redis, pattern: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** Where the CPU went during the run, per briefing: the worker process, the bridge, each database, Redis. */
function cpuPerBriefing(
  before: { worker: CpuSnapshot; bridge: CpuSnapshot },
  after: { worker: CpuSnapshot; bridge: CpuSnapshot },
  briefings: number,
) {
  const gw = split(before.worker, after.worker, briefings);
  const plat = split(before.bridge, after.bridge, briefings);
  const perBriefing = {
    worker_process_ms: gw.serverMsPerUnit,
    bridge_ms: plat.serverMsPerUnit,
    // each database's backends (the server's shared processes count in both)
    postgres_gateway_ms: gw.postgresMsPerUnit,
    postgres_platform_ms: plat.postgresMsPerUnit,
    redis_ms: gw.redisMsPerUnit,
    this_process_ms: gw.loadMsPerUnit,
  };
  const totalMs = Object.values(perBriefing).reduce((a, b) => a + b, 0);
  const machineMs = after.worker.machineTotalMs - before.worker.machineTotalMs;
  const busyMs = after.worker.machineBusyMs - before.worker.machineBusyMs;
  const otherShare = Math.max(0, busyMs - totalMs * briefings) / (machineMs || 1);
  return { perBriefing, totalMs, otherShare, idleShare: Math.max(0, machineMs - busyMs) / (machineMs || 1) };
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  report.log(
    `${WORKERS} workers across ${TENANTS} tenants; load average at start ${os
      .loadavg()
      .map((v) => fmt(v, 2))
      .join(' ')} (the machine is shared)`,
  );
  const platformDb = await createTestDatabase({
    prefix: 'bench_sum_plat',
    migrationsDir: PLATFORM_MIGRATIONS,
  });
  const gatewayDb = await createTestDatabase({ prefix: 'bench_sum_gw', migrationsDir: GATEWAY_MIGRATIONS });
  const sql = new pg.Pool({ connectionString: gatewayDb.url, max: 2 });
  sql.on('error', () => {}); // DROP DATABASE ... WITH (FORCE) may end a closing idle connection
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const queuePrefix = `bench_sum_${tag}`;
  const redisPrefix = `bench_sum:${tag}:`;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue<SummaryJobData>(SUMMARY_QUEUE_NAME, { connection: redis, prefix: queuePrefix });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-sum-'));
  let bridge: ServerHandle<{ type: 'listening'; port: number }, SummaryBridgeStats> | undefined;
  let worker: ChildProcess | undefined;
  let workerRss: ReturnType<typeof rssSampler> | undefined;
  try {
    const { tenants, workers } = await report.phase(
      `seeding ${TENANTS} demo tenants and ${WORKERS} remote keys on the platform`,
      () => seedPlatform(platformDb.url),
    );
    const secretKey = randomBytes(32).toString('hex');
    await report.phase(`binding ${WORKERS} workers in the gateway database`, () =>
      seedGateway(sql, workers, secretKey),
    );

    bridge = await ServerHandle.start({
      label: 'bridge',
      entry: path.join(REPO_ROOT, 'bench/gateway/summary-bridge.ts'),
      env: { BENCH_DATABASE_URL: platformDb.url },
    });
    const bridgeUrl = bridge.url();
    worker = startWorkerProcess({
      GATEWAY_DATABASE_URL: gatewayDb.url,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_SECRET_KEY: secretKey,
      REDIS_URL,
      REDIS_PREFIX: redisPrefix,
      SUMMARY_QUEUE_PREFIX: queuePrefix,
      ASSISTANT_DAILY_SUMMARY_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      PLATFORM_BASE_URL: bridgeUrl,
      LOG_LEVEL: 'warn',
    });
    const workerPid = worker.pid!;
    const exited = new Promise<number | null>((resolve) => worker!.once('exit', resolve));
    workerRss = rssSampler(workerPid);
    await report.phase('starting the worker process (apps/agent-gateway/src/worker.ts)', () =>
      waitFor(
        'the worker process to attach to the queue',
        async () => {
          if (worker!.exitCode !== null) throw new Error(`the worker process exited (${worker!.exitCode})`);
          return (await queue.getWorkers()).length > 0 ? true : false;
        },
        60_000,
        100,
      ),
    );
    const idleWorkerMb = workerRss.takePeakMb();
    const idleBridgeMb = bridge.takePeakRssMb();
    await bridge.ask({ type: 'reset' });

    // The slot every scheduler of the morning fires for: 08:00 London today.
    const slot = Date.now();
    const platformDbName = new URL(platformDb.url).pathname.slice(1);
    const gatewayDbName = new URL(gatewayDb.url).pathname.slice(1);
    const cpuNow = () => ({
      worker: snapshot(workerPid, gatewayDbName),
      bridge: snapshot(bridge!.pid, platformDbName),
    });
    const cpuBefore = cpuNow();
    const run = await report.phase(`${WORKERS} summaries at once`, async () => {
      const queued = performance.now();
      await queue.addBulk(
        workers.map((w) => ({
          name: SUMMARY_JOB_NAME,
          data: { workerId: w.workerId },
          opts: { ...summaryJobOptions(), jobId: `bench-${w.workerId}`, timestamp: slot },
        })),
      );
      const addedMs = performance.now() - queued;
      let last = { delivered: 0, failed: 0, skipped: 0 };
      let lastLog = performance.now();
      const seconds = await waitFor(
        'every summary to be delivered',
        async () => {
          const { rows } = await sql.query<{ status: string; n: number }>(
            'SELECT status, count(*)::int AS n FROM summary_runs GROUP BY status',
          );
          const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
          last = { delivered: by.delivered ?? 0, failed: by.failed ?? 0, skipped: by.skipped ?? 0 };
          if (performance.now() - lastLog > 5_000) {
            lastLog = performance.now();
            report.log(`  ${last.delivered} delivered, ${last.failed} failed, ${last.skipped} skipped`);
          }
          if (worker!.exitCode !== null) throw new Error(`the worker process exited (${worker!.exitCode})`);
          const finished = last.delivered + last.failed + last.skipped;
          return finished >= WORKERS ? (performance.now() - queued) / 1000 : false;
        },
        TIMEOUT_S * 1000,
      );
      return { seconds, addedMs, ...last };
    });
    const cpu = cpuPerBriefing(cpuBefore, cpuNow(), run.delivered);
    const workerPeakMb = workerRss.takePeakMb();
    const bridgePeakMb = bridge.takePeakRssMb();
    const bridgeStats = await bridge.stats();

    const calls = Object.values(bridgeStats.requests).reduce((a, b) => a + b, 0);
    const perBriefing = calls / Math.max(1, run.delivered);
    report.log(
      `  ${run.delivered} delivered, ${run.failed} failed, ${run.skipped} skipped in ${fmt(run.seconds, 2)} s ` +
        `(${fmt(run.addedMs, 0)} ms to queue them)`,
    );
    report.log(
      `  bridge calls: ${calls} (${JSON.stringify(bridgeStats.requests)}), answers ${JSON.stringify(bridgeStats.statuses)}`,
    );

    // The briefings themselves: delivered on `web` (kept with the run), within the limit, with a known fact.
    const { rows: briefings } = await sql.query<{
      briefing: string | null;
      error: string | null;
      status: string;
    }>('SELECT status, briefing, error FROM summary_runs');
    const problems = briefings.filter(
      (b) =>
        b.status !== 'delivered' ||
        !b.briefing ||
        b.briefing.length > BRIEFING_MAX_CHARS ||
        !b.briefing.includes(EXPIRED_REF),
    );
    const errors = [...new Set(briefings.flatMap((b) => (b.error ? [b.error] : [])))].slice(0, 5);
    if (errors.length) report.log(`  errors: ${errors.join(' | ')}`);
    const longest = Math.max(0, ...briefings.map((b) => b.briefing?.length ?? 0));

    report.target(
      `all ${WORKERS} summaries delivered within ${TARGET.allDeliveredS} s`,
      `${run.delivered}/${WORKERS} delivered in ${fmt(run.seconds, 2)} s (${fmt(run.delivered / run.seconds, 1)} briefings/s)`,
      run.delivered === WORKERS && run.seconds <= TARGET.allDeliveredS,
    );
    report.target(
      `bridge calls per briefing ≤ ${TARGET.callsPerBriefing}`,
      `${fmt(perBriefing, 2)} (${calls} calls for ${run.delivered} briefings, counted at the bridge)`,
      run.delivered > 0 && perBriefing <= TARGET.callsPerBriefing,
    );
    report.target(
      `every briefing ≤ ${BRIEFING_MAX_CHARS} characters and naming ${EXPIRED_REF} (expired gas certificate)`,
      `${briefings.length - problems.length}/${briefings.length} (longest ${longest} characters)`,
      problems.length === 0 && briefings.length === WORKERS,
    );
    report.log(
      `  peak RSS: worker process ${fmt(workerPeakMb, 0)} MB (idle ${fmt(idleWorkerMb, 0)} MB), ` +
        `bridge ${fmt(bridgePeakMb, 0)} MB (idle ${fmt(idleBridgeMb, 0)} MB)`,
    );

    const cores = os.cpus().length;
    report.log(
      `  CPU per briefing: ${Object.entries(cpu.perBriefing)
        .map(([k, v]) => `${k.replace(/_ms$/, '').replace(/_/g, ' ')} ${fmt(v, 1)} ms`)
        .join(', ')}; ${fmt(cpu.totalMs, 1)} ms in all`,
    );
    // What the same work would take with the machine to itself: the CPU it needed spread over every core.
    const projectedS = (cpu.totalMs * WORKERS) / 1000 / cores;
    report.log(
      `  other processes used ${pct(cpu.otherShare)} of the machine (idle ${pct(cpu.idleShare)})` +
        (cpu.otherShare > DISTURBED_SHARE ? '  ! DISTURBED: the time above is not this code’s' : '') +
        `; with ${cores} cores to itself: about ${fmt(projectedS, 1)} s for ${WORKERS} briefings`,
    );

    report.printTargets(cpu.otherShare > DISTURBED_SHARE ? 'DISTURBED: other processes used the CPU' : '');
    const file = report.write(RESULTS_FILE, {
      started_at: new Date(startedAt).toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, load_average: os.loadavg() },
      config: { workers: WORKERS, tenants: tenants.map((t) => t.slug), properties_per_tenant: 24 },
      run: {
        seconds_until_all_delivered: run.seconds,
        queue_ms: run.addedMs,
        delivered: run.delivered,
        failed: run.failed,
        skipped: run.skipped,
        briefings_per_s: run.delivered / run.seconds,
        longest_briefing_chars: longest,
        errors,
      },
      bridge_calls: { total: calls, per_briefing: perBriefing, by_route: bridgeStats.requests },
      bridge_answers: bridgeStats.statuses,
      peak_rss_mb: { worker_process: workerPeakMb, bridge: bridgePeakMb },
      cpu_ms_per_briefing: cpu.perBriefing,
      cpu_ms_per_briefing_total: cpu.totalMs,
      other_share: cpu.otherShare,
      projected_s_with_the_machine_to_itself: projectedS,
      disturbed: cpu.otherShare > DISTURBED_SHARE,
      idle_rss_mb: { worker_process: idleWorkerMb, bridge: idleBridgeMb },
      total_s: (Date.now() - startedAt) / 1000,
    });
    report.log(`wrote ${path.relative(process.cwd(), file)}`);

    // SIGTERM: the worker process closes its BullMQ worker and exits by itself.
    worker.kill('SIGTERM');
    const timer = setTimeout(() => worker?.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  } finally {
    workerRss?.stop();
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    await bridge?.stop().catch(() => bridge?.kill());
    await queue.close().catch(() => {});
    await deleteKeys(redis, `${queuePrefix}:*`).catch(() => 0);
    await deleteKeys(redis, `${redisPrefix}*`).catch(() => 0);
    redis.disconnect();
    await sql.end().catch(() => {});
    await Promise.all([platformDb.drop(), gatewayDb.drop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error('bench failed:', err);
  process.exit(1);
});
