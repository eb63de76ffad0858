import { randomBytes } from 'node:crypto';
import {
  EmbedChatResponse,
  EmbedSessionResponse,
  EmbedSessionsResponse,
  gatewayRoutes,
  PortfolioResponse,
  Worker,
} from '@pa/contracts';
import { UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWarnings, loadConfig } from '../src/config.ts';
import { utcDay } from '../src/features/embed/embed-budgets.ts';
import { type BoundWorker, bindWorker } from './support/bound-worker.ts';
import {
  anonymousVisitor,
  createEmbedKey,
  embedCall,
  type EmbedVisitor,
  streamedText,
  type TestEmbedKey,
  visitorToken,
} from './support/embed.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// The embedded chat's API (docs/embedding.md) against the REAL bridge, with the local engine answering: who may
// call (key, origin, visitor and its token), whose conversations a visitor sees, the budgets, CORS, and the
// /embed page's frame-ancestors. The tool sets of read-only and proposing keys: embed-tools.test.ts.

const HOST = 'https://host.example';
const OTHER_HOST = 'https://elsewhere.example';
// an origin no key names, in this file or any other sharing the database
const NO_KEYS_ORIGIN = `https://nobody-${randomBytes(4).toString('hex')}.example`;
// the gateway's public address (a TLS proxy in front of it that TRUST_PROXY does not trust: it sees http://)
const PUBLIC_BASE_URL = 'https://chat.gateway.example';
// another gateway on the same database reads the keys' visitor secrets with the same key
const SECRET_KEY = randomBytes(32);

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let g: TestGateway;
let worker: BoundWorker;
let key: TestEmbedKey;

beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo({ scopes: ['bridge:read', 'bridge:propose'] });
  g = await startTestGateway({
    redis: 'required',
    secretKey: SECRET_KEY,
    env: {
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      PLATFORM_BASE_URL: platform.baseUrl,
      PUBLIC_BASE_URL,
      CHAT_RATE_LIMIT_PER_MIN: '10000',
      // the per-IP gate of every /api/embed call has a test of its own, on a gateway of its own
      EMBED_RATE_LIMIT_PER_MIN: '100000',
    },
  });
  worker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
  key = await createEmbedKey(g.baseUrl, worker, {
    label: 'Property pages',
    origins: [HOST, 'http://127.0.0.2:8080'],
    budgets: { visitorPerMinute: 100, ipPerMinute: 1000 },
  });
});
afterAll(async () => {
  await g?.close();
  await platform?.close();
});

/** A worker of its own workspace (not bound): budgets counted from zero. */
async function freshWorker() {
  const workspaceId = (await g.db.workspace.create({ data: { name: `embed-${Date.now()}` } })).id;
  const res = await postJson(
    g.baseUrl,
    '/api/assistant/workers',
    { name: 'Front desk' },
    {
      'X-Workspace-Id': workspaceId,
    },
  );
  expect(res.status).toBe(201);
  return { workspaceId, workerId: expectContract(Worker, await res.json()).id };
}

const ask = (k: { embedKey: string }, message: string, extra: Record<string, unknown> = {}) =>
  embedCall(g.baseUrl, 'chat', {
    key: k.embedKey,
    origin: HOST,
    visitor: { anonymous: anonymousVisitor() },
    body: { message },
    ...extra,
  });

describe('the embed check: key, origin and visitor', () => {
  it('refuses a call without Origin or from an origin the key does not name; takes its origins and the gateway’s own (PUBLIC_BASE_URL’s too)', async () => {
    const visitor = { anonymous: anonymousVisitor() };
    const call = (origin: string | null) =>
      embedCall(g.baseUrl, 'session', { key: key.embedKey, origin, visitor });
    const none = await expectProblem(await call(null), 403, 'embed-origin-not-allowed');
    expect(none.detail).toMatch(/Origin header is required/);
    const foreign = await expectProblem(await call(OTHER_HOST), 403, 'embed-origin-not-allowed');
    expect(foreign.detail).toBe(`This embed key is not enabled for ${OTHER_HOST}.`);
    // an origin that only looks like an allowed one
    await expectProblem(await call('https://host.example.evil.example'), 403, 'embed-origin-not-allowed');
    await expectProblem(await call('http://host.example'), 403, 'embed-origin-not-allowed');
    // PUBLIC_BASE_URL's scheme only: the iframe is on https://, not on http:// of the same host
    await expectProblem(await call('http://chat.gateway.example'), 403, 'embed-origin-not-allowed');
    // the embed's own iframe behind a TLS proxy: the browser says https://, the gateway sees http:// (no
    // TRUST_PROXY), and PUBLIC_BASE_URL's origin is the gateway's own
    for (const origin of [HOST, 'http://127.0.0.2:8080', g.baseUrl, PUBLIC_BASE_URL]) {
      const res = await call(origin);
      expect(res.status, origin).toBe(200);
      expectContract(EmbedSessionResponse, await res.json());
    }
  });

  it('refuses unknown, mistyped and revoked keys with 401 embed-key-invalid', async () => {
    const own = await createEmbedKey(g.baseUrl, worker, { origins: [HOST] });
    const visitor = { anonymous: anonymousVisitor() };
    const call = (k: string) => embedCall(g.baseUrl, 'session', { key: k, origin: HOST, visitor });
    expect((await call(own.embedKey)).status).toBe(200);
    const mistyped = own.embedKey.slice(0, -1) + (own.embedKey.endsWith('A') ? 'B' : 'A');
    const unknown = `gwe_${'A'.repeat(32)}${own.embedKey.slice(-6)}`;
    for (const bad of [mistyped, unknown, 'gwe_short', 'gwt_' + own.embedKey.slice(4), '']) {
      const p = await expectProblem(await call(bad), 401, 'embed-key-invalid');
      expect(JSON.stringify(p)).not.toContain(own.embedKey);
    }
    const revoked = await fetch(
      `${g.baseUrl}/api/assistant/workers/${worker.workerId}/embed-keys/${own.key.id}`,
      { method: 'DELETE', headers: { 'X-Workspace-Id': worker.workspaceId } },
    );
    expect(revoked.status).toBe(200);
    await expectProblem(await call(own.embedKey), 401, 'embed-key-invalid');
  });

  it('warns at start when PUBLIC_BASE_URL is https:// and TRUST_PROXY is off', () => {
    const warning = /PUBLIC_BASE_URL is https:\/\/ but TRUST_PROXY is 0/;
    expect(configWarnings(loadConfig({ PUBLIC_BASE_URL }))).toContainEqual(expect.stringMatching(warning));
    for (const env of [
      { PUBLIC_BASE_URL, TRUST_PROXY: '1' },
      { PUBLIC_BASE_URL: 'http://127.0.0.1:3000' },
      {},
    ]) {
      expect(configWarnings(loadConfig(env)), JSON.stringify(env)).not.toContainEqual(
        expect.stringMatching(warning),
      );
    }
  });

  it('asks for a visitor and refuses a malformed anonymous id', async () => {
    await expectProblem(
      await embedCall(g.baseUrl, 'session', { key: key.embedKey, origin: HOST }),
      401,
      'embed-visitor-required',
    );
    for (const bad of ['short', 'x'.repeat(65), 'not base64url!!!!!!!!!!!!']) {
      await expectProblem(
        await embedCall(g.baseUrl, 'session', {
          key: key.embedKey,
          origin: HOST,
          visitor: { anonymous: bad },
        }),
        400,
        'embed-visitor-invalid',
      );
    }
  });

  it('refuses expired, foreign, alg:none, too-long-lived, malformed and sub-less visitor tokens, saying why', async () => {
    const other = await createEmbedKey(g.baseUrl, worker, { origins: [HOST] });
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string, RegExp]> = [
      [
        'expired',
        await visitorToken(key.visitorSecret, { sub: 'alice', expiresInS: -120, iatOffsetS: -600 }),
        /it has expired/,
      ],
      [
        'signed with another key’s secret',
        await visitorToken(other.visitorSecret, { sub: 'alice' }),
        /signature does not match/,
      ],
      [
        'alg none',
        new UnsecuredJWT({ sub: 'alice' })
          .setIssuedAt(now)
          .setExpirationTime(now + 600)
          .encode(),
        /must be signed with HS256/,
      ],
      [
        'living longer than an hour (exp − iat)',
        await visitorToken(key.visitorSecret, { sub: 'alice', expiresInS: 3600 + 60, iatOffsetS: -100 }),
        /lives longer than 60 minutes/,
      ],
      [
        'an exp two hours away, no iat',
        await visitorToken(key.visitorSecret, { sub: 'alice', expiresInS: 7200, noIat: true }),
        /lives longer than 60 minutes/,
      ],
      [
        'issued in the future, beyond the clock tolerance',
        await visitorToken(key.visitorSecret, { sub: 'alice', iatOffsetS: 120 }),
        /issued in the future \(iat\)/,
      ],
      ['no sub', await visitorToken(key.visitorSecret, {}), /sub claim is missing/],
      [
        'a sub too long',
        await visitorToken(key.visitorSecret, { sub: 'x'.repeat(129) }),
        /sub must be 1–128 characters/,
      ],
      ['not a JWT', 'abc.def', /not a well-formed JWT/],
      ['three garbage parts', 'a.b.c', /not a well-formed JWT/],
    ];
    for (const [name, token, reason] of cases) {
      const p = await expectProblem(
        await embedCall(g.baseUrl, 'session', { key: key.embedKey, origin: HOST, visitor: { token } }),
        401,
        'embed-visitor-token-invalid',
      );
      expect(p.detail, name).toMatch(reason);
      expect(JSON.stringify(p), name).not.toContain(token);
    }
    // no exp at all
    const noExp = await new (await import('jose')).SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .sign(new TextEncoder().encode(key.visitorSecret));
    const p = await expectProblem(
      await embedCall(g.baseUrl, 'session', { key: key.embedKey, origin: HOST, visitor: { token: noExp } }),
      401,
      'embed-visitor-token-invalid',
    );
    expect(p.detail).toMatch(/exp claim is missing/);
    // and a good one passes, also one whose iat is ahead within the clocks' tolerance
    for (const iatOffsetS of [0, 20]) {
      const ok = await embedCall(g.baseUrl, 'session', {
        key: key.embedKey,
        origin: HOST,
        visitor: {
          token: await visitorToken(key.visitorSecret, { sub: 'alice', name: 'Alice', iatOffsetS }),
        },
      });
      expect(ok.status, `iat ${iatOffsetS} s ahead`).toBe(200);
    }
  });
});

describe('a key for signed-in visitors only (requireVisitorToken)', () => {
  let staff: TestEmbedKey;
  beforeAll(async () => {
    // a key that may propose: it requires a visitor token without being told (requireVisitorToken follows it)
    staff = await createEmbedKey(g.baseUrl, worker, {
      label: 'Intranet',
      origins: [HOST],
      allowProposals: true,
    });
    expect(staff.key).toMatchObject({ allowProposals: true, requireVisitorToken: true });
  });

  it('refuses an anonymous visitor on every route with 401 embed-visitor-token-required, and stores nothing', async () => {
    const visitor = { anonymous: anonymousVisitor() };
    const calls: Array<[string, unknown]> = [
      ['chat', { message: 'Which properties have arrears?' }],
      ['chat/stream', { message: 'Which properties have arrears?' }],
      ['session', {}],
      ['sessions', {}],
    ];
    for (const [path, body] of calls) {
      const p = await expectProblem(
        await embedCall(g.baseUrl, path, { key: staff.embedKey, origin: HOST, visitor, body }),
        401,
        'embed-visitor-token-required',
      );
      expect(p.detail, path).toMatch(/the site must sign its visitors in/);
    }
    // no visitor at all is the same refusal: the anonymous id is not what is missing
    await expectProblem(
      await embedCall(g.baseUrl, 'session', { key: staff.embedKey, origin: HOST }),
      401,
      'embed-visitor-token-required',
    );
    expect(await g.db.chatSession.count({ where: { owner: { startsWith: `embed:${staff.key.id}:` } } })).toBe(
      0,
    );
    // the key and the origin are still checked first
    await expectProblem(
      await embedCall(g.baseUrl, 'session', { key: staff.embedKey, origin: OTHER_HOST, visitor }),
      403,
      'embed-origin-not-allowed',
    );
  });

  it('answers a visitor with a token, and still refuses a bad token as invalid', async () => {
    const token = await visitorToken(staff.visitorSecret, { sub: 'staff-17', name: 'Jo' });
    const res = await embedCall(g.baseUrl, 'chat', {
      key: staff.embedKey,
      origin: HOST,
      visitor: { token },
      body: { message: 'Give me a portfolio overview' },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const { sessionId } = expectContract(EmbedChatResponse, await res.json());
    const row = await g.db.chatSession.findFirstOrThrow({ where: { externalId: sessionId } });
    expect(row.owner).toBe(`embed:${staff.key.id}:sub:staff-17`);

    const foreign = await visitorToken(key.visitorSecret, { sub: 'staff-17' });
    await expectProblem(
      await embedCall(g.baseUrl, 'session', {
        key: staff.embedKey,
        origin: HOST,
        visitor: { token: foreign },
      }),
      401,
      'embed-visitor-token-invalid',
    );
  });

  it('still serves /embed, telling the page that a sign-in is needed', async () => {
    const res = await fetch(`${g.baseUrl}/embed?key=${staff.embedKey}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(
      /frame-ancestors https:\/\/host\.example(;|$)/,
    );
    expect(await res.text()).toContain('data-require-token="true"');
    // an ordinary key's page says the opposite
    expect(await (await fetch(`${g.baseUrl}/embed?key=${key.embedKey}`)).text()).toContain(
      'data-require-token="false"',
    );
  });
});

describe('the visitor’s conversations', () => {
  it('answers from the bridge’s own data as the key’s worker, and gives the conversation back after a reload', async () => {
    const visitor = { anonymous: anonymousVisitor() };
    const res = await embedCall(g.baseUrl, 'chat', {
      key: key.embedKey,
      origin: HOST,
      visitor,
      body: { message: 'Give me a portfolio overview' },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = expectContract(EmbedChatResponse, await res.json());
    const bridge = await fetch(`${platform.baseUrl}/api/assistant-bridge/portfolio?limit=1`, {
      headers: { authorization: `Bearer ${demo.key}` },
    });
    const summary = expectContract(PortfolioResponse, await bridge.json()).summary;
    expect(answer.reply).toContain(`**${summary.open_deals} open deal`);
    expect(answer.reply).toContain(`${summary.properties_total}`);

    // a reload: the latest conversation, then the same by id
    for (const body of [{}, { sessionId: answer.sessionId }]) {
      const again = await embedCall(g.baseUrl, 'session', { key: key.embedKey, origin: HOST, visitor, body });
      const session = expectContract(EmbedSessionResponse, await again.json());
      expect(session.sessionId).toBe(answer.sessionId);
      expect(session.turns.map((t) => [t.role, t.content])).toEqual([
        ['user', 'Give me a portfolio overview'],
        ['assistant', answer.reply],
      ]);
    }
    // stored as a web session of this key's visitor, never of the operator or a device
    const row = await g.db.chatSession.findFirstOrThrow({ where: { externalId: answer.sessionId } });
    expect(row).toMatchObject({ channel: 'web', owner: `embed:${key.key.id}:anon:${visitor.anonymous}` });
  });

  it('streams a turn as server-sent events, the session id on the first chunk', async () => {
    const visitor = { anonymous: anonymousVisitor() };
    const res = await embedCall(g.baseUrl, 'chat/stream', {
      key: key.embedKey,
      origin: HOST,
      visitor,
      body: { message: 'Which properties have arrears?' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const sse = await res.text();
    const first = JSON.parse(/data: (.*)\n/.exec(sse)![1]!) as { session_id: string };
    expect(first.session_id).toMatch(/^s_/);
    expect(streamedText(sse).length).toBeGreaterThan(20);
    expect(sse.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const list = await embedCall(g.baseUrl, 'sessions', { key: key.embedKey, origin: HOST, visitor });
    const { sessions } = expectContract(EmbedSessionsResponse, await list.json());
    expect(sessions.map((s) => s.sessionId)).toEqual([first.session_id]);
    expect(sessions[0]!.title).toBe('Which properties have arrears?');
  });

  it('keeps two visitors apart: another visitor’s session id is 404 and never answered', async () => {
    const alice = { token: await visitorToken(key.visitorSecret, { sub: 'alice-42' }) };
    const bob = { token: await visitorToken(key.visitorSecret, { sub: 'bob-7' }) };
    const anon = { anonymous: anonymousVisitor() };
    const said = await embedCall(g.baseUrl, 'chat', {
      key: key.embedKey,
      origin: HOST,
      visitor: alice,
      body: { message: 'Which tenancies end in the next 60 days?' },
    });
    const { sessionId } = expectContract(EmbedChatResponse, await said.json());
    const turns = () => g.db.turn.count({ where: { session: { externalId: sessionId } } });
    const before = await turns();

    // the same key with another visitor, and another key of the same worker with the same sub
    const sameSubOtherKey = await createEmbedKey(g.baseUrl, worker, { origins: [HOST] });
    const strangers: Array<[string, string, { token: string } | { anonymous: string }]> = [
      ['bob', key.embedKey, bob],
      ['an anonymous visitor', key.embedKey, anon],
      [
        'alice on another key',
        sameSubOtherKey.embedKey,
        { token: await visitorToken(sameSubOtherKey.visitorSecret, { sub: 'alice-42' }) },
      ],
    ];
    for (const [who, k, visitor] of strangers) {
      for (const path of ['chat', 'chat/stream']) {
        await expectProblem(
          await embedCall(g.baseUrl, path, {
            key: k,
            origin: HOST,
            visitor,
            body: { message: 'What did I ask before?', sessionId },
          }),
          404,
          'session-not-found',
        );
      }
      await expectProblem(
        await embedCall(g.baseUrl, 'session', { key: k, origin: HOST, visitor, body: { sessionId } }),
        404,
        'session-not-found',
      );
      const latest = await embedCall(g.baseUrl, 'session', { key: k, origin: HOST, visitor });
      expect(expectContract(EmbedSessionResponse, await latest.json()), who).toEqual({
        sessionId: null,
        turns: [],
      });
      const list = await embedCall(g.baseUrl, 'sessions', { key: k, origin: HOST, visitor });
      expect(expectContract(EmbedSessionsResponse, await list.json()).sessions, who).toEqual([]);
    }
    expect(await turns()).toBe(before);
    // alice, with a new token, still has hers
    const mine = await embedCall(g.baseUrl, 'session', {
      key: key.embedKey,
      origin: HOST,
      visitor: { token: await visitorToken(key.visitorSecret, { sub: 'alice-42' }) },
    });
    expect(expectContract(EmbedSessionResponse, await mine.json()).sessionId).toBe(sessionId);
    // and the operator's web chat does not know it either
    const history = await fetch(`${g.baseUrl}/api/chat/sessions/${sessionId}`);
    expect(history.status).toBe(404);
  });

  it('keeps a token’s visitor apart from an anonymous one, even with sub "anon:<id>" naming that visitor', async () => {
    const anon = anonymousVisitor();
    const said = await embedCall(g.baseUrl, 'chat', {
      key: key.embedKey,
      origin: HOST,
      visitor: { anonymous: anon },
      body: { message: 'Which tenancies end in the next 60 days?' },
    });
    expect(said.status, await said.clone().text()).toBe(200);
    const { sessionId } = expectContract(EmbedChatResponse, await said.json());

    // the host's server signs whatever sub it likes: one that spells the anonymous owner's tail names nobody else
    const impostor = { token: await visitorToken(key.visitorSecret, { sub: `anon:${anon}` }) };
    const call = (path: string, body: unknown) =>
      embedCall(g.baseUrl, path, { key: key.embedKey, origin: HOST, visitor: impostor, body });
    await expectProblem(await call('session', { sessionId }), 404, 'session-not-found');
    await expectProblem(
      await call('chat', { message: 'What did I ask before?', sessionId }),
      404,
      'session-not-found',
    );
    expect(expectContract(EmbedSessionResponse, await (await call('session', {})).json())).toEqual({
      sessionId: null,
      turns: [],
    });
    expect(expectContract(EmbedSessionsResponse, await (await call('sessions', {})).json()).sessions).toEqual(
      [],
    );
    // its own conversation is owned in the token visitors' namespace
    const own = expectContract(
      EmbedChatResponse,
      await (await call('chat', { message: 'Give me a portfolio overview' })).json(),
    );
    const rows = await g.db.chatSession.findMany({
      where: { externalId: { in: [sessionId, own.sessionId] } },
      select: { externalId: true, owner: true },
    });
    expect(Object.fromEntries(rows.map((r) => [r.externalId, r.owner]))).toEqual({
      [sessionId]: `embed:${key.key.id}:anon:${anon}`,
      [own.sessionId]: `embed:${key.key.id}:sub:anon:${anon}`,
    });
    // and the anonymous visitor still has theirs, unchanged
    const latest = await embedCall(g.baseUrl, 'session', {
      key: key.embedKey,
      origin: HOST,
      visitor: { anonymous: anon },
    });
    const theirs = expectContract(EmbedSessionResponse, await latest.json());
    expect(theirs.sessionId).toBe(sessionId);
    expect(theirs.turns).toHaveLength(2);
  });

  it('refuses bad bodies with field errors', async () => {
    const visitor = { anonymous: anonymousVisitor() };
    for (const body of [
      {},
      { message: '' },
      { message: 'hi', sessionId: 'bad id!' },
      { message: 'hi', x: 1 },
    ]) {
      const p = await expectProblem(
        await embedCall(g.baseUrl, 'chat', { key: key.embedKey, origin: HOST, visitor, body }),
        400,
        'validation-failed',
      );
      expect(p.errors?.length).toBeGreaterThan(0);
    }
  });
});

describe('the budgets', () => {
  it('a visitor’s messages per minute: 429 embed-visitor-budget with Retry-After', async () => {
    const k = await createEmbedKey(g.baseUrl, await freshWorker(), {
      origins: [HOST],
      budgets: { visitorPerMinute: 2 },
    });
    const visitor = { anonymous: anonymousVisitor() };
    const call = (v = visitor) =>
      embedCall(g.baseUrl, 'chat', { key: k.embedKey, origin: HOST, visitor: v, body: { message: 'hello' } });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    const refused = await call();
    const p = await expectProblem(refused, 429, 'embed-visitor-budget');
    expect(p.detail).toMatch(/2 messages a minute/);
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // another visitor still may
    expect((await call({ anonymous: anonymousVisitor() })).status).toBe(200);
  });

  it('the IP’s budget comes before the visitor’s: rotating anonymous ids meets it, and makes no visitor counters past it', async () => {
    const k = await createEmbedKey(g.baseUrl, await freshWorker(), {
      origins: [HOST],
      budgets: { ipPerMinute: 1, visitorPerMinute: 1 },
    });
    // one visitor over both budgets: the IP's answers, since it is checked first
    const visitor = { anonymous: anonymousVisitor() };
    const same = () =>
      embedCall(g.baseUrl, 'chat', { key: k.embedKey, origin: HOST, visitor, body: { message: 'hello' } });
    expect((await same()).status).toBe(200);
    await expectProblem(await same(), 429, 'embed-ip-budget');
    // a new id each time: the IP's budget holds, and the refused calls count against no visitor
    for (let i = 0; i < 6; i++) await expectProblem(await ask(k, 'hello'), 429, 'embed-ip-budget');
    const visitorCounters = await g.redis!.keys(
      `${g.config.REDIS_PREFIX}rl:embed:embedVisitor:${k.key.id}:*`,
    );
    expect(visitorCounters).toHaveLength(1);
  });

  it('an IP address’s messages per minute on one key: 429 embed-ip-budget', async () => {
    const k = await createEmbedKey(g.baseUrl, await freshWorker(), {
      origins: [HOST],
      budgets: { ipPerMinute: 2 },
    });
    expect((await ask(k, 'hello')).status).toBe(200);
    expect((await ask(k, 'hello')).status).toBe(200);
    const refused = await ask(k, 'hello');
    await expectProblem(refused, 429, 'embed-ip-budget');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // another key of the same address has its own
    const other = await createEmbedKey(
      g.baseUrl,
      { workspaceId: k.workspaceId, workerId: k.workerId },
      {
        origins: [HOST],
      },
    );
    expect((await ask(other, 'hello')).status).toBe(200);
  });

  it('a workspace’s messages per UTC day, across its keys: 429 embed-workspace-budget until midnight', async () => {
    const w = await freshWorker();
    const a = await createEmbedKey(g.baseUrl, w, { origins: [HOST], budgets: { workspacePerDay: 2 } });
    const b = await createEmbedKey(g.baseUrl, w, { origins: [HOST], budgets: { workspacePerDay: 2 } });
    expect((await ask(a, 'hello')).status).toBe(200);
    expect((await ask(b, 'hello')).status).toBe(200);
    const refused = await ask(a, 'hello');
    await expectProblem(refused, 429, 'embed-workspace-budget');
    const retry = Number(refused.headers.get('retry-after'));
    expect(Math.abs(retry - utcDay(new Date()).secondsLeft)).toBeLessThanOrEqual(5);
    // another workspace is untouched
    const elsewhere = await createEmbedKey(g.baseUrl, await freshWorker(), { origins: [HOST] });
    expect((await ask(elsewhere, 'hello')).status).toBe(200);
  });

  it('one daily count per workspace, held to the smallest daily budget among its live keys, whichever key is called', async () => {
    const w = await freshWorker();
    const small = await createEmbedKey(g.baseUrl, w, { origins: [HOST], budgets: { workspacePerDay: 2 } });
    const large = await createEmbedKey(g.baseUrl, w, { origins: [HOST], budgets: { workspacePerDay: 5 } });
    expect((await ask(large, 'hello')).status).toBe(200);
    expect((await ask(large, 'hello')).status).toBe(200);
    // the workspace's 2 are gone: through either key, however large that key's own number
    const refused = await expectProblem(await ask(small, 'hello'), 429, 'embed-workspace-budget');
    expect(refused.detail).toMatch(/answered its 2 messages for today/);
    await expectProblem(await ask(large, 'hello'), 429, 'embed-workspace-budget');
    // with the small key revoked the larger one is the smallest: the same count (refused calls counted too: 4)
    // goes on to 5
    const revoked = await fetch(
      `${g.baseUrl}/api/assistant/workers/${w.workerId}/embed-keys/${small.key.id}`,
      { method: 'DELETE', headers: { 'X-Workspace-Id': w.workspaceId } },
    );
    expect(revoked.status).toBe(200);
    expect((await ask(large, 'hello')).status).toBe(200);
    const last = await expectProblem(await ask(large, 'hello'), 429, 'embed-workspace-budget');
    expect(last.detail).toMatch(/answered its 5 messages for today/);
  });
});

describe('an edited key (PATCH), on the instance that edited it', () => {
  // origins no other key names: the preflight's answer follows this key alone
  const SECOND = `https://second-${randomBytes(4).toString('hex')}.example`;
  const edit = (k: TestEmbedKey, body: unknown) =>
    fetch(`${g.baseUrl}/api/assistant/workers/${k.workerId}/embed-keys/${k.key.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'X-Workspace-Id': k.workspaceId },
      body: JSON.stringify(body),
    });
  const chatFrom = (
    k: TestEmbedKey,
    origin: string,
    visitor: EmbedVisitor = { anonymous: anonymousVisitor() },
  ) => embedCall(g.baseUrl, 'chat', { key: k.embedKey, origin, visitor, body: { message: 'hello' } });
  const preflight = (origin: string) =>
    fetch(`${g.baseUrl}/api/embed/chat`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });

  it('takes a newly added origin and refuses a removed one right after, with the same key', async () => {
    const k = await createEmbedKey(g.baseUrl, await freshWorker(), { origins: [HOST] });
    // both the key and the live origins are cached now: what the edit must not leave behind
    expect((await chatFrom(k, HOST)).status).toBe(200);
    await expectProblem(await chatFrom(k, SECOND), 403, 'embed-origin-not-allowed');
    expect((await preflight(SECOND)).headers.get('access-control-allow-origin')).toBeNull();

    expect((await edit(k, { origins: [SECOND] })).status).toBe(200);
    const added = await chatFrom(k, SECOND);
    expect(added.status, await added.clone().text()).toBe(200);
    expect(added.headers.get('access-control-allow-origin')).toBe(SECOND);
    expectContract(EmbedChatResponse, await added.json());
    expect((await preflight(SECOND)).headers.get('access-control-allow-origin')).toBe(SECOND);
    const removed = await expectProblem(await chatFrom(k, HOST), 403, 'embed-origin-not-allowed');
    expect(removed.detail).toBe(`This embed key is not enabled for ${HOST}.`);
  });

  it('holds a lowered budget and a new visitor rule at once', async () => {
    const k = await createEmbedKey(g.baseUrl, await freshWorker(), { origins: [HOST] });
    const visitor = { anonymous: anonymousVisitor() };
    expect((await chatFrom(k, HOST, visitor)).status).toBe(200);
    expect((await edit(k, { budgets: { visitorPerMinute: 1 } })).status).toBe(200);
    await expectProblem(await chatFrom(k, HOST, visitor), 429, 'embed-visitor-budget');

    expect((await edit(k, { requireVisitorToken: true })).status).toBe(200);
    await expectProblem(await chatFrom(k, HOST), 401, 'embed-visitor-token-required');
    // the visitor secret did not change: the host's tokens still verify
    const token = await visitorToken(k.visitorSecret, { sub: 'staff-1' });
    expect((await chatFrom(k, HOST, { token })).status).toBe(200);
  });
});

describe('CORS for /api/embed', () => {
  it('answers a preflight for a live key’s origin only, never *, never credentials', async () => {
    const preflight = (origin: string) =>
      fetch(`${g.baseUrl}/api/embed/chat`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-embed-key,x-embed-visitor',
        },
      });
    const ok = await preflight(HOST);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(HOST);
    expect(ok.headers.get('access-control-allow-methods')).toBe('POST');
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/X-Embed-Key/);
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/X-Embed-Visitor-Token/);
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    expect(ok.headers.get('vary')).toMatch(/Origin/);
    const refused = await preflight(OTHER_HOST);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows the actual call’s origin only when its own key names it', async () => {
    const own = await ask(key, 'hello');
    expect(own.headers.get('access-control-allow-origin')).toBe(HOST);
    expect(own.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect(own.headers.get('access-control-allow-credentials')).toBeNull();
    // an origin some other live key names is not this key's
    await createEmbedKey(g.baseUrl, worker, { origins: [OTHER_HOST] });
    const other = await embedCall(g.baseUrl, 'session', {
      key: key.embedKey,
      origin: OTHER_HOST,
      visitor: { anonymous: anonymousVisitor() },
    });
    await expectProblem(other, 403, 'embed-origin-not-allowed');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // the rest of the API keeps CORS_ORIGIN's answer (its default `*` here)
    const chat = await fetch(`${g.baseUrl}/api/providers`, { headers: { origin: OTHER_HOST } });
    expect(chat.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('GET /embed and /embed.js', () => {
  it('serves the chat framed by the key’s origins only, with those origins written into the page', async () => {
    const res = await fetch(
      `${g.baseUrl}/embed?key=${key.embedKey}&accent=%23aa3300&title=Help&conversations=1`,
    );
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/frame-ancestors https:\/\/host\.example http:\/\/127\.0\.0\.2:8080(;|$)/);
    expect(csp).toMatch(/script-src 'self'/);
    expect(res.headers.get('x-frame-options')).toBeNull();
    const html = await res.text();
    expect(html).toContain(
      'data-origins="[&quot;https://host.example&quot;,&quot;http://127.0.0.2:8080&quot;]"',
    );
    expect(html).toContain('data-accent="#aa3300"');
    expect(html).toContain('data-conversations="true"');
    expect(html).toContain('<h1 class="embed-title">Help</h1>');
    expect(html).toContain('It reads the platform only');
  });

  it('escapes what the query says and drops a bad accent', async () => {
    const res = await fetch(
      `${g.baseUrl}/embed?key=${key.embedKey}&accent=red;x&title=${encodeURIComponent('<img src=x onerror=alert(1)>')}`,
    );
    const html = await res.text();
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('data-accent=""');
  });

  it('answers an unknown or revoked key with a 404 no page may frame', async () => {
    const gone = await createEmbedKey(g.baseUrl, worker, { origins: [HOST] });
    expect((await fetch(`${g.baseUrl}/embed?key=${gone.embedKey}`)).status).toBe(200);
    const revoked = await fetch(
      `${g.baseUrl}/api/assistant/workers/${worker.workerId}/embed-keys/${gone.key.id}`,
      { method: 'DELETE', headers: { 'X-Workspace-Id': worker.workspaceId } },
    );
    expect(revoked.status).toBe(200);
    for (const k of ['', 'nope', `gwe_${'A'.repeat(38)}`, gone.embedKey]) {
      const res = await fetch(`${g.baseUrl}/embed?key=${k}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
      expect(await res.text()).toMatch(/unknown or was revoked/);
    }
  });

  it('serves the loader for other origins to run, and leaves the main page’s frame-ancestors as they were', async () => {
    const js = await fetch(`${g.baseUrl}/embed.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(await js.text()).toContain('PorterEmbed');
    const page = await fetch(`${g.baseUrl}/`);
    expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'self'/);
  });
});

describe('the gateway’s own gates before and after the key', () => {
  /** Another gateway on the same database (the same keys, read with the same secret key), with `env`. */
  const beside = (env: Record<string, string>) =>
    startTestGateway({ databaseUrl: g.databaseUrl, secretKey: SECRET_KEY, redis: 'none', env });

  it('every /api/embed call per client IP, preflights and unknown keys included, before any key lookup: 429 rate-limited', async () => {
    const limited = await beside({ AI_WORKERS_ENABLED: 'true', EMBED_RATE_LIMIT_PER_MIN: '4' });
    try {
      const preflight = (origin = NO_KEYS_ORIGIN) =>
        fetch(`${limited.baseUrl}/api/embed/session`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        });
      const visitor = { anonymous: anonymousVisitor() };
      const session = (k: string, origin: string | null = NO_KEYS_ORIGIN) =>
        embedCall(limited.baseUrl, 'session', { key: k, origin, visitor });
      const unknown = `gwe_${'B'.repeat(32)}${key.embedKey.slice(-6)}`;
      expect((await preflight(HOST)).status).toBe(204);
      await expectProblem(await session(unknown, HOST), 401, 'embed-key-invalid');
      await expectProblem(await session(unknown, HOST), 401, 'embed-key-invalid');
      expect((await session(key.embedKey, HOST)).status).toBe(200);
      // the fifth of the minute, whatever it is (from an origin no key names: see the next test for a key's)
      for (const res of [
        await preflight(),
        await session(unknown),
        await session(key.embedKey),
        await session(key.embedKey, null),
      ]) {
        const p = await expectProblem(res, 429, 'rate-limited');
        expect(p.detail).toMatch(/4 embedded-chat requests per minute from one network address/);
        const retry = Number(res.headers.get('retry-after'));
        expect(retry).toBeGreaterThanOrEqual(1);
        expect(retry).toBeLessThanOrEqual(60);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
        expect(res.headers.get('access-control-expose-headers')).toBeNull();
      }
      // the rest of the gateway is not counted against it
      expect((await fetch(`${limited.baseUrl}/api/providers`)).status).toBe(200);
      expect((await fetch(`${limited.baseUrl}/embed?key=${key.embedKey}`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('lets a page on a key’s origin read the per-IP 429: CORS headers on the refusal, and its preflight answered', async () => {
    const limited = await beside({ AI_WORKERS_ENABLED: 'true', EMBED_RATE_LIMIT_PER_MIN: '1' });
    try {
      const visitor = { anonymous: anonymousVisitor() };
      const session = (k: string) => embedCall(limited.baseUrl, 'session', { key: k, origin: HOST, visitor });
      const preflight = (origin: string) =>
        fetch(`${limited.baseUrl}/api/embed/chat`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        });
      expect((await session(key.embedKey)).status).toBe(200);
      // refused before the key is looked up: an unknown key from a key's origin is answered the same
      for (const k of [key.embedKey, `gwe_${'C'.repeat(38)}`]) {
        const refused = await session(k);
        await expectProblem(refused, 429, 'rate-limited');
        expect(refused.headers.get('access-control-allow-origin')).toBe(HOST);
        expect(refused.headers.get('access-control-expose-headers')).toBe('Retry-After, X-Request-Id');
        expect(refused.headers.get('access-control-allow-credentials')).toBeNull();
        expect(refused.headers.get('vary')).toMatch(/Origin/);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(refused.headers.get('x-request-id')).toBeTruthy();
      }
      // a browser fails a preflight that is not 2xx, CORS headers or not: a key's origin gets its preflight (which
      // still counts), so that the call it precedes comes back with a 429 the page can read
      const answered = await preflight(HOST);
      expect(answered.status).toBe(204);
      expect(answered.headers.get('access-control-allow-origin')).toBe(HOST);
      expect(answered.headers.get('access-control-allow-headers')).toMatch(/X-Embed-Key/);
      const unknownOrigin = await preflight(NO_KEYS_ORIGIN);
      await expectProblem(unknownOrigin, 429, 'rate-limited');
      expect(unknownOrigin.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await limited.close();
    }
  });

  it('a key’s turn on a gateway whose workers are off: 404 workers-disabled, as its contract says', async () => {
    const off = await beside({ AI_WORKERS_ENABLED: 'false' });
    try {
      for (const path of ['chat', 'chat/stream']) {
        await expectProblem(
          await embedCall(off.baseUrl, path, {
            key: key.embedKey,
            origin: HOST,
            visitor: { anonymous: anonymousVisitor() },
            body: { message: 'hello' },
          }),
          404,
          'workers-disabled',
        );
      }
      for (const route of [gatewayRoutes.embedChat, gatewayRoutes.embedChatStream]) {
        expect(route.problems[404] as readonly string[], route.path).toContain('workers-disabled');
      }
    } finally {
      await off.close();
    }
  });
});
