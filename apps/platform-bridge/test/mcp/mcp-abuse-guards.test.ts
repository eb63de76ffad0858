import { MCP_MAX_BATCH, Problem } from '@pa/contracts';
import { createLogger, listen } from '@pa/http-kit';
import { scaled } from '@pa/http-kit/testing';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { expectContract } from '../support/contract.ts';
import { makeProperty, makeTenant } from '../support/factories.ts';
import { mcpPost } from '../support/mcp-client.ts';
import { listenTestBridge, startTestBridge, type TestBridge } from '../support/test-app.ts';

// What a key could do to the bridge through MCP beyond its REST reads: spend its budget many times over in one
// batch, read our database's errors in a resource's or prompt's answer, or write what it likes into the audit.

const BUDGET = 3;
let t: TestBridge;
let http: { baseUrl: string; close(): Promise<void> };

beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z', rateLimitPerMin: BUDGET });
  http = await listenTestBridge(t);
});
afterAll(async () => {
  await http?.close();
  await t?.close();
});

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const post = (baseUrl: string, key: string, body: unknown) =>
  mcpPost(baseUrl, body, { authorization: `Bearer ${key}` });

async function expectProblemResponse(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const p = expectContract(Problem, await res.json());
  expect(p.code).toBe(code);
  return p;
}

describe('a JSON-RPC batch and the per-key budget', () => {
  it('charges each request of a batch to the key: a batch larger than the budget is refused with 429', async () => {
    const tenant = await makeTenant(t);
    const batch = Array.from({ length: BUDGET + 2 }, (_, i) => ping(i + 1));
    const res = await post(http.baseUrl, tenant.key, batch);
    await expectProblemResponse(res, 429, 'rate-limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts a batch of two as two requests, and notifications in it as nothing more', async () => {
    const tenant = await makeTenant(t);
    const two = await post(http.baseUrl, tenant.key, [
      ping(1),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      ping(2),
    ]);
    expect(two.status).toBe(200);
    expect(((await two.json()) as Array<{ id: number }>).map((a) => a.id)).toEqual([1, 2]);
    // the budget's third request
    expect((await post(http.baseUrl, tenant.key, ping(3))).status).toBe(200);
    await expectProblemResponse(await post(http.baseUrl, tenant.key, ping(4)), 429, 'rate-limited');
  });

  it(`refuses a batch of more than ${MCP_MAX_BATCH} messages with 400 batch-too-large`, async () => {
    const tenant = await makeTenant(t);
    const notifications = Array.from({ length: MCP_MAX_BATCH + 1 }, () => ({
      jsonrpc: '2.0',
      method: 'notifications/initialized',
    }));
    const p = await expectProblemResponse(
      await post(http.baseUrl, tenant.key, notifications),
      400,
      'batch-too-large',
    );
    expect(p.detail).toContain(String(MCP_MAX_BATCH));
  });
});

describe('the audit of a tool call', () => {
  it("takes ids only from the tool's own input properties: 50 junk `…_id` keys leave none", async () => {
    const tenant = await makeTenant(t);
    const property = await makeProperty(t, tenant.id);
    const junk = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x${i + 1}_id`, `junk-${i}`]));
    const res = await post(http.baseUrl, tenant.key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_property', arguments: { ...junk, id: property.id } },
    });
    expect(res.status).toBe(200);
    const deadline = Date.now() + scaled(10_000);
    for (;;) {
      const lines = await t.db.mcpToolCall.findMany({ where: { tenantId: tenant.id } });
      if (lines.length > 0) {
        expect(lines.map((l) => [l.tool, l.ids])).toEqual([['get_property', { id: property.id }]]);
        return;
      }
      if (Date.now() > deadline) throw new Error('no audit line');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});

// Last in the file: it takes the properties table away from this file's own database for a moment.
describe('a resource or prompt that fails on our side', () => {
  it('is logged and answered -32603 Internal error, without the database error', async () => {
    const logged: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    const app = createApp({
      db: t.db,
      statements: t.statements,
      transactions: t.transactions,
      logger: createLogger('platform-bridge', 'error', sink),
      clock: t.clock,
      rateLimitPerMin: 10_000,
    });
    const server = await listen(app, 0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const tenant = await makeTenant(t);
    const property = await makeProperty(t, tenant.id);
    const admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
    await admin.query('ALTER TABLE properties RENAME TO properties_away');
    try {
      const calls = [
        { method: 'resources/read', params: { uri: `property://${property.id}` } },
        { method: 'resources/list', params: {} },
        {
          method: 'prompts/get',
          params: { name: 'owner_monthly_update', arguments: { property: property.ref } },
        },
      ];
      for (const [i, call] of calls.entries()) {
        const res = await post(baseUrl, tenant.key, { jsonrpc: '2.0', id: i + 1, ...call });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { error?: { code: number; message: string; data?: unknown } };
        expect(body.error, call.method).toEqual({ code: -32603, message: expect.any(String) });
        expect(body.error!.message).toMatch(/Internal error$/);
        expect(body.error!.message).not.toMatch(/propert|table|exist/i);
      }
    } finally {
      await admin.query('ALTER TABLE properties_away RENAME TO properties');
      await admin.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const failures = logged
      .map(
        (l) => JSON.parse(l) as { msg: string; method?: string; tenant?: string; err?: { message: string } },
      )
      .filter((l) => l.msg === 'MCP request failed');
    expect(failures.map((l) => [l.method, l.tenant])).toEqual([
      ['resources/read', tenant.slug],
      ['resources/list', tenant.slug],
      ['prompts/get', tenant.slug],
    ]);
    for (const f of failures) expect(f.err?.message).toMatch(/properties/);
  });
});
