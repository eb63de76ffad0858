import { spawn } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { RunNowResponse, SummaryRunsResponse } from '@pa/contracts';
import { scaled, until } from '@pa/http-kit/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.ts';
import {
  SUMMARY_JOB_NAME,
  SUMMARY_QUEUE_NAME,
  type SummaryJobData,
} from '../src/features/daily-summary/summary-queue.ts';
import type { SummaryJobOutcome } from '../src/features/daily-summary/summary-processor.ts';
import { startSummaryWorker, type SummaryWorker } from '../src/features/daily-summary/summary-worker.ts';
import { composeGateway } from '../src/compose/gateway.ts';
import { startWorkerProcess, type WorkerProcess } from '../src/compose/worker-process.ts';
import { type BoundWorker, bindWorker } from './support/bound-worker.ts';
import { type BridgeProxy, startBridgeProxy } from './support/bridge-proxy.ts';
import { expectContract, expectProblem } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// The daily summary's runs under BullMQ: run-now end to end through the worker process, the runs
// list, one run per slot with two queue workers, a bridge failure retried by BullMQ, a graceful stop that lets a
// running job finish, and the CLI. Real Redis under a queue prefix of this file's own (its keys removed after),
// the real bridge behind a loopback proxy, and a gate in front of it that can hold requests.

const PREFIX = `test-summary-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const ENV = {
  AI_WORKERS_ENABLED: 'true',
  PLATFORM_BRIDGE_ENABLED: 'true',
  ASSISTANT_DAILY_SUMMARY_ENABLED: 'true',
  SUMMARY_QUEUE_PREFIX: PREFIX,
};

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let proxy: BridgeProxy;
let gate: Gate;
let g: TestGateway;
let processes: WorkerProcess;
let queue: Queue<SummaryJobData, SummaryJobOutcome>;

beforeAll(async () => {
  platform = await startPlatformForGateway({ rateLimitPerMin: 100_000 });
  demo = await platform.seedDemo();
  proxy = await startBridgeProxy(platform.baseUrl);
  gate = await startGate(proxy.baseUrl);
  g = await startTestGateway({ redis: 'required', env: { ...ENV, PLATFORM_BASE_URL: gate.baseUrl } });
  processes = startWorkerProcess(composeGateway(g.deps), { scanMs: 60_000 });
  queue = new Queue(SUMMARY_QUEUE_NAME, { connection: g.redis!, prefix: PREFIX });
}, scaled(60_000));
afterAll(async () => {
  await processes?.stop();
  await queue?.close();
  if (g?.redis) {
    const keys = await g.redis.keys(`${PREFIX}:*`);
    if (keys.length) await g.redis.del(...keys);
  }
  await g?.close();
  await gate?.close();
  await proxy?.close();
  await platform?.close();
});

const bound = () => bindWorker(g, { slug: demo.tenant.slug, key: demo.key });

/** The summary on, as the config endpoint saves it: scheduled jobs of a worker without it are skipped. */
const enable = (worker: BoundWorker) =>
  g.db.summaryConfig.create({
    data: {
      workerId: worker.workerId,
      enabled: true,
      deliveryChannel: 'web',
      schedule: '0 8 * * *',
      timezone: 'Europe/London',
    },
  });

function call(worker: { workspaceId: string; workerId: string }, method: string, suffix: string, base = g) {
  return fetch(`${base.baseUrl}/api/assistant/workers/${worker.workerId}/summary/${suffix}`, {
    method,
    headers: { 'X-Workspace-Id': worker.workspaceId },
  });
}

async function runs(worker: BoundWorker, query = '') {
  const res = await call(worker, 'GET', `runs${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return expectContract(SummaryRunsResponse, await res.json()).runs;
}

async function runNow(worker: BoundWorker): Promise<string> {
  const res = await call(worker, 'POST', 'run-now');
  expect(res.status, await res.clone().text()).toBe(202);
  return expectContract(RunNowResponse, await res.json()).runId;
}

describe('run-now end to end', () => {
  it('202 with the run’s id; the worker process picks it up; the runs list shows it delivered with the briefing', async () => {
    const worker = await bound();
    const runId = await runNow(worker);
    const queued = await runs(worker);
    expect(queued.map((r) => r.id)).toEqual([runId]);
    expect(queued[0]).toMatchObject({ trigger: 'manual', deliveryChannel: 'web', workerId: worker.workerId });

    const done = await until('the run delivered', async () => {
      const [run] = await runs(worker);
      return run?.status === 'delivered' && run;
    });
    expect(done).toMatchObject({ id: runId, attempts: 1, error: null, trigger: 'manual' });
    expect(done.briefing).toContain(`Daily briefing: ${demo.tenant.name}`);
    expect(done.briefing).toContain('**Rent arrears (');
    expect(done.briefing!.length).toBeLessThanOrEqual(4000);
    expect(Date.parse(done.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(done.startedAt!));
    // the briefing is the one the settings tab shows: kept with the run
    const row = await g.db.summaryRun.findUniqueOrThrow({ where: { id: runId } });
    expect(row.briefing).toBe(done.briefing);
  });

  it('delivers on the configured channel: the config’s, else web', async () => {
    const worker = await bound();
    await g.db.summaryConfig.create({
      data: {
        workerId: worker.workerId,
        enabled: false,
        deliveryChannel: 'telegram',
        schedule: '0 8 * * *',
        timezone: 'Europe/London',
      },
    });
    const runId = await runNow(worker);
    // run-now runs whatever the schedule says (here: off); no Telegram chat is paired, so it fails saying so
    const failed = await until('the run failed', async () => {
      const [run] = await runs(worker);
      return run?.status === 'failed' && run;
    });
    expect(failed).toMatchObject({ id: runId, deliveryChannel: 'telegram', attempts: 1, briefing: null });
    expect(failed.error).toMatch(/^the worker has no telegram chat paired to deliver to/);
  });
});

describe('the runs list and run-now: their problems', () => {
  it('lists newest first, at most `limit`', async () => {
    const worker = await bound();
    const base = Date.parse('2026-06-01T07:00:00Z');
    for (let day = 0; day < 4; day++) {
      await g.db.summaryRun.create({
        data: {
          workerId: worker.workerId,
          trigger: 'schedule',
          scheduledFor: new Date(base + day * 86_400_000),
          createdAt: new Date(base + day * 86_400_000),
          deliveryChannel: 'web',
          status: 'skipped',
          error: 'the daily summary was turned off for this worker.',
        },
      });
    }
    const two = await runs(worker, '?limit=2');
    expect(two.map((r) => r.scheduledFor)).toEqual(['2026-06-04T07:00:00.000Z', '2026-06-03T07:00:00.000Z']);
    expect(await runs(worker)).toHaveLength(4);
  });

  it('400 for a bad worker id or limit, 404 for a worker not in the workspace, 422 for an unbound worker', async () => {
    const worker = await bound();
    await expectProblem(
      await call({ ...worker, workerId: 'not-a-uuid' }, 'GET', 'runs'),
      400,
      'validation-failed',
    );
    for (const limit of ['0', '101', 'ten']) {
      await expectProblem(await call(worker, 'GET', `runs?limit=${limit}`), 400, 'validation-failed');
    }
    await expectProblem(await call(worker, 'GET', 'runs?since=1'), 400, 'validation-failed');
    const stranger = { ...worker, workerId: '00000000-0000-4000-8000-000000000000' };
    await expectProblem(await call(stranger, 'GET', 'runs'), 404, 'worker-not-found');
    await expectProblem(await call(stranger, 'POST', 'run-now'), 404, 'worker-not-found');
    // another workspace's worker is as unknown as a made-up one
    const other = await bound();
    await expectProblem(
      await call({ workspaceId: other.workspaceId, workerId: worker.workerId }, 'POST', 'run-now'),
      404,
      'worker-not-found',
    );

    const unbound = await fetch(`${g.baseUrl}/api/assistant/workers/${worker.workerId}/platform/bind`, {
      method: 'DELETE',
      headers: { 'X-Workspace-Id': worker.workspaceId },
    });
    expect(unbound.status).toBe(200);
    await expectProblem(await call(worker, 'POST', 'run-now'), 422, 'worker-not-bound');
    expect(await runs(worker)).toEqual([]);
  });

  it('404 summary-disabled with the flag off; 503 redis-unavailable without Redis, leaving no run behind', async () => {
    const worker = await bound();
    const off = await startTestGateway({
      databaseUrl: g.databaseUrl,
      redis: 'none',
      env: { ...ENV, ASSISTANT_DAILY_SUMMARY_ENABLED: 'false' },
    });
    // nothing listens on port 1: the summary queue's connection never becomes ready
    const noRedis = await startTestGateway({
      databaseUrl: g.databaseUrl,
      redis: 'none',
      env: { ...ENV, REDIS_URL: 'redis://127.0.0.1:1' },
    });
    try {
      await expectProblem(await call(worker, 'GET', 'runs', off), 404, 'summary-disabled');
      await expectProblem(await call(worker, 'POST', 'run-now', off), 404, 'summary-disabled');
      const res = await call(worker, 'POST', 'run-now', noRedis);
      const problem = await expectProblem(res, 503, 'redis-unavailable');
      expect(problem.detail).toMatch(/Redis/);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await g.db.summaryRun.count({ where: { workerId: worker.workerId } })).toBe(0);
      // reading the runs needs only the database
      expect((await call(worker, 'GET', 'runs', noRedis)).status).toBe(200);
    } finally {
      await off.close();
      await noRedis.close();
    }
  });
});

describe('under BullMQ', () => {
  it('the same slot handed out twice, to two queue workers: one run, one delivery', async () => {
    const worker = await bound();
    await enable(worker);
    const second: SummaryWorker = startSummaryWorker({
      config: g.config,
      logger: g.deps.logger,
      processor: composeGateway(g.deps).summaryProcessor,
    });
    try {
      const slot = Date.parse('2026-06-15T07:00:00Z');
      const jobs = await Promise.all(
        ['a', 'b'].map((n) =>
          queue.add(
            SUMMARY_JOB_NAME,
            { workerId: worker.workerId },
            { jobId: `dup-${n}-${worker.workerId}`, prevMillis: slot, attempts: 3 },
          ),
        ),
      );
      const outcomes = await until('both jobs finished', async () => {
        const states = await Promise.all(jobs.map((j) => queue.getJob(j.id!)));
        return states.every((s) => s?.finishedOn) && states.map((s) => s!.returnvalue.status);
      });
      expect(outcomes.sort()).toEqual(['delivered', 'not-claimed']);
      const all = await runs(worker);
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({
        scheduledFor: '2026-06-15T07:00:00.000Z',
        status: 'delivered',
        attempts: 1,
      });
    } finally {
      await second.close();
    }
  });

  it('a bridge 5xx is retried by BullMQ with backoff; the retry delivers, once', async () => {
    const worker = await bound();
    await enable(worker);
    // every try of the client's first call (the portfolio) answers 503, so the first attempt fails as a whole; the
    // bound worker's knowledge sync reads through the same proxy meanwhile and is let through
    proxy.scriptFor(
      /\/portfolio(\?|$)/,
      ...Array.from({ length: 3 }, () => ({ status: 503, code: 'unavailable' })),
    );
    const job = await queue.add(
      SUMMARY_JOB_NAME,
      { workerId: worker.workerId },
      {
        jobId: `retry-${worker.workerId}`,
        prevMillis: Date.parse('2026-06-16T07:00:00Z'),
        attempts: 3,
        backoff: { type: 'exponential', delay: 200 },
      },
    );
    const done = await until('the job completed', async () => {
      const j = await queue.getJob(job.id!);
      return j?.finishedOn ? j : undefined;
    });
    // two attempts began and ended (BullMQ counts the successful one too): one retry
    expect([done.attemptsStarted, done.attemptsMade]).toEqual([2, 2]);
    expect(done.returnvalue).toMatchObject({ status: 'delivered' });
    const all = await runs(worker);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ status: 'delivered', attempts: 2, error: null });
    expect(all[0]!.briefing).toContain('Daily briefing');
  });
});

describe('the CLI', () => {
  it(
    'summary runs --worker ID prints the runs as a table, or one JSON object with --json',
    async () => {
      const worker = await bound();
      const runId = await runNow(worker);
      await until('the run delivered', async () => (await runs(worker))[0]?.status === 'delivered');
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-cli-summary-'));
      try {
        const json = await cli(['summary', 'runs', '--worker', worker.workerId, '--json'], dataDir);
        expect(json.code, json.stderr).toBe(0);
        const out = JSON.parse(json.stdout) as { workerId: string; runs: unknown[] };
        expect(out.workerId).toBe(worker.workerId);
        const listed = expectContract(SummaryRunsResponse, { runs: out.runs }).runs;
        expect(listed.map((r) => [r.id, r.status])).toEqual([[runId, 'delivered']]);
        expect(listed[0]!.briefing).toContain('Daily briefing');

        const table = await cli(['summary', 'runs', '--worker', worker.workerId], dataDir);
        expect(table.code, table.stderr).toBe(0);
        const [header, row, ...rest] = table.stdout.trimEnd().split('\n');
        expect(header).toMatch(/^when \(London\)\s+trigger\s+status\s+channel\s+attempts\s+error$/);
        expect(row).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2}\s+run now\s+delivered\s+web\s+1$/);
        expect(rest).toEqual([]);

        const usage = await cli(['summary', 'runs'], dataDir);
        expect(usage.code).toBe(2);
        expect(usage.stderr).toContain('summary runs needs --worker');

        const unknown = await cli(
          ['summary', 'runs', '--worker', '00000000-0000-4000-8000-000000000000'],
          dataDir,
        );
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain('no worker 00000000-0000-4000-8000-000000000000');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
      // four CLI processes, each compiling the CLI with tsx
    },
    scaled(150_000),
  );
});

// Last: it stops this file's worker process.
describe('graceful stop', () => {
  it('lets a running summary finish before the worker process ends', async () => {
    const worker = await bound();
    gate.hold();
    const runId = await runNow(worker);
    await until('the run reading the bridge', () => gate.held() > 0);
    let stopped = false;
    const stopping = processes.stop().then(() => {
      stopped = true;
    });
    const row = await g.db.summaryRun.findUniqueOrThrow({ where: { id: runId } });
    expect(row.status).toBe('running');
    expect(stopped).toBe(false);
    gate.release();
    await stopping;
    const run = await g.db.summaryRun.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});

interface Gate {
  baseUrl: string;
  /** holds every request from now on until release() */
  hold(): void;
  held(): number;
  release(): void;
  close(): Promise<void>;
}

/** A pass-through HTTP hop that can hold requests: a bridge that has not answered yet. */
async function startGate(target: string): Promise<Gate> {
  const upstream = new URL(target);
  let holding = false;
  let waiting: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const out = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      req.pipe(out);
    };
    if (holding) waiting.push(forward);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold: () => {
      holding = true;
    },
    held: () => waiting.length,
    release: () => {
      holding = false;
      const go = waiting;
      waiting = [];
      for (const forward of go) forward();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function cli(
  args: string[],
  dataDir: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'apps/agent-gateway/src/cli/main.ts'), ...args],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          GATEWAY_DATABASE_URL: g.databaseUrl,
          GATEWAY_DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          WEB_ENABLED: 'false',
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
