import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { gatewayRoutes, RunNowResponse } from '@pa/contracts';
import { scaled, until } from '@pa/http-kit/testing';
import { type Exposition, parseExposition, type Sample, unboundedLabels } from '@pa/telemetry';
import { lockTable } from '@pa/db-tools/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { composeGateway } from '../src/compose/gateway.ts';
import { configWarnings, loadConfig } from '../src/config.ts';
import { startWorkerProcess, type WorkerProcess } from '../src/compose/worker-process.ts';
import { type BoundWorker, bindWorker } from './support/bound-worker.ts';
import { type FakeOpenAI, startFakeOpenAI } from './support/fake-openai.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// The gateway's Prometheus metrics (docs/operations.md, "Metrics") on the real app, database, Redis, BullMQ queue
// and platform bridge, with an OpenAI-compatible fake as the model: GET /metrics guarded by METRICS_TOKEN (and
// answered whatever the Host, like the health probes), the METRICS_PORT listener, and every family with labels from
// small fixed sets — the route table's paths, problem codes, limit names, tools, operations — never a raw URL, an
// id or a key.

const TOKEN = randomBytes(24).toString('hex');

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let fake: FakeOpenAI;
let g: TestGateway;
let processes: WorkerProcess;
let worker: BoundWorker;

beforeAll(async () => {
  platform = await startPlatformForGateway({ rateLimitPerMin: 100_000 });
  demo = await platform.seedDemo();
  fake = await startFakeOpenAI();
  g = await startTestGateway({
    redis: 'required',
    env: {
      METRICS_ENABLED: 'true',
      METRICS_TOKEN: TOKEN,
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      PLATFORM_BASE_URL: platform.baseUrl,
      ASSISTANT_DAILY_SUMMARY_ENABLED: 'true',
      EMAIL_INGESTION_ENABLED: 'true',
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: 'sk-test',
      PROVIDER: 'openai',
      CHAT_RATE_LIMIT_PER_MIN: '8',
      MAX_STREAMS_PER_IP: '1',
    },
  });
  // the summary queue's worker, reporting to the same metrics (as `npm start` runs it in the gateway)
  processes = startWorkerProcess(composeGateway(g.deps), { scanMs: 60_000 });
  worker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
}, scaled(60_000));
beforeEach(() => fake?.reset());
afterAll(async () => {
  await processes?.stop();
  await g?.close();
  await fake?.close();
  await platform?.close();
});

const headers = () => ({ 'X-Workspace-Id': worker.workspaceId });

async function scrape(): Promise<Exposition> {
  const res = await fetch(`${g.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(await res.text());
}

/** The samples of `name` whose labels include `labels`. */
function samples(e: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return e.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}
const value = (e: Exposition, name: string, labels: Record<string, string> = {}) =>
  samples(e, name, labels).reduce((sum, s) => sum + s.value, 0);

/** A GET with a Host header of our choosing (fetch will not send one). */
function getWithHost(path: string, host: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(g.baseUrl);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, headers: { ...headers, Host: host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /metrics', () => {
  it('401 without the token or with another one (the operator’s token is not it); the exposition with it', async () => {
    const none = await fetch(`${g.baseUrl}/metrics`);
    await expectProblem(none, 401, 'unauthorized');
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics", error="invalid_token"');
    const wrong = await fetch(`${g.baseUrl}/metrics`, {
      headers: { Authorization: `Bearer ${TOKEN.slice(1)}` },
    });
    expect(wrong.status).toBe(401);

    const e = await scrape();
    expect(e.types.get('pa_http_requests_total')).toBe('counter');
    expect(value(e, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    for (const s of e.samples.filter((x) => x.family.startsWith('pa_')))
      expect(s.labels.app).toBe('agent-gateway');
  });

  it('answers a scraper that calls the gateway by another host name (a container’s), which the host guard refuses elsewhere', async () => {
    const scraped = await getWithHost('/metrics', 'agent-gateway:3000', { Authorization: `Bearer ${TOKEN}` });
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('# TYPE pa_http_requests_total counter');
    expect((await getWithHost('/metrics', 'agent-gateway:3000')).status).toBe(401);
    expect((await getWithHost('/api/providers', 'agent-gateway:3000')).status).toBe(403);
  });
});

describe('the families', () => {
  it(
    'HTTP by route-table path, problems, rate limits, chat turns, tool calls, bridge calls, event streams, the queue, mailbox lag and the pool — no unbounded label',
    async () => {
      // a chat turn whose model calls the portfolio read and a tool it made up
      fake.script(
        {
          toolCalls: [
            { name: 'platform-get-portfolio', arguments: { limit: 5 } },
            { name: 'no_such_tool_1234567', arguments: {} },
          ],
        },
        { chunks: ['You have ', 'properties.'] },
      );
      expect((await worker.chat('How many properties do I have?')).reply).toBe('You have properties.');

      // an event stream held open: counted while open; a second one from this address is refused
      fake.script({ chunks: ['Hel'], end: 'hang' });
      const stop = new AbortController();
      const open = await fetch(`${g.baseUrl}/api/chat/stream?${new URLSearchParams({ message: 'hello' })}`, {
        signal: stop.signal,
      });
      expect(open.status).toBe(200);
      const reader = open.body!.getReader();
      await reader.read();
      expect(value(await scrape(), 'pa_sse_streams_open')).toBe(1);
      await expectProblem(
        await fetch(`${g.baseUrl}/api/chat/stream?${new URLSearchParams({ message: 'again' })}`),
        429,
        'too-many-streams',
      );
      stop.abort();
      await until(
        'the stream counted closed',
        async () => value(await scrape(), 'pa_sse_streams_open') === 0,
      );

      // problems: a body the chat refuses, until the per-minute chat budget refuses the address
      let limited = false;
      for (let i = 0; i < 12 && !limited; i++) {
        const res = await postJson(g.baseUrl, '/api/chat', { message: '' });
        if (res.status === 429) limited = true;
        else await expectProblem(res, 400, 'validation-failed');
      }
      expect(limited).toBe(true);
      // a worker that is not there; a path no route has, with ids and a token in it; the UI
      await expectProblem(
        await fetch(`${g.baseUrl}/api/assistant/workers/${randomUUID()}`, { headers: headers() }),
        404,
        'worker-not-found',
      );
      await expectProblem(
        await fetch(`${g.baseUrl}/api/nothing/${randomUUID()}/1234567?token=gwt_${'a'.repeat(38)}`),
        404,
        'not-found',
      );
      expect((await fetch(`${g.baseUrl}/`)).status).toBe(200);

      // a daily summary run now, through the queue's worker
      const runNow = await fetch(`${g.baseUrl}/api/assistant/workers/${worker.workerId}/summary/run-now`, {
        method: 'POST',
        headers: headers(),
      });
      expect(runNow.status, await runNow.clone().text()).toBe(202);
      const { runId } = expectContract(RunNowResponse, await runNow.json());
      await until(
        'the summary run delivered',
        async () => (await g.db.summaryRun.findUnique({ where: { id: runId } }))?.status === 'delivered',
        30_000,
      );
      // a mailbox last synced ten minutes ago (the syncer's first pass is over: it is not touched here)
      await g.db.mailbox.create({
        data: {
          workerId: worker.workerId,
          address: `lag-${randomUUID()}@example.com`,
          addressKey: `lag-${randomUUID()}@example.com`,
          host: 'imap.example.com',
          port: 993,
          secure: true,
          username: 'lag',
          passwordCiphertext: Buffer.from('not a real password'),
          lastSyncAt: new Date(Date.now() - 600_000),
        },
      });

      const e = await until('the summary job counted', async () => {
        const scraped = await scrape();
        return (
          value(scraped, 'pa_queue_job_duration_seconds_count', { outcome: 'completed' }) >= 1 && scraped
        );
      });
      const req = (labels: Record<string, string>) => value(e, 'pa_http_requests_total', labels);
      expect(req({ method: 'POST', route: gatewayRoutes.chat.path, status: '200' })).toBe(1);
      expect(req({ method: 'POST', route: gatewayRoutes.chat.path, status: '400' })).toBeGreaterThanOrEqual(
        1,
      );
      expect(req({ method: 'POST', route: gatewayRoutes.chat.path, status: '429' })).toBe(1);
      expect(req({ method: 'GET', route: gatewayRoutes.chatStream.path, status: '200' })).toBe(1);
      expect(req({ method: 'GET', route: gatewayRoutes.chatStream.path, status: '429' })).toBe(1);
      expect(req({ method: 'GET', route: gatewayRoutes.getWorker.path, status: '404' })).toBe(1);
      expect(req({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
      expect(req({ method: 'GET', route: 'static', status: '200' })).toBeGreaterThanOrEqual(1);
      expect(
        value(e, 'pa_http_request_duration_seconds_count', {
          method: 'POST',
          route: gatewayRoutes.chat.path,
          status_class: '2xx',
        }),
      ).toBe(1);

      const problem = (code: string) => value(e, 'pa_http_problems_total', { code });
      expect(problem('validation-failed')).toBeGreaterThanOrEqual(1);
      expect(problem('worker-not-found')).toBe(1);
      expect(problem('not-found')).toBe(1);
      expect(problem('too-many-streams')).toBe(1);
      expect(problem('rate-limited')).toBe(1);
      expect(value(e, 'pa_rate_limited_total', { limit: 'chat' })).toBe(1);
      expect(value(e, 'pa_rate_limited_total', { limit: 'too-many-streams' })).toBe(1);

      const turns = { provider: 'openai', channel: 'web' };
      expect(value(e, 'pa_chat_turns_total', { ...turns, status: 'complete' })).toBe(1);
      expect(value(e, 'pa_chat_turns_total', { ...turns, status: 'interrupted' })).toBe(1);
      expect(value(e, 'pa_chat_turn_duration_seconds_count', turns)).toBe(2);
      expect(value(e, 'pa_tool_calls_total', { tool: 'platform-get-portfolio', outcome: 'ok' })).toBe(1);
      expect(value(e, 'pa_tool_calls_total', { tool: 'unknown', outcome: 'error' })).toBe(1);

      // the tool's read, the bind's smoke test and the summary's reads: all the bridge's portfolio operation
      expect(
        value(e, 'pa_bridge_requests_total', { operation: 'getPortfolio', status: 'ok' }),
      ).toBeGreaterThanOrEqual(3);
      expect(
        value(e, 'pa_bridge_request_duration_seconds_count', { operation: 'getPortfolio' }),
      ).toBeGreaterThanOrEqual(3);
      expect(value(e, 'pa_sse_streams_open')).toBe(0);

      const jobs = (state: string) => value(e, 'pa_queue_jobs', { queue: 'daily-summary', state });
      expect(jobs('completed')).toBe(1);
      expect(jobs('failed')).toBe(0);
      expect(
        samples(e, 'pa_queue_jobs')
          .map((s) => s.labels.state)
          .sort(),
      ).toEqual(['active', 'completed', 'delayed', 'failed', 'prioritized', 'waiting']);
      expect(
        value(e, 'pa_queue_job_duration_seconds_count', { queue: 'daily-summary', outcome: 'completed' }),
      ).toBe(1);

      expect(value(e, 'pa_mailbox_sync_lag_seconds')).toBeGreaterThanOrEqual(600);
      expect(
        samples(e, 'pa_db_pool_connections')
          .map((s) => s.labels.state)
          .sort(),
      ).toEqual(['active', 'idle', 'waiting']);
      expect(value(e, 'pa_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(1);

      // no label value is an id, a number long enough to be one, a query string, a key or a raw path
      expect(unboundedLabels(e.samples)).toEqual([]);
      const routes = new Set([
        ...Object.values(gatewayRoutes).map((r) => r.path),
        '/metrics',
        'static',
        'unmatched',
      ]);
      for (const s of samples(e, 'pa_http_requests_total')) expect(routes).toContain(s.labels.route);
      const text = JSON.stringify(e.samples);
      for (const secret of [demo.key, worker.workerId, worker.workspaceId, 'sk-test'])
        expect(text).not.toContain(secret);
    },
    scaled(90_000),
  );
});

describe('the mailbox lag gauge on a slow database', () => {
  it('runs one query however many scrapes come while it waits, and reads again once it is done', async () => {
    // the table locked from outside the app's pool: the gauge's query waits on the lock, as on a database that is
    // slow to answer, and the waiting queries can be counted in pg_stat_activity
    const locked = await lockTable(
      g.databaseUrl,
      'mailboxes',
      '%max(now() - COALESCE(last_sync_at, created_at))%',
    );
    const waitingReads = locked.waiting;
    try {
      // three scrapes at once, then another once they have given up on the read (each waits 2 s, then says NaN)
      const overlapping = await Promise.all([scrape(), scrape(), scrape()]);
      for (const e of overlapping) expect(value(e, 'pa_mailbox_sync_lag_seconds')).toBeNaN();
      expect(value(await scrape(), 'pa_mailbox_sync_lag_seconds')).toBeNaN();
      expect(await waitingReads()).toBe(1);
      await locked.release();
      await expect.poll(waitingReads).toBe(0);
      expect(value(await scrape(), 'pa_mailbox_sync_lag_seconds')).toBeGreaterThanOrEqual(0);
    } finally {
      await locked.end();
    }
  });
});

describe('the METRICS_PORT listener', () => {
  it('answers GET /metrics on 127.0.0.1 without a token; any other path 404', async () => {
    const listener = await g.deps.metrics.listen('127.0.0.1', 0);
    try {
      const res = await fetch(`${listener!.url}/metrics`);
      expect(res.status).toBe(200);
      const e = parseExposition(await res.text());
      expect(e.types.get('pa_chat_turns_total')).toBe('counter');
      expect(e.types.get('pa_queue_jobs')).toBe('gauge');
      expect((await fetch(`${listener!.url}/api/providers`)).status).toBe(404);
    } finally {
      await listener?.close();
    }
  });
});

describe('a gateway with GATEWAY_AUTH=token and no METRICS_TOKEN', () => {
  it('answers GET /metrics 404 on its port, even to the operator; the listener still serves them', async () => {
    const admin = randomBytes(24).toString('hex');
    const tokenGateway = await startTestGateway({
      redis: 'none',
      env: { METRICS_ENABLED: 'true', GATEWAY_AUTH: 'token', GATEWAY_ADMIN_TOKEN: admin },
    });
    try {
      const res = await fetch(`${tokenGateway.baseUrl}/metrics`, {
        headers: { Authorization: `Bearer ${admin}` },
      });
      await expectProblem(res, 404, 'not-found');
      const listener = await tokenGateway.deps.metrics.listen('127.0.0.1', 0);
      try {
        const scraped = parseExposition(await (await fetch(`${listener!.url}/metrics`)).text());
        // the refused scrape above, counted without its bearer anywhere
        expect(
          value(scraped, 'pa_http_requests_total', { method: 'GET', route: '/metrics', status: '404' }),
        ).toBe(1);
      } finally {
        await listener?.close();
      }
    } finally {
      await tokenGateway.close();
    }
  });
});

describe('the metrics settings', () => {
  it('are off by default; the token needs 32 characters; the listener’s port must not be the gateway’s', () => {
    expect(loadConfig({})).toMatchObject({ METRICS_ENABLED: false, METRICS_HOST: '127.0.0.1' });
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(
      /METRICS_TOKEN: must be at least 32 characters/,
    );
    expect(() => loadConfig({ WEB_PORT: '3100', METRICS_PORT: '3100' })).toThrow(
      /METRICS_PORT: must differ from the gateway's own port \(3100\)/,
    );
    expect(loadConfig({ METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
  });

  it('are warned about at start when they say what their author may not mean', () => {
    expect(configWarnings(loadConfig({ METRICS_ENABLED: 'true' }))).toContain(
      'METRICS_ENABLED is true without METRICS_TOKEN or METRICS_PORT: metrics are counted but served nowhere.',
    );
    expect(configWarnings(loadConfig({ METRICS_TOKEN: TOKEN }))).toContain(
      'METRICS_TOKEN or METRICS_PORT is set but METRICS_ENABLED is not true: no metrics are served.',
    );
  });
});
