import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { MCP_PATHS, Problem, ProtectedResourceMetadata } from '@pa/contracts';
import { listen } from '@pa/http-kit';
import { scaled } from '@pa/http-kit/testing';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { REPO_ROOT } from '../../src/config.ts';
import { createLogger } from '@pa/http-kit';
import { expectContract } from '../support/contract.ts';
import { makeProperty, makeTenant } from '../support/factories.ts';
import { mcpHarness, mcpPost } from '../support/mcp-client.ts';
import { listenTestBridge, startTestBridge, type TestBridge } from '../support/test-app.ts';

// The endpoint at the HTTP level: the bridge's guard (key, flag, revocation) with the MCP challenge, the Origin
// check, the request limits, what a stateless server answers to GET and DELETE, batches and notifications, a
// cancelled call, and the RFC 9728 metadata a standard client discovers the endpoint with.

let t: TestBridge;
let http: { baseUrl: string; close(): Promise<void> };
const mcp = mcpHarness(() => http.baseUrl);
const metadataUrl = () => `${http.baseUrl}${MCP_PATHS.metadata}`;
const initialize = (id: number | string = 1, protocolVersion = '2025-06-18') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

async function expectProblemResponse(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const p = expectContract(Problem, await res.json());
  expect(p.code).toBe(code);
  return p;
}

beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z' });
  http = await listenTestBridge(t);
});
afterAll(async () => {
  await mcp.closeAll();
  await http?.close();
  await t?.close();
});

/** Another app on the same database with other MCP settings, listening; closed by the caller. */
async function otherApp(opts: Parameters<typeof createApp>[0] extends infer D ? Partial<D> : never) {
  const app = createApp({
    db: t.db,
    statements: t.statements,
    transactions: t.transactions,
    logger: createLogger('platform-bridge', 'silent'),
    clock: t.clock,
    rateLimitPerMin: 10_000,
    ...opts,
  });
  const server = await listen(app, 0, '127.0.0.1');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('POST /api/assistant-bridge/mcp: the key', () => {
  it('answers no key with 401 and a Bearer challenge naming the RFC 9728 metadata, without an error code', async () => {
    const res = await mcpPost(http.baseUrl, initialize());
    await expectProblemResponse(res, 401, 'invalid-api-key');
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer realm="assistant-bridge", scope="bridge:read", resource_metadata="${metadataUrl()}"`,
    );
  });

  it('answers a bad key with 401 invalid_token, which the SDK client reports', async () => {
    const res = await mcpPost(http.baseUrl, initialize(), { authorization: 'Bearer plat_nope' });
    await expectProblemResponse(res, 401, 'invalid-api-key');
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="assistant-bridge", error="invalid_token", scope="bridge:read", resource_metadata="/,
    );
    const err = await mcp.connect('plat_nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
  });

  it('stops a key revoked between two calls at once', async () => {
    const tenant = await makeTenant(t);
    const { client } = await mcp.connect(tenant.key);
    expect((await client.callTool({ name: 'list_deals', arguments: {} })).isError).toBeFalsy();
    await t.admin.revokeKey(tenant.keyId);
    const err = await client.callTool({ name: 'list_deals', arguments: {} }).catch((e: unknown) => e);
    expect((err as StreamableHTTPError).code).toBe(401);
  });

  it('answers a tenant without the bridge flag 404 bridge-not-enabled, as the REST reads', async () => {
    const off = await makeTenant(t, { flags: [] });
    await expectProblemResponse(
      await mcpPost(http.baseUrl, initialize(), { authorization: `Bearer ${off.key}` }),
      404,
      'bridge-not-enabled',
    );
  });

  it('counts MCP requests in the key’s budget, shared with the REST reads', async () => {
    const tenant = await makeTenant(t);
    const rest = await fetch(`${http.baseUrl}/api/assistant-bridge/deals`, {
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(rest.headers.get('ratelimit')).toMatch(/r=9999;/);
    const res = await mcpPost(http.baseUrl, initialize(), { authorization: `Bearer ${tenant.key}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toMatch(/r=9998;/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('POST /api/assistant-bridge/mcp: the request', () => {
  let key: string;
  beforeAll(async () => {
    key = (await makeTenant(t)).key;
  });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    mcpPost(http.baseUrl, body, { authorization: `Bearer ${key}`, ...headers });

  it('refuses a browser Origin that is not allowed with 403, before the key is looked at', async () => {
    await expectProblemResponse(
      await post(initialize(), { origin: 'https://evil.example' }),
      403,
      'origin-not-allowed',
    );
    await expectProblemResponse(
      await mcpPost(http.baseUrl, initialize(), { origin: 'https://evil.example' }),
      403,
      'origin-not-allowed',
    );
  });

  it('serves an allowed Origin, with CORS answers and a preflight', async () => {
    const other = await otherApp({ mcpAllowedOrigins: ['http://localhost:6274'] });
    try {
      const ok = await mcpPost(other.baseUrl, initialize(), {
        authorization: `Bearer ${key}`,
        origin: 'http://localhost:6274',
      });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
      const preflight = await fetch(`${other.baseUrl}${MCP_PATHS.endpoint}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:6274',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
      await expectProblemResponse(
        await mcpPost(other.baseUrl, initialize(), {
          authorization: `Bearer ${key}`,
          origin: 'http://localhost:1',
        }),
        403,
        'origin-not-allowed',
      );
    } finally {
      await other.close();
    }
  });

  it('refuses a body over 256 KiB with 413', async () => {
    const big = { ...initialize(), params: { ...initialize().params, padding: 'x'.repeat(300 * 1024) } };
    await expectProblemResponse(await post(big), 413, 'payload-too-large');
  });

  it('refuses what is not JSON-RPC over UTF-8 JSON as problems (400, 415), and a client that cannot take both answers (406)', async () => {
    await expectProblemResponse(await post('{"jsonrpc":'), 400, 'malformed-json');
    await expectProblemResponse(await post({ hello: 'world' }), 400, 'validation-failed');
    await expectProblemResponse(
      await post(initialize(), { 'content-type': 'text/plain' }),
      415,
      'unsupported-media-type',
    );
    await expectProblemResponse(
      await post(initialize(), { 'content-encoding': 'gzip' }),
      415,
      'unsupported-media-type',
    );
    await expectProblemResponse(
      await post(initialize(), { accept: 'application/json' }),
      406,
      'not-acceptable',
    );
  });

  it('answers GET and DELETE with 405: a stateless server has no stream to open and no session to end', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${http.baseUrl}${MCP_PATHS.endpoint}`, {
        method,
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      });
      await expectProblemResponse(res, 405, 'method-not-allowed');
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('is stateless: no session id, the protocol version negotiated as the SDK does, JSON answers', async () => {
    const res = await post(initialize(1, '2025-06-18'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as { result: { protocolVersion: string; serverInfo: { name: string } } };
    expect(body.result.protocolVersion).toBe('2025-06-18');
    expect(body.result.serverInfo.name).toBe('property-platform-bridge');
    const unknown = (await (await post(initialize(1, '1999-01-01'))).json()) as {
      result: { protocolVersion: string };
    };
    expect(unknown.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('answers notifications alone with 202, and a batch with one response per request', async () => {
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const res = await post([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
    ]);
    const answers = (await res.json()) as Array<{ id: string; result: Record<string, unknown> }>;
    expect(answers.map((a) => a.id)).toEqual(['a', 'b']);
    expect(answers[1]!.result.tools).toEqual(expect.any(Array));
  });
});

describe('cancellation', () => {
  /** Holds the properties table until `release`, so that a portfolio read waits on it. */
  async function lockProperties() {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE properties IN ACCESS EXCLUSIVE MODE');
    return {
      /** resolves once a statement waits for the lock */
      async waited() {
        const deadline = Date.now() + scaled(10_000);
        for (;;) {
          const { rows } = await client.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          if (rows[0]!.n > 0) return;
          if (Date.now() > deadline) throw new Error('no statement waited for the lock');
          await new Promise((r) => setTimeout(r, 20));
        }
      },
      async release() {
        await client.query('ROLLBACK');
        await client.end();
      },
    };
  }

  async function auditStatus(tenantId: number): Promise<string> {
    const deadline = Date.now() + scaled(10_000);
    for (;;) {
      const line = await t.db.mcpToolCall.findFirst({ where: { tenantId } });
      if (line) return line.status;
      if (Date.now() > deadline) throw new Error('no audit line');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('stops a call cancelled by notifications/cancelled and answers it with nothing', async () => {
    const tenant = await makeTenant(t);
    await makeProperty(t, tenant.id);
    const auth = { authorization: `Bearer ${tenant.key}` };
    const lock = await lockProperties();
    try {
      const call = mcpPost(
        http.baseUrl,
        { jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'get_portfolio', arguments: {} } },
        auth,
      );
      await lock.waited();
      const cancel = await mcpPost(
        http.baseUrl,
        {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 41, reason: 'user stopped' },
        },
        auth,
      );
      expect(cancel.status).toBe(202);
      // the call's HTTP answer: an SSE stream closed without a message (Streamable HTTP's "no response")
      const answer = await call;
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(await answer.text()).toBe('');
    } finally {
      await lock.release();
    }
    // the read finishes once the lock goes, and is thrown away: its audit line says so
    expect(await auditStatus(tenant.id)).toBe('cancelled');
  });

  it('cancels through the SDK client: the call rejects and nothing arrives for it afterwards', async () => {
    const tenant = await makeTenant(t);
    // the client's own fetch, watched: the lock goes only once the server has taken the cancellation in
    let cancelTaken!: () => void;
    const taken = new Promise<void>((resolve) => (cancelTaken = resolve));
    const watched: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('notifications/cancelled')) cancelTaken();
      return res;
    };
    const { client, errors } = await mcp.connect(tenant.key, { fetch: watched });
    const lock = await lockProperties();
    const aborted = new AbortController();
    try {
      const call = client.callTool({ name: 'get_portfolio', arguments: {} }, undefined, {
        signal: aborted.signal,
      });
      await lock.waited();
      aborted.abort('the person moved on');
      await expect(call).rejects.toThrow();
      await taken;
    } finally {
      await lock.release();
    }
    expect(await auditStatus(tenant.id)).toBe('cancelled');
    // the client was sent no response for the cancelled id (it would report an unknown message id)
    expect(await client.ping()).toEqual({});
    expect(errors).toEqual([]);
  });
});

describe('OAuth protected-resource metadata (RFC 9728)', () => {
  it('is public at the endpoint’s well-known address and at the root one, naming the endpoint and the scopes', async () => {
    for (const path of [MCP_PATHS.metadata, '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${http.baseUrl}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(expectContract(ProtectedResourceMetadata, await res.json())).toEqual({
        resource: `${http.baseUrl}${MCP_PATHS.endpoint}`,
        scopes_supported: ['bridge:read', 'bridge:propose'],
        bearer_methods_supported: ['header'],
        resource_name: 'Property platform (assistant bridge)',
        resource_documentation: `${http.baseUrl}/docs/mcp`,
      });
    }
  });

  it('names PUBLIC_BASE_URL when set, and the proxy’s scheme and host when trusted', async () => {
    const configured = await otherApp({
      publicBaseUrl: 'https://platform.example.com',
      mcpDocumentationUrl: 'https://docs.example.com/mcp',
    });
    const proxied = await otherApp({ trustProxy: 1 });
    try {
      const a = (await (await fetch(`${configured.baseUrl}${MCP_PATHS.metadata}`)).json()) as Record<
        string,
        string
      >;
      expect(a.resource).toBe('https://platform.example.com/api/assistant-bridge/mcp');
      expect(a.resource_documentation).toBe('https://docs.example.com/mcp');
      const challenge = await mcpPost(configured.baseUrl, initialize());
      expect(challenge.headers.get('www-authenticate')).toContain(
        'resource_metadata="https://platform.example.com/.well-known/oauth-protected-resource/api/assistant-bridge/mcp"',
      );
      const b = (await (
        await fetch(`${proxied.baseUrl}${MCP_PATHS.metadata}`, {
          headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bridge.example.org' },
        })
      ).json()) as Record<string, string>;
      expect(b.resource).toBe('https://bridge.example.org/api/assistant-bridge/mcp');
    } finally {
      await configured.close();
      await proxied.close();
    }
  });
});

describe('GET /docs/mcp', () => {
  it('serves the guide the metadata names, as Markdown', async () => {
    const res = await fetch(`${http.baseUrl}/docs/mcp`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await res.text()).toBe(readFileSync(path.join(REPO_ROOT, 'docs', 'mcp.md'), 'utf8'));
  });
});
