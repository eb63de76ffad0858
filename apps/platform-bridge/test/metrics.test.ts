import { randomBytes, randomUUID } from 'node:crypto';
import { bridgeRoutes } from '@pa/contracts';
import { ConfigError } from '@pa/http-kit';
import {
  type Exposition,
  metricsWarnings,
  parseExposition,
  type Sample,
  unboundedLabels,
} from '@pa/telemetry';
import { lockTable } from '@pa/db-tools/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { recordEvents } from '../src/features/webhooks/record-events.ts';
import { makeProperty, makeTenant } from './support/factories.ts';
import { mcpHarness } from './support/mcp-client.ts';
import { listenTestBridge, startTestBridge, type TestBridge } from './support/test-app.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { approvedEvent, testSender, webhookTenant } from './support/webhooks.ts';

// The bridge's Prometheus metrics (docs/operations.md, "Metrics") on the real app, database and HTTP: GET /metrics
// guarded by METRICS_TOKEN, the METRICS_PORT listener, and every family with labels from small fixed sets — the
// route table's paths, problem codes, limit names — never a raw URL, an id or a key.

const TOKEN = randomBytes(24).toString('hex');
const PER_MINUTE = 20;

let t: TestBridge;
let http: { baseUrl: string; close(): Promise<void> };
const mcp = mcpHarness(() => http.baseUrl);

beforeAll(async () => {
  t = await startTestBridge({ rateLimitPerMin: PER_MINUTE, metrics: { token: TOKEN } });
  http = await listenTestBridge(t);
});
afterAll(async () => {
  await mcp.closeAll();
  await http?.close();
  await t?.close();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${http.baseUrl}${path}`, { headers });

async function scrape(): Promise<Exposition> {
  const res = await get('/metrics', { Authorization: `Bearer ${TOKEN}` });
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

describe('GET /metrics', () => {
  it('401 without the token or with another one; the exposition with it, the process’s metrics included', async () => {
    const none = await get('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics", error="invalid_token"');
    expect(await none.json()).toMatchObject({ code: 'unauthorized', status: 401 });
    expect((await get('/metrics', { Authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    // a tenant's API key is not the metrics token
    const tenant = await makeTenant(t);
    expect((await get('/metrics', { Authorization: `Bearer ${tenant.key}` })).status).toBe(401);

    const e = await scrape();
    expect(e.types.get('pa_http_requests_total')).toBe('counter');
    expect(e.types.get('pa_http_request_duration_seconds')).toBe('histogram');
    expect(value(e, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples(e, 'nodejs_eventloop_lag_seconds')).toHaveLength(1);
    // every family of ours names the app
    for (const s of e.samples.filter((x) => x.family.startsWith('pa_')))
      expect(s.labels.app).toBe('platform-bridge');
  });
});

describe('the families', () => {
  it('requests by route-table path, problems by code, rate-limit refusals, MCP tool calls, the outbox and its deliveries, the pool — no unbounded label', async () => {
    const tenant = await makeTenant(t);
    const property = await makeProperty(t, tenant.id);
    const auth = { Authorization: `Bearer ${tenant.key}` };
    // the portfolio read and a property by id, found and not
    expect((await get('/api/assistant-bridge/portfolio', auth)).status).toBe(200);
    expect((await get(`/api/assistant-bridge/properties/${property.id}`, auth)).status).toBe(200);
    expect((await get('/api/assistant-bridge/properties/987654321', auth)).status).toBe(404);
    // refused before any route: no key; a bad query; a path no route has, with an id and a key in it
    expect((await get('/api/assistant-bridge/portfolio')).status).toBe(401);
    expect((await get('/api/assistant-bridge/portfolio?limit=lots', auth)).status).toBe(400);
    expect((await get(`/api/assistant-bridge/nothing/${randomUUID()}?key=${tenant.key}`)).status).toBe(401);
    expect((await get(`/nothing/${randomUUID()}/1234567?key=${tenant.key}`)).status).toBe(404);
    // the review queue's page (a route of the table) and one of its files (not one)
    expect((await get('/settings/review-queue')).status).toBe(200);
    expect((await get('/settings/review-queue/review-queue.css')).status).toBe(200);

    // one key over its budget
    const busy = await makeTenant(t);
    let refused = 0;
    for (let i = 0; i <= PER_MINUTE && refused === 0; i++) {
      if (
        (await get('/api/assistant-bridge/portfolio', { Authorization: `Bearer ${busy.key}` })).status === 429
      )
        refused++;
    }
    expect(refused).toBe(1);

    // MCP tool calls: one answered, one a tool error (an unknown property)
    const reader = await mcp.connect((await makeTenant(t)).key);
    await reader.client.callTool({ name: 'get_portfolio', arguments: { limit: 1 } });
    const missing = await reader.client.callTool({ name: 'get_property', arguments: { id: 987654321 } });
    expect(missing.isError).toBe(true);

    // the outbox: two events pending, then delivered by a sender reporting to the same metrics
    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    try {
      const hooked = await webhookTenant(t, receiver.url);
      secret = hooked.endpoint.secret;
      await recordEvents(
        t.db,
        hooked.tenant.id,
        [approvedEvent(hooked.tenant.slug), approvedEvent(hooked.tenant.slug)],
        t.clock,
      );
      expect(value(await scrape(), 'pa_outbox_pending')).toBe(2);
      const sender = await testSender(t, { onAttempt: t.metrics.webhookDelivery });
      try {
        await sender.drain();
      } finally {
        await sender.stop();
      }
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.close();
    }

    const e = await scrape();
    const req = (labels: Record<string, string>) => value(e, 'pa_http_requests_total', labels);
    expect(
      req({ method: 'GET', route: bridgeRoutes.getPortfolio.path, status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(req({ method: 'GET', route: bridgeRoutes.getProperty.path, status: '200' })).toBe(1);
    expect(req({ method: 'GET', route: bridgeRoutes.getProperty.path, status: '404' })).toBe(1);
    expect(req({ method: 'GET', route: bridgeRoutes.getPortfolio.path, status: '401' })).toBe(1);
    expect(req({ method: 'GET', route: bridgeRoutes.getPortfolio.path, status: '400' })).toBe(1);
    expect(req({ method: 'GET', route: bridgeRoutes.getPortfolio.path, status: '429' })).toBe(1);
    expect(req({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(req({ method: 'GET', route: 'unmatched', status: '401' })).toBe(1);
    expect(req({ method: 'GET', route: bridgeRoutes.reviewQueuePage.path, status: '200' })).toBe(1);
    expect(req({ method: 'GET', route: 'static', status: '200' })).toBe(1);
    expect(req({ method: 'POST', route: bridgeRoutes.mcp.path })).toBeGreaterThanOrEqual(3);
    expect(
      value(e, 'pa_http_request_duration_seconds_count', {
        method: 'GET',
        route: bridgeRoutes.getPortfolio.path,
        status_class: '2xx',
      }),
    ).toBeGreaterThanOrEqual(1);

    const problem = (code: string) => value(e, 'pa_http_problems_total', { code });
    expect(problem('property-not-found')).toBe(1);
    expect(problem('unauthorized')).toBeGreaterThanOrEqual(1);
    expect(problem('validation-failed')).toBe(1);
    expect(problem('not-found')).toBe(1);
    expect(problem('rate-limited')).toBe(1);
    expect(value(e, 'pa_rate_limited_total', { limit: 'per-key' })).toBe(1);

    expect(value(e, 'pa_mcp_tool_calls_total', { tool: 'get_portfolio', outcome: 'ok' })).toBe(1);
    expect(value(e, 'pa_mcp_tool_calls_total', { tool: 'get_property', outcome: 'property-not-found' })).toBe(
      1,
    );

    expect(value(e, 'pa_outbox_pending')).toBe(0);
    expect(value(e, 'pa_webhook_deliveries_total', { outcome: 'succeeded' })).toBe(2);

    expect(
      samples(e, 'pa_db_pool_connections')
        .map((s) => s.labels.state)
        .sort(),
    ).toEqual(['active', 'idle', 'waiting']);
    expect(value(e, 'pa_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(1);

    // no label value is an id, a key, a query string or a raw path
    expect(unboundedLabels(e.samples)).toEqual([]);
    const routes = new Set([
      ...Object.values(bridgeRoutes).map((r) => r.path),
      '/metrics',
      'static',
      'unmatched',
    ]);
    for (const s of samples(e, 'pa_http_requests_total')) expect(routes).toContain(s.labels.route);
    expect(JSON.stringify(e.samples)).not.toContain(tenant.key.slice(0, 13));
  });
});

describe('the outbox gauge on a slow database', () => {
  it('runs one COUNT however many scrapes come while it waits, and reads again once it is done', async () => {
    // the table locked from outside the app's pool: the gauge's COUNT waits on the lock, as on a database that is
    // slow to answer, and the waiting queries can be counted in pg_stat_activity
    const locked = await lockTable(
      t.databaseUrl,
      'webhook_deliveries',
      '%AS pending FROM webhook_deliveries%',
    );
    const waitingCounts = locked.waiting;
    try {
      // three scrapes at once, then another once they have given up on the count (each waits 2 s, then says NaN)
      const overlapping = await Promise.all([scrape(), scrape(), scrape()]);
      for (const e of overlapping) expect(value(e, 'pa_outbox_pending')).toBeNaN();
      expect(value(await scrape(), 'pa_outbox_pending')).toBeNaN();
      expect(await waitingCounts()).toBe(1);
      await locked.release();
      await expect.poll(waitingCounts).toBe(0);
      expect(value(await scrape(), 'pa_outbox_pending')).toBeGreaterThanOrEqual(0);
    } finally {
      await locked.end();
    }
  });
});

describe('the METRICS_PORT listener', () => {
  it('answers GET /metrics on 127.0.0.1 without a token; any other path 404, another method 405', async () => {
    const listener = await t.metrics.listen('127.0.0.1', 0);
    try {
      expect(listener!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${listener!.url}/metrics`);
      expect(res.status).toBe(200);
      const e = parseExposition(await res.text());
      expect(e.types.get('pa_outbox_pending')).toBe('gauge');
      expect(e.types.get('pa_webhook_deliveries_total')).toBe('counter');
      expect((await fetch(`${listener!.url}/api/assistant-bridge/portfolio`)).status).toBe(404);
      expect((await fetch(`${listener!.url}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await listener?.close();
    }
  });
});

describe('without METRICS_TOKEN, or with metrics off', () => {
  it('GET /metrics on the app’s port is 404 like any unknown path, whatever it carries', async () => {
    const noToken = await startTestBridge({ metrics: {} });
    const off = await startTestBridge();
    const served: Array<{ close(): Promise<void> }> = [];
    try {
      for (const bridge of [noToken, off]) {
        const listening = await listenTestBridge(bridge);
        served.push(listening);
        const res = await fetch(`${listening.baseUrl}/metrics`, {
          headers: { Authorization: `Bearer ${TOKEN}` },
        });
        expect(res.status).toBe(404);
        expect(await res.json()).toMatchObject({ code: 'not-found' });
      }
      expect(noToken.metrics.enabled).toBe(true);
      expect(off.metrics.enabled).toBe(false);
      expect(await off.metrics.listen('127.0.0.1', 0)).toBeNull();
      // on without a token: served on the listener only
      const listener = await noToken.metrics.listen('127.0.0.1', 0);
      try {
        expect((await fetch(`${listener!.url}/metrics`)).status).toBe(200);
      } finally {
        await listener?.close();
      }
    } finally {
      for (const s of served) await s.close();
      await noToken.close();
      await off.close();
    }
  });
});

describe('the metrics settings', () => {
  it('are off by default; the token needs 32 characters; the listener’s port must not be the app’s', () => {
    expect(loadConfig({})).toMatchObject({ METRICS_ENABLED: false, METRICS_HOST: '127.0.0.1' });
    expect(loadConfig({}).METRICS_PORT).toBeUndefined();
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(
      /METRICS_TOKEN: must be at least 32 characters/,
    );
    expect(() => loadConfig({ METRICS_PORT: '4000' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_PORT: '4000' })).toThrow(
      /METRICS_PORT: must differ from PLATFORM_PORT/,
    );
  });

  it('under `npm start` (one environment for both apps) PLATFORM_METRICS_PORT gives the bridge a port of its own', () => {
    const shared = { METRICS_ENABLED: 'true', METRICS_PORT: '9464' };
    expect(loadConfig(shared).METRICS_PORT).toBe(9464);
    expect(loadConfig({ ...shared, PLATFORM_METRICS_PORT: '9465' }).METRICS_PORT).toBe(9465);
    expect(() => loadConfig({ ...shared, PLATFORM_METRICS_PORT: '4000' })).toThrow(
      /PLATFORM_METRICS_PORT: must differ/,
    );
  });

  it('warn about what their author may not mean', () => {
    expect(metricsWarnings(loadConfig({}))).toEqual([]);
    expect(metricsWarnings(loadConfig({ METRICS_PORT: '9464' }))).toEqual([
      'METRICS_TOKEN or METRICS_PORT is set but METRICS_ENABLED is not true: no metrics are served.',
    ]);
    expect(metricsWarnings(loadConfig({ METRICS_ENABLED: 'true' }))).toEqual([
      'METRICS_ENABLED is true without METRICS_TOKEN or METRICS_PORT: metrics are counted but served nowhere.',
    ]);
    expect(
      metricsWarnings(loadConfig({ METRICS_ENABLED: 'true', METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' })),
    ).toEqual([
      'METRICS_HOST is 0.0.0.0: /metrics on METRICS_PORT answers without a token to anyone who can reach that address.',
    ]);
  });
});
