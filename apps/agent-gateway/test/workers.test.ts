import { BindingResponse, BindResponse, Worker, WorkersResponse } from '@pa/contracts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway, type TestTenant } from './support/platform.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

let platform: PlatformForGateway;
let g: TestGateway;
let demo: TestTenant;
beforeAll(async () => {
  platform = await startPlatformForGateway();
  g = await startTestGateway({
    redis: 'none',
    env: { AI_WORKERS_ENABLED: 'true', PLATFORM_BRIDGE_ENABLED: 'true', PLATFORM_BASE_URL: platform.baseUrl },
  });
  demo = await platform.createTenant({ name: 'Binding Lettings' });
});
afterAll(async () => {
  await g?.close();
  await platform?.close();
});

async function workspace(): Promise<string> {
  return (await g.db.workspace.create({ data: { name: `ws-${Date.now()}` } })).id;
}

function api(base: string, workspaceId: string | undefined, method: string, path: string, body?: unknown) {
  return fetch(`${base}/api/assistant${path}`, {
    method,
    headers: {
      ...(workspaceId ? { 'X-Workspace-Id': workspaceId } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function propertyManager(ws: string): Promise<Worker> {
  const res = await api(g.baseUrl, ws, 'POST', '/workers', {
    name: 'Property Manager',
    template: 'property-manager',
  });
  expect(res.status).toBe(201);
  return expectContract(Worker, await res.json());
}

describe('workers', () => {
  it('creates a worker from the property-manager template with the property-uk pack; lists, gets and deletes it', async () => {
    const ws = await workspace();
    const worker = await propertyManager(ws);
    expect(worker).toMatchObject({
      workspaceId: ws,
      name: 'Property Manager',
      template: 'property-manager',
      skillPacks: ['property-uk'],
      bound: false,
    });
    const list = expectContract(WorkersResponse, await (await api(g.baseUrl, ws, 'GET', '/workers')).json());
    expect(list.workers.map((w) => w.id)).toEqual([worker.id]);
    expect(
      expectContract(Worker, await (await api(g.baseUrl, ws, 'GET', `/workers/${worker.id}`)).json()).id,
    ).toBe(worker.id);
    expect((await api(g.baseUrl, ws, 'DELETE', `/workers/${worker.id}`)).status).toBe(204);
    await expectProblem(await api(g.baseUrl, ws, 'GET', `/workers/${worker.id}`), 404, 'worker-not-found');
  });

  it('never shows another workspace’s worker', async () => {
    const a = await workspace();
    const b = await workspace();
    const worker = await propertyManager(a);
    await expectProblem(await api(g.baseUrl, b, 'GET', `/workers/${worker.id}`), 404, 'worker-not-found');
    await expectProblem(await api(g.baseUrl, b, 'DELETE', `/workers/${worker.id}`), 404, 'worker-not-found');
    await expectProblem(
      await api(g.baseUrl, b, 'POST', `/workers/${worker.id}/platform/bind`, {
        tenantSlug: demo.slug,
        apiKey: demo.key,
      }),
      404,
      'worker-not-found',
    );
    expect(
      expectContract(WorkersResponse, await (await api(g.baseUrl, b, 'GET', '/workers')).json()).workers,
    ).toEqual([]);
  });

  it.each([
    ['missing', undefined],
    ['not a UUID', 'not-a-uuid'],
  ])('answers 400 when X-Workspace-Id is %s, and 404 for an unknown workspace', async (_n, header) => {
    const p = await expectProblem(await api(g.baseUrl, header, 'GET', '/workers'), 400, 'validation-failed');
    expect(p.errors?.[0]?.pointer).toBe('#/x-workspace-id');
    await expectProblem(
      await api(g.baseUrl, '00000000-0000-4000-8000-000000000000', 'GET', '/workers'),
      404,
      'workspace-not-found',
    );
  });

  it('validates the worker body', async () => {
    const ws = await workspace();
    await expectProblem(await api(g.baseUrl, ws, 'POST', '/workers', { name: '' }), 400, 'validation-failed');
    await expectProblem(
      await api(g.baseUrl, ws, 'POST', '/workers', { name: 'x', template: 'nope' }),
      400,
      'validation-failed',
    );
    await expectProblem(
      await api(g.baseUrl, ws, 'POST', '/workers', { name: 'x', skillPacks: ['nope'] }),
      400,
      'validation-failed',
    );
    await expectProblem(await api(g.baseUrl, ws, 'GET', '/workers/not-a-uuid'), 400, 'validation-failed');
  });

  it('answers 404 workers-disabled when AI_WORKERS_ENABLED is off', async () => {
    const off = await startTestGateway({ redis: 'none', databaseUrl: g.databaseUrl });
    try {
      await expectProblem(
        await api(off.baseUrl, await workspace(), 'GET', '/workers'),
        404,
        'workers-disabled',
      );
    } finally {
      await off.close();
    }
  });
});

describe('POST /api/assistant/workers/{id}/platform/bind', () => {
  async function stored(workerId: string) {
    return g.db.platformBinding.findUnique({ where: { workerId } });
  }
  const bind = (ws: string, workerId: string, body: unknown, base = g.baseUrl) =>
    api(base, ws, 'POST', `/workers/${workerId}/platform/bind`, body);

  it('smoke-tests the key against the real bridge, then saves the binding with the key encrypted', async () => {
    const ws = await workspace();
    const worker = await propertyManager(ws);
    await platform.db.property.create({
      data: {
        tenantId: demo.id,
        ref: 'BND-001',
        line1: '1 Bind Street',
        town: 'Leeds',
        postcode: 'LS1 1AA',
        propertyType: 'flat',
        bedrooms: 1,
        bathrooms: 1,
        tenure: 'leasehold',
        furnishing: 'furnished',
        localAuthority: 'Leeds City Council',
        lettingStatus: 'void',
        managementType: 'managed',
      },
    });
    const res = await bind(ws, worker.id, { tenantSlug: demo.slug, apiKey: demo.key });
    expect(res.status).toBe(200);
    const body = expectContract(BindResponse, await res.json());
    expect(body).toMatchObject({
      workerId: worker.id,
      tenantSlug: demo.slug,
      keyPreview: `${demo.key.slice(0, 13)}…`,
      smokeTest: { ok: true, propertiesTotal: 1 },
    });
    const row = await stored(worker.id);
    expect(Buffer.from(row!.keyCiphertext).toString('latin1')).not.toContain(demo.key.slice(5, 20));
    const shown = expectContract(
      BindingResponse,
      await (await api(g.baseUrl, ws, 'GET', `/workers/${worker.id}/platform`)).json(),
    );
    expect(JSON.stringify(shown)).not.toContain(demo.key);
    expect(shown).toMatchObject({ tenantSlug: demo.slug, propertiesTotal: 1 });
    expect(
      expectContract(Worker, await (await api(g.baseUrl, ws, 'GET', `/workers/${worker.id}`)).json()).bound,
    ).toBe(true);
  });

  describe('failures save nothing and leave an existing binding untouched', () => {
    let ws: string;
    let workerId: string;
    let before: Awaited<ReturnType<typeof stored>>;
    beforeAll(async () => {
      ws = await workspace();
      workerId = (await propertyManager(ws)).id;
      expect((await bind(ws, workerId, { tenantSlug: demo.slug, apiKey: demo.key })).status).toBe(200);
      before = await stored(workerId);
    });
    const unchanged = async () => expect(await stored(workerId)).toEqual(before);

    it('a key of another tenant → 422 tenant-mismatch', async () => {
      const other = await platform.createTenant();
      await expectProblem(
        await bind(ws, workerId, { tenantSlug: demo.slug, apiKey: other.key }),
        422,
        'tenant-mismatch',
      );
      await unchanged();
    });

    it('a revoked key → 422 platform-key-rejected', async () => {
      const t = await platform.createTenant();
      await platform.admin.revokeKey(t.keyId);
      await expectProblem(
        await bind(ws, workerId, { tenantSlug: t.slug, apiKey: t.key }),
        422,
        'platform-key-rejected',
      );
      await unchanged();
    });

    it('the tenant’s bridge flag off → 422 platform-bridge-not-enabled', async () => {
      const t = await platform.createTenant({ bridge: false });
      await expectProblem(
        await bind(ws, workerId, { tenantSlug: t.slug, apiKey: t.key }),
        422,
        'platform-bridge-not-enabled',
      );
      await unchanged();
    });

    it('the bridge down → 502 platform-unreachable', async () => {
      const down = await startTestGateway({
        redis: 'none',
        databaseUrl: g.databaseUrl,
        env: {
          AI_WORKERS_ENABLED: 'true',
          PLATFORM_BRIDGE_ENABLED: 'true',
          PLATFORM_BASE_URL: 'http://127.0.0.1:1',
        },
      });
      try {
        await expectProblem(
          await bind(ws, workerId, { tenantSlug: demo.slug, apiKey: demo.key }, down.baseUrl),
          502,
          'platform-unreachable',
        );
        await unchanged();
      } finally {
        await down.close();
      }
    });

    it('a bridge answering a response that breaks the contract → 502 platform-unreachable', async () => {
      const liar: Server = createServer((_req, res) => {
        res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ tenant: { slug: demo.slug }, properties: 'many' }));
      });
      await new Promise<void>((r) => liar.listen(0, '127.0.0.1', () => r()));
      const bad = await startTestGateway({
        redis: 'none',
        databaseUrl: g.databaseUrl,
        env: {
          AI_WORKERS_ENABLED: 'true',
          PLATFORM_BRIDGE_ENABLED: 'true',
          PLATFORM_BASE_URL: `http://127.0.0.1:${(liar.address() as AddressInfo).port}`,
        },
      });
      try {
        await expectProblem(
          await bind(ws, workerId, { tenantSlug: demo.slug, apiKey: demo.key }, bad.baseUrl),
          502,
          'platform-unreachable',
        );
        await unchanged();
      } finally {
        await bad.close();
        await new Promise<void>((r) => liar.close(() => r()));
      }
    });

    it('a worker without the property-uk pack → 422 skill-pack-required', async () => {
      const plain = await (await api(g.baseUrl, ws, 'POST', '/workers', { name: 'Plain' })).json();
      await expectProblem(
        await bind(ws, plain.id, { tenantSlug: demo.slug, apiKey: demo.key }),
        422,
        'skill-pack-required',
      );
      expect(await stored(plain.id)).toBeNull();
    });

    it('a bad body → 400', async () => {
      await expectProblem(
        await bind(ws, workerId, { tenantSlug: 'Bad Slug', apiKey: demo.key }),
        400,
        'validation-failed',
      );
      await expectProblem(await bind(ws, workerId, { tenantSlug: demo.slug }), 400, 'validation-failed');
      await unchanged();
    });
  });

  it('a bound worker answers chat from the bridge through its tools; an unknown workerId is 404', async () => {
    const ws = await workspace();
    const worker = await propertyManager(ws);
    expect((await bind(ws, worker.id, { tenantSlug: demo.slug, apiKey: demo.key })).status).toBe(200);
    // the worker is not the default one, so the chat names its workspace
    const res = await fetch(`${g.baseUrl}/api/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Workspace-Id': ws },
      body: JSON.stringify({ message: 'give me a portfolio overview', workerId: worker.id }),
    });
    const body = (await res.json()) as { reply: string; sessionId: string };
    expect(res.status).toBe(200);
    expect(body.reply).toContain('Binding Lettings');
    const session = await g.db.chatSession.findUniqueOrThrow({
      where: { channel_owner_externalId: { channel: 'web', owner: '', externalId: body.sessionId } },
      include: { turns: true },
    });
    const calls = session.turns.find((t) => t.role === 'assistant')!.toolCalls as Array<{
      name: string;
      ok: boolean;
    }>;
    expect(calls.map((c) => [c.name, c.ok])).toContainEqual(['platform-get-portfolio', true]);
    await expectProblem(
      await fetch(`${g.baseUrl}/api/chat`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: 'hi', workerId: '00000000-0000-4000-8000-000000000000' }),
      }),
      404,
      'worker-not-found',
    );
  });

  it('a chat never reaches another workspace’s worker: 404 as for an unknown one', async () => {
    // a worker made first, elsewhere: whatever ran before, the oldest worker (the default) is not in `a`
    await propertyManager(await workspace());
    const a = await workspace();
    const b = await workspace();
    const worker = await propertyManager(a);
    const chat = (headers: Record<string, string>) =>
      fetch(`${g.baseUrl}/api/chat`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ message: 'hi', workerId: worker.id }),
      });
    // named in workspace b: unknown there
    await expectProblem(await chat({ 'X-Workspace-Id': b }), 404, 'worker-not-found');
    // no workspace named: the web chat's workspace is the default (oldest) worker's
    const fallback = await g.db.worker.findFirstOrThrow({ orderBy: { createdAt: 'asc' } });
    expect(fallback.workspaceId).not.toBe(a);
    await expectProblem(await chat({}), 404, 'worker-not-found');
    const stream = await fetch(
      `${g.baseUrl}/api/chat/stream?${new URLSearchParams({ message: 'hi', workerId: worker.id })}`,
      { headers: { 'X-Workspace-Id': b } },
    );
    await expectProblem(stream, 404, 'worker-not-found');
    // its own workspace reaches it; the named workspace must exist and be a UUID
    expect((await chat({ 'X-Workspace-Id': a })).status).toBe(200);
    // naming only the workspace: its first worker answers (here bound to a tenant of its own), not the default
    const own = await platform.createTenant({ name: 'Workspace A Lettings' });
    expect((await bind(a, worker.id, { tenantSlug: own.slug, apiKey: own.key })).status).toBe(200);
    const overview = await fetch(`${g.baseUrl}/api/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Workspace-Id': a },
      body: JSON.stringify({ message: 'give me a portfolio overview' }),
    });
    expect(((await overview.json()) as { reply: string }).reply).toContain('Workspace A Lettings');
    await expectProblem(
      await chat({ 'X-Workspace-Id': '00000000-0000-4000-8000-000000000000' }),
      404,
      'workspace-not-found',
    );
    const bad = await expectProblem(await chat({ 'X-Workspace-Id': 'nope' }), 400, 'validation-failed');
    expect(bad.errors?.[0]?.pointer).toBe('#/x-workspace-id');
  });

  it('unbinds, and answers 404 worker-not-bound afterwards', async () => {
    const ws = await workspace();
    const worker = await propertyManager(ws);
    expect((await bind(ws, worker.id, { tenantSlug: demo.slug, apiKey: demo.key })).status).toBe(200);
    expect(await (await api(g.baseUrl, ws, 'DELETE', `/workers/${worker.id}/platform/bind`)).json()).toEqual({
      workerId: worker.id,
      unbound: true,
    });
    await expectProblem(
      await api(g.baseUrl, ws, 'GET', `/workers/${worker.id}/platform`),
      404,
      'worker-not-bound',
    );
    expect(await stored(worker.id)).toBeNull();
  });

  it('answers 404 platform-bridge-disabled when PLATFORM_BRIDGE_ENABLED is off', async () => {
    const off = await startTestGateway({
      redis: 'none',
      databaseUrl: g.databaseUrl,
      env: { AI_WORKERS_ENABLED: 'true' },
    });
    try {
      const ws = await workspace();
      const worker = await propertyManager(ws);
      await expectProblem(
        await bind(ws, worker.id, { tenantSlug: demo.slug, apiKey: demo.key }, off.baseUrl),
        404,
        'platform-bridge-disabled',
      );
    } finally {
      await off.close();
    }
  });
});
