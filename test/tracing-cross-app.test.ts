import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '@pa/db-tools/testing';
import { until } from '@pa/http-kit/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmStart, root, type Urls } from './support/npm-start.ts';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND,
  startOtlpReceiver,
  traceOf,
} from './support/otlp-receiver.ts';

// Tracing on, as an operator turns it on: `npm start` (both apps as their own processes, the demo wired) with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver in this process, on fresh PostgreSQL databases and
// the real Redis. A chat turn that calls the platform's tools, a proposal's approval down to the signed event's
// delivery to the gateway, and a daily summary run each come out as ONE trace across both services.

const execFileAsync = promisify(execFile);
const unique = `${process.pid}${Date.now().toString(36)}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pa-tracing-'));
const redisPrefix = `test:tracing:${unique}:`;
const queuePrefix = `test-bull-tracing-${unique}`;

let receiver: OtlpReceiver;
let databases: { url: string; drop(): Promise<void> }[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  databases = await Promise.all(
    (['platform', 'gateway'] as const).map((schema) =>
      createTestDatabase({
        prefix: `tracing_${schema}`,
        migrationsDir: path.join(root, 'prisma', schema, 'migrations'),
      }),
    ),
  );
});
afterAll(async () => {
  await receiver?.close();
  await Promise.all(databases.map((d) => d.drop()));
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = [...(await redis.keys(`${redisPrefix}*`)), ...(await redis.keys(`${queuePrefix}:*`))];
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  rmSync(dataDir, { recursive: true, force: true });
});

const GATEWAY = 'agent-gateway';
const BRIDGE = 'platform-bridge';
const isPg = (s: ReceivedSpan) => s.scope === '@opentelemetry/instrumentation-pg';
const isRedis = (s: ReceivedSpan) => s.scope === '@opentelemetry/instrumentation-ioredis';

/** The one server span of `service` for `route` (the route table's path) with `method`, once it has come. */
function serverSpan(service: string, method: string, route: string): Promise<ReceivedSpan> {
  const servers = () => receiver.spans().filter((s) => s.service === service && s.kind === SPAN_KIND.server);
  return until(`the ${service} span of ${method} ${route}`, () =>
    servers().find(
      (s) => s.attributes['http.request.method'] === method && s.attributes['http.route'] === route,
    ),
  ).catch((err: Error) => {
    throw new Error(
      `${err.message}; its server spans: ${servers()
        .map((s) => s.name)
        .join(', ')}`,
    );
  });
}

/**
 * Every bridge server span of the trace sits under a gateway client span (the W3C traceparent travelled), and the
 * bridge's statements run under those server spans.
 */
function expectBridgeJoined(trace: ReturnType<typeof traceOf>) {
  const bridgeServers = trace.spans.filter((s) => s.service === BRIDGE && s.kind === SPAN_KIND.server);
  expect(bridgeServers.length, 'bridge requests in the trace').toBeGreaterThan(0);
  for (const server of bridgeServers) {
    const parent = trace.parentOf(server);
    expect(parent, `the parent of ${server.name}`).toMatchObject({
      service: GATEWAY,
      kind: SPAN_KIND.client,
    });
    expect(
      trace.spans.some((s) => s.service === BRIDGE && isPg(s) && trace.under(s, server)),
      `pg spans under ${server.name}`,
    ).toBe(true);
  }
  return bridgeServers;
}

/**
 * Waits until the trace has spans that satisfy `fn` and every call from one app to the other has reached the
 * receiver from both sides (each process sends its own spans, every 100 ms here).
 */
function traceWhere(traceId: string, what: string, fn: (trace: ReturnType<typeof traceOf>) => boolean) {
  return until(what, () => {
    const trace = traceOf(receiver.spans(), traceId);
    const clients = trace.spans.filter(
      (s) => s.kind === SPAN_KIND.client && s.scope === '@opentelemetry/instrumentation-http',
    );
    const answered = clients.every((c) =>
      trace.spans.some((s) => s.kind === SPAN_KIND.server && s.parentSpanId === c.spanId),
    );
    return fn(trace) && answered && trace;
  });
}

describe('tracing on (OTEL_EXPORTER_OTLP_ENDPOINT) across the gateway and the bridge, as npm start runs them', () => {
  it('a chat turn, an approval down to its signed event, and a daily summary are one trace each', async () => {
    let chatTraceId = '';
    let approvalTraceId = '';
    const { stdout } = await npmStart({
      env: {
        DEMO: 'true',
        PLATFORM_DATA_DIR: dataDir,
        GATEWAY_DATA_DIR: dataDir,
        PLATFORM_DATABASE_URL: databases[0]!.url,
        GATEWAY_DATABASE_URL: databases[1]!.url,
        REDIS_PREFIX: redisPrefix,
        SUMMARY_QUEUE_PREFIX: queuePrefix,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      until: ({ stderr }) => stderr.includes('Open http'),
      waitMs: 300_000,
      during: async (urls: Urls) => {
        // 1. A chat turn whose answer calls the platform's tools (the demo's local engine: a read, then a proposal)
        const chat = await fetch(`${urls.gateway}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'Propose a deal to acquire 14 Oak Street for £250,000' }),
        });
        expect(chat.status).toBe(200);
        const { reply } = (await chat.json()) as { reply: string };
        const proposalId = Number(/Proposal #(\d+)/.exec(reply)?.[1]);
        expect(proposalId, reply).toBeGreaterThan(0);

        const chatServer = await serverSpan(GATEWAY, 'POST', '/api/chat');
        chatTraceId = chatServer.traceId;
        const chatTrace = await traceWhere(chatTraceId, 'the chat turn’s trace', (t) =>
          t.spans.some((s) => s.name === 'chat.session.store'),
        );
        expect(new Set(chatTrace.spans.map((s) => s.service))).toEqual(new Set([GATEWAY, BRIDGE]));
        expectBridgeJoined(chatTrace);
        // the turn's phases, in order of nesting: the limit (its Redis call), the session store (its statements),
        // the provider, and each tool call with the bridge request under it
        const named = (n: string) => chatTrace.spans.find((s) => s.name === n && s.service === GATEWAY);
        const limit = named('chat.rate_limit')!;
        expect(limit, 'chat.rate_limit').toBeDefined();
        expect(chatTrace.spans.some((s) => isRedis(s) && chatTrace.under(s, limit))).toBe(true);
        const begin = named('chat.session.begin')!;
        expect(chatTrace.spans.some((s) => isPg(s) && chatTrace.under(s, begin))).toBe(true);
        const provider = named('chat local')!;
        expect(provider, 'the provider’s span').toBeDefined();
        const tool = named('execute_tool platform-propose-deal')!;
        expect(chatTrace.under(tool, provider)).toBe(true);
        expect(tool.attributes['gen_ai.tool.name']).toBe('platform-propose-deal');
        const proposalPost = chatTrace.spans.find(
          (s) =>
            s.service === BRIDGE &&
            s.kind === SPAN_KIND.server &&
            s.attributes['http.route'] === '/api/assistant-bridge/proposals/deal',
        )!;
        expect(chatTrace.under(proposalPost, tool)).toBe(true);
        expect(chatTrace.spans.some((s) => s.service === GATEWAY && isPg(s))).toBe(true);
        // what people typed stays out of the spans
        for (const s of chatTrace.spans) expect(JSON.stringify(s.attributes)).not.toContain('Oak Street');

        // 2. An admin approves the proposal: the record writers, then the signed event's delivery to the gateway,
        // which the sender sends later (woken by the commit) in the approval's trace, kept with the outbox row
        const admin = await execFileAsync(
          process.execPath,
          [
            '--import',
            'tsx',
            'apps/platform-bridge/src/cli/main.ts',
            'admins',
            'create',
            '--tenant',
            'demo-lettings',
            '--email',
            'tracing-test@demo.example',
            '--json',
          ],
          { cwd: root, env: { ...process.env, PLATFORM_DATABASE_URL: databases[0]!.url } },
        );
        const { key } = JSON.parse(admin.stdout) as { key: string };
        const approved = await fetch(`${urls.platform}/api/admin/proposals/${proposalId}/approve`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ note: 'Traced.' }),
        });
        expect(approved.status, await approved.clone().text()).toBe(200);
        const approval = await serverSpan(BRIDGE, 'POST', '/api/admin/proposals/:id/approve');
        approvalTraceId = approval.traceId;
        const approvalTrace = await traceWhere(
          approvalTraceId,
          'the event’s delivery in the approval’s trace',
          (t) => t.spans.some((s) => s.name === 'webhook.deliver'),
        );
        expect(approvalTrace.spans.some((s) => isPg(s) && approvalTrace.under(s, approval))).toBe(true);
        const delivery = approvalTrace.spans.find((s) => s.name === 'webhook.deliver')!;
        expect(delivery.attributes['pa.webhook.outcome']).toBe('succeeded');
        const received = approvalTrace.spans.find(
          (s) =>
            s.service === GATEWAY &&
            s.kind === SPAN_KIND.server &&
            s.attributes['http.route'] === '/api/platform/events',
        )!;
        expect(approvalTrace.parentOf(received)).toMatchObject({ service: BRIDGE, kind: SPAN_KIND.client });
        expect(approvalTrace.under(received, delivery)).toBe(true);
        expect(approvalTrace.spans.some((s) => isPg(s) && approvalTrace.under(s, received))).toBe(true);

        // 3. A daily summary run: the job's producer span under the request, its consumer span under that, the
        // job's bridge reads under the consumer
        const context = (await (await fetch(`${urls.gateway}/api/web/context`)).json()) as {
          workspaceId: string;
          worker: { id: string };
        };
        const runNow = await fetch(
          `${urls.gateway}/api/assistant/workers/${context.worker.id}/summary/run-now`,
          {
            method: 'POST',
            headers: { 'X-Workspace-Id': context.workspaceId, 'content-type': 'application/json' },
            body: '{}',
          },
        );
        expect(runNow.status, await runNow.clone().text()).toBe(202);
        const runRequest = await serverSpan(
          GATEWAY,
          'POST',
          '/api/assistant/workers/:workerId/summary/run-now',
        );
        const runTrace = await traceWhere(runRequest.traceId, 'the summary job’s spans', (t) =>
          t.spans.some((s) => s.kind === SPAN_KIND.consumer),
        );
        const producer = runTrace.spans.find((s) => s.kind === SPAN_KIND.producer)!;
        expect(runTrace.under(producer, runRequest)).toBe(true);
        const consumer = runTrace.spans.find((s) => s.kind === SPAN_KIND.consumer)!;
        expect(consumer.name).toBe('process daily-summary');
        expect(runTrace.under(consumer, producer)).toBe(true);
        for (const b of expectBridgeJoined(runTrace)) expect(runTrace.under(b, consumer)).toBe(true);
      },
    });

    // The log lines written inside those requests carry their trace's id (instrumentation-pino)
    const lines = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const requestLine = (service: string, p: string) =>
      lines.find((l) => l.service === service && l.msg === 'request' && l.path === p);
    expect(requestLine(GATEWAY, '/api/chat')).toMatchObject({ trace_id: chatTraceId });
    expect(requestLine(BRIDGE, '/api/assistant-bridge/proposals/deal')).toMatchObject({
      trace_id: chatTraceId,
    });
    expect(requestLine(GATEWAY, '/api/platform/events')).toMatchObject({ trace_id: approvalTraceId });
    // a line written outside any span has none
    expect(
      lines.find((l) => l.service === GATEWAY && String(l.msg).includes('listening')),
    ).not.toHaveProperty('trace_id');
    expect(receiver.refused()).toEqual([]);
  }, 600_000);
});
