import { EmbedChatResponse, Worker } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, TOKEN_ENV } from './support/access.ts';
import { anonymousVisitor, createEmbedKey, embedCall, visitorToken } from './support/embed.ts';
import { type FakeOpenAI, startFakeOpenAI } from './support/fake-openai.ts';
import { expectContract, postJson } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// What an embedded chat's model is given (docs/embedding.md): a read-only embed key's worker has its platform read
// tools and no proposal tool at all; a key that allows proposals has them, as long as PLATFORM_BRIDGE_WRITES is
// on. The model is a loopback OpenAI-compatible fake; the worker is bound to the REAL bridge. The gateway asks for
// device tokens (GATEWAY_AUTH=token): the embed needs none, its key and visitor stand in for them.

const HOST = 'https://host.example';
type BoundWorker = { workspaceId: string; workerId: string };
const PROPOSE = [
  'platform-propose-deal',
  'platform-propose-compliance-update',
  'platform-propose-financial-log',
];

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let fake: FakeOpenAI;

beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo({ scopes: ['bridge:read', 'bridge:propose'] });
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake?.close();
  await platform?.close();
});

async function gatewayWith(writes: boolean): Promise<TestGateway> {
  return startTestGateway({
    redis: 'none',
    env: {
      ...TOKEN_ENV,
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      PLATFORM_BRIDGE_WRITES: String(writes),
      PLATFORM_BASE_URL: platform.baseUrl,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: 'sk-test',
      PROVIDER: 'openai',
      CHAT_RATE_LIMIT_PER_MIN: '10000',
    },
  });
}

/**
 * The tool names the model was offered for one embed turn, as a visitor the host signed in (a key that may propose
 * takes no other).
 */
async function toolsOffered(
  g: TestGateway,
  key: { embedKey: string; visitorSecret: string },
): Promise<string[]> {
  fake.reset();
  fake.script({ chunks: ['Here you are.'] });
  const res = await embedCall(g.baseUrl, 'chat', {
    key: key.embedKey,
    origin: HOST,
    visitor: { token: await visitorToken(key.visitorSecret, { sub: 'staff-1' }) },
    body: { message: 'What needs attention at MAN-004?' },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(expectContract(EmbedChatResponse, await res.json()).reply).toBe('Here you are.');
  expect(fake.requests).toHaveLength(1);
  return (fake.requests[0]!.body.tools ?? []).map((t) => t.function.name);
}

/** A workspace's worker bound to the demo tenant, through the API with the operator's token. */
async function boundWorker(g: TestGateway): Promise<BoundWorker> {
  const workspaceId = (await g.db.workspace.create({ data: { name: `embed-tools-${Date.now()}` } })).id;
  const headers = { 'X-Workspace-Id': workspaceId, ...adminHeaders };
  const created = await postJson(
    g.baseUrl,
    '/api/assistant/workers',
    { name: 'Property Manager', template: 'property-manager' },
    headers,
  );
  expect(created.status).toBe(201);
  const workerId = expectContract(Worker, await created.json()).id;
  const bound = await postJson(
    g.baseUrl,
    `/api/assistant/workers/${workerId}/platform/bind`,
    { tenantSlug: demo.tenant.slug, apiKey: demo.key },
    headers,
  );
  expect(bound.status, await bound.clone().text()).toBe(200);
  return { workspaceId, workerId };
}

describe('the embedded worker’s tools', () => {
  let g: TestGateway;
  let worker: BoundWorker;
  beforeAll(async () => {
    g = await gatewayWith(true);
    worker = await boundWorker(g);
  });
  afterAll(async () => g?.close());

  it('a read-only key (the default): the read tools, no proposal tool', async () => {
    const key = await createEmbedKey(g.baseUrl, worker, { origins: [HOST] }, adminHeaders);
    expect(key.key.allowProposals).toBe(false);
    const tools = await toolsOffered(g, key);
    expect(tools).toContain('platform-get-portfolio');
    expect(tools).toContain('platform-get-compliance');
    for (const name of PROPOSE) expect(tools).not.toContain(name);
  });

  it('a key that allows proposals: the proposal tools too', async () => {
    const key = await createEmbedKey(
      g.baseUrl,
      worker,
      { origins: [HOST], allowProposals: true },
      adminHeaders,
    );
    const tools = await toolsOffered(g, key);
    expect(tools).toContain('platform-get-portfolio');
    for (const name of PROPOSE) expect(tools).toContain(name);
    // the web chat of the same worker is unchanged: it proposes as before
    fake.reset();
    fake.script({ chunks: ['ok'] });
    const res = await postJson(
      g.baseUrl,
      '/api/chat',
      { message: 'hello', workerId: worker.workerId },
      { 'X-Workspace-Id': worker.workspaceId, ...adminHeaders },
    );
    expect(res.status).toBe(200);
    const webTools = (fake.requests[0]!.body.tools ?? []).map((t) => t.function.name);
    for (const name of PROPOSE) expect(webTools).toContain(name);
  });

  it('needs no device token although the gateway asks for them elsewhere', async () => {
    const key = await createEmbedKey(g.baseUrl, worker, { origins: [HOST] }, adminHeaders);
    const res = await embedCall(g.baseUrl, 'session', {
      key: key.embedKey,
      origin: HOST,
      visitor: { anonymous: anonymousVisitor() },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const chat = await postJson(g.baseUrl, '/api/chat', { message: 'hello' });
    expect(chat.status).toBe(401);
  });
});

describe('with PLATFORM_BRIDGE_WRITES off', () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await gatewayWith(false);
  });
  afterAll(async () => g?.close());

  it('a key that allows proposals has none either: the gateway’s switch comes first', async () => {
    const worker = await boundWorker(g);
    const key = await createEmbedKey(
      g.baseUrl,
      worker,
      { origins: [HOST], allowProposals: true },
      adminHeaders,
    );
    const tools = await toolsOffered(g, key);
    expect(tools).toContain('platform-get-portfolio');
    for (const name of PROPOSE) expect(tools).not.toContain(name);
  });
});
