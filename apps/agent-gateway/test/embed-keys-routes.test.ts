import { randomBytes } from 'node:crypto';
import {
  EMBED_KEY,
  EMBED_VISITOR_SECRET,
  EmbedKeyCreated,
  EmbedKeysResponse,
  EmbedKeyView,
  Worker,
} from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyCipher } from '../src/features/binding/key-cipher.ts';
import { createEmbedKeysRepository } from '../src/features/embed/embed-keys-repository.ts';
import { createEmbedKeysService } from '../src/features/embed/embed-keys-service.ts';
import { adminHeaders, newWorkspace, pairDevice, type PairedDevice, TOKEN_ENV } from './support/access.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// The embed keys' admin routes (docs/embedding.md) with GATEWAY_AUTH=token on the real database: made with the key,
// the visitor secret and the snippet shown once, listed without them, revoked; scoped to the admin scope and to the
// caller's workspace; every bad origin and budget refused with a problem that names the field.

const secretKey = randomBytes(32);
let g: TestGateway;
// the same service as the gateway's, over the same database and key: what the embed runtime would see
let runtime: ReturnType<typeof createEmbedKeysService>;

beforeAll(async () => {
  g = await startTestGateway({
    secretKey,
    redis: 'none',
    env: { ...TOKEN_ENV, AI_WORKERS_ENABLED: 'true' },
  });
  runtime = createEmbedKeysService({
    embedKeys: createEmbedKeysRepository(g.db),
    cipher: createKeyCipher(secretKey),
    onTouchError: () => {},
  });
});
afterAll(async () => {
  await g?.close();
});

async function newWorker(workspaceId: string, name = 'Website assistant'): Promise<string> {
  const res = await postJson(
    g.baseUrl,
    '/api/assistant/workers',
    { name },
    {
      ...adminHeaders,
      'X-Workspace-Id': workspaceId,
    },
  );
  expect(res.status, await res.clone().text()).toBe(201);
  return expectContract(Worker, await res.json()).id;
}

const keysPath = (workerId: string) => `/api/assistant/workers/${workerId}/embed-keys`;

function as(workspaceId: string, auth: Record<string, string> = adminHeaders) {
  const headers = { ...auth, 'X-Workspace-Id': workspaceId };
  return {
    create: (workerId: string, body: unknown) => postJson(g.baseUrl, keysPath(workerId), body, headers),
    list: (workerId: string) => fetch(`${g.baseUrl}${keysPath(workerId)}`, { headers }),
    revoke: (workerId: string, id: string) =>
      fetch(`${g.baseUrl}${keysPath(workerId)}/${id}`, { method: 'DELETE', headers }),
  };
}

async function createKey(
  workspaceId: string,
  workerId: string,
  body: unknown = { origins: ['https://a.test'] },
) {
  const res = await as(workspaceId).create(workerId, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return expectContract(EmbedKeyCreated, await res.json());
}

async function listKeys(workspaceId: string, workerId: string) {
  const res = await as(workspaceId).list(workerId);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, keys: expectContract(EmbedKeysResponse, JSON.parse(text)).embedKeys };
}

describe('POST /api/assistant/workers/:workerId/embed-keys', () => {
  it('makes a read-only key with the default budgets, and shows the key, the secret and the snippet once', async () => {
    const ws = await newWorkspace(g, 'embed');
    const workerId = await newWorker(ws);
    const res = await as(ws).create(workerId, {
      label: '  Property pages  ',
      origins: ['https://www.agency.test', 'http://localhost:5173'],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const made = expectContract(EmbedKeyCreated, await res.json());

    expect(made.embedKey).toMatch(EMBED_KEY);
    expect(made.visitorSecret).toMatch(EMBED_VISITOR_SECRET);
    expect(made.snippet).toBe(
      `<script src="${g.baseUrl}/embed.js" data-embed-key="${made.embedKey}" async></script>`,
    );
    expect(made.key).toEqual({
      id: made.key.id,
      workspaceId: ws,
      workerId,
      label: 'Property pages',
      keyPrefix: made.embedKey.slice(0, 8),
      origins: ['https://www.agency.test', 'http://localhost:5173'],
      allowProposals: false,
      requireVisitorToken: false,
      budgets: { visitorPerMinute: 10, ipPerMinute: 30, workspacePerDay: 2000 },
      createdAt: made.key.createdAt,
      lastUsedAt: null,
      revokedAt: null,
    });

    // Stored: the key only as its hash, the secret only encrypted; what the runtime reads back is the key and secret.
    const row = await g.db.embedKey.findUniqueOrThrow({ where: { id: made.key.id } });
    const stored = JSON.stringify({
      ...row,
      keyHash: [...row.keyHash],
      cipher: [...row.visitorSecretCipher],
    });
    expect(stored).not.toContain(made.embedKey.slice(4));
    expect(Buffer.from(row.visitorSecretCipher).toString('latin1')).not.toContain(
      made.visitorSecret.slice(4),
    );
    const active = await runtime.authenticate(made.embedKey);
    expect(active?.id).toBe(made.key.id);
    expect(new TextDecoder().decode(active!.secret)).toBe(made.visitorSecret);
  });

  it('takes the budgets and allowProposals it is given', async () => {
    const ws = await newWorkspace(g, 'embed-budgets');
    const workerId = await newWorker(ws);
    const made = await createKey(ws, workerId, {
      origins: ['https://intranet.agency.test:8443'],
      allowProposals: true,
      budgets: { visitorPerMinute: 600, ipPerMinute: 1, workspacePerDay: 1_000_000 },
    });
    expect(made.key).toMatchObject({
      label: '',
      origins: ['https://intranet.agency.test:8443'],
      allowProposals: true,
      // not asked for: it follows allowProposals (a key that can propose always requires a visitor token)
      requireVisitorToken: true,
      budgets: { visitorPerMinute: 600, ipPerMinute: 1, workspacePerDay: 1_000_000 },
    });
    const partial = await createKey(ws, workerId, {
      origins: ['http://127.0.0.2:4000', 'http://[::1]:3000'],
      budgets: { ipPerMinute: 100 },
    });
    expect(partial.key.budgets).toEqual({ visitorPerMinute: 10, ipPerMinute: 100, workspacePerDay: 2000 });
  });

  it('makes a key for signed-in visitors only when asked, shown in the answer, the list and to the runtime', async () => {
    const ws = await newWorkspace(g, 'embed-signed-in');
    const workerId = await newWorker(ws);
    const made = await createKey(ws, workerId, {
      origins: ['https://intranet.agency.test'],
      allowProposals: true,
      requireVisitorToken: true,
    });
    expect(made.key).toMatchObject({ allowProposals: true, requireVisitorToken: true });
    const open = await createKey(ws, workerId, {
      origins: ['https://www.agency.test'],
      requireVisitorToken: false,
    });
    expect(open.key.requireVisitorToken).toBe(false);

    const { keys } = await listKeys(ws, workerId);
    expect(keys.map((k) => [k.id, k.requireVisitorToken])).toEqual([
      [open.key.id, false],
      [made.key.id, true],
    ]);
    const row = await g.db.embedKey.findUniqueOrThrow({ where: { id: made.key.id } });
    expect(row.requireVisitorToken).toBe(true);
    expect((await runtime.authenticate(made.embedKey))?.requireVisitorToken).toBe(true);
    expect((await runtime.authenticate(open.embedKey))?.requireVisitorToken).toBe(false);
  });

  it('refuses a key that may propose but takes anonymous visitors: 400 embed-proposals-need-token, and makes nothing', async () => {
    const ws = await newWorkspace(g, 'embed-propose-anonymous');
    const workerId = await newWorker(ws);
    const problem = await expectProblem(
      await as(ws).create(workerId, {
        origins: ['https://www.agency.test'],
        allowProposals: true,
        requireVisitorToken: false,
      }),
      400,
      'embed-proposals-need-token',
    );
    expect(problem.detail).toMatch(/A key that can propose changes must require a visitor token/);
    expect(problem.errors).toEqual([
      {
        pointer: '#/requireVisitorToken',
        detail: 'must be true (or left out) for a key that allows proposals',
      },
    ]);
    expect(await g.db.embedKey.count({ where: { workerId } })).toBe(0);
    // false is what it is for a read-only key, and true for either
    expect(
      (await createKey(ws, workerId, { origins: ['https://a.test'], requireVisitorToken: false })).key,
    ).toMatchObject({ allowProposals: false, requireVisitorToken: false });
    expect(
      (
        await createKey(ws, workerId, {
          origins: ['https://a.test'],
          allowProposals: true,
          requireVisitorToken: true,
        })
      ).key,
    ).toMatchObject({ allowProposals: true, requireVisitorToken: true });
  });

  const badBodies: Array<[string, unknown, string]> = [
    ['the wildcard origin', { origins: ['*'] }, '#/origins/0'],
    ['an http origin that is not loopback', { origins: ['http://example.com'] }, '#/origins/0'],
    ['an origin with a path', { origins: ['https://a.test', 'https://b.test/chat'] }, '#/origins/1'],
    ['an origin with a trailing slash', { origins: ['https://a.test/'] }, '#/origins/0'],
    ['an origin in capitals', { origins: ['https://A.test'] }, '#/origins/0'],
    ['a wildcard host', { origins: ['https://*.a.test'] }, '#/origins/0'],
    ['a null origin', { origins: ['null'] }, '#/origins/0'],
    ['another scheme', { origins: ['ftp://a.test'] }, '#/origins/0'],
    ['no origins', { origins: [] }, '#/origins'],
    ['a missing origins field', { label: 'x' }, '#/origins'],
    ['11 origins', { origins: Array.from({ length: 11 }, (_, i) => `https://s${i}.a.test`) }, '#/origins'],
    ['a repeated origin', { origins: ['https://a.test', 'https://a.test'] }, '#/origins'],
    ['a label of 81 characters', { origins: ['https://a.test'], label: 'x'.repeat(81) }, '#/label'],
    [
      'a visitor budget of 0',
      { origins: ['https://a.test'], budgets: { visitorPerMinute: 0 } },
      '#/budgets/visitorPerMinute',
    ],
    [
      'a visitor budget of 601',
      { origins: ['https://a.test'], budgets: { visitorPerMinute: 601 } },
      '#/budgets/visitorPerMinute',
    ],
    [
      'an IP budget of 6001',
      { origins: ['https://a.test'], budgets: { ipPerMinute: 6001 } },
      '#/budgets/ipPerMinute',
    ],
    [
      'a daily budget over a million',
      { origins: ['https://a.test'], budgets: { workspacePerDay: 1_000_001 } },
      '#/budgets/workspacePerDay',
    ],
    [
      'a fractional budget',
      { origins: ['https://a.test'], budgets: { ipPerMinute: 1.5 } },
      '#/budgets/ipPerMinute',
    ],
    [
      'a budget as a string',
      { origins: ['https://a.test'], budgets: { ipPerMinute: '30' } },
      '#/budgets/ipPerMinute',
    ],
    ['an unknown budget', { origins: ['https://a.test'], budgets: { perHour: 5 } }, '#/budgets/perHour'],
    ['an unknown field', { origins: ['https://a.test'], key: 'gwe_mine' }, '#/key'],
    [
      'requireVisitorToken as a string',
      { origins: ['https://a.test'], requireVisitorToken: 'true' },
      '#/requireVisitorToken',
    ],
  ];
  it.each(badBodies)(
    'refuses %s: 400 validation-failed naming the field, and makes nothing',
    async (_what, body, pointer) => {
      const ws = await newWorkspace(g, 'embed-bad');
      const workerId = await newWorker(ws);
      const problem = await expectProblem(await as(ws).create(workerId, body), 400, 'validation-failed');
      const errors = (problem as { errors?: Array<{ pointer: string; detail: string }> }).errors ?? [];
      expect(errors.map((e) => e.pointer)).toContain(pointer);
      expect(errors.every((e) => e.detail.length > 0)).toBe(true);
      expect(await g.db.embedKey.count({ where: { workerId } })).toBe(0);
    },
  );

  it('says why an origin is refused in words', async () => {
    const ws = await newWorkspace(g, 'embed-words');
    const workerId = await newWorker(ws);
    const problem = await expectProblem(
      await as(ws).create(workerId, { origins: ['http://example.com', 'https://b.test/x'] }),
      400,
      'validation-failed',
    );
    expect(JSON.stringify(problem)).toContain('must use https://');
    expect(JSON.stringify(problem)).toContain('no path or trailing slash');
  });

  it('refuses a body that is not JSON', async () => {
    const ws = await newWorkspace(g, 'embed-json');
    const workerId = await newWorker(ws);
    await expectProblem(await as(ws).create(workerId, '{"origins": ['), 400, 'malformed-json');
    const res = await fetch(`${g.baseUrl}${keysPath(workerId)}`, {
      method: 'POST',
      headers: { ...adminHeaders, 'X-Workspace-Id': ws, 'content-type': 'text/plain' },
      body: 'origins=https://a.test',
    });
    await expectProblem(res, 415, 'unsupported-media-type');
  });

  it('refuses the 21st live key with 409 embed-key-limit, and makes one again once a key is revoked', async () => {
    const ws = await newWorkspace(g, 'embed-limit');
    const workerId = await newWorker(ws);
    const made = [];
    for (let i = 0; i < 20; i++)
      made.push(await createKey(ws, workerId, { origins: [`https://s${i}.a.test`] }));
    const problem = await expectProblem(
      await as(ws).create(workerId, { origins: ['https://one-more.a.test'] }),
      409,
      'embed-key-limit',
    );
    expect(problem.detail).toContain('20');
    expect(await g.db.embedKey.count({ where: { workerId } })).toBe(20);
    // another worker of the workspace has its own 20
    await createKey(ws, await newWorker(ws, 'Intranet assistant'));

    expect((await as(ws).revoke(workerId, made[3]!.key.id)).status).toBe(200);
    await createKey(ws, workerId, { origins: ['https://one-more.a.test'] });
    await expectProblem(
      await as(ws).create(workerId, { origins: ['https://two-more.a.test'] }),
      409,
      'embed-key-limit',
    );
  });
});

describe('GET /api/assistant/workers/:workerId/embed-keys', () => {
  it('lists the worker’s keys newest first, and never their key or secret again', async () => {
    const ws = await newWorkspace(g, 'embed-list');
    const workerId = await newWorker(ws);
    expect((await listKeys(ws, workerId)).keys).toEqual([]);
    const first = await createKey(ws, workerId, { label: 'First', origins: ['https://a.test'] });
    const second = await createKey(ws, workerId, { label: 'Second', origins: ['https://b.test'] });
    // another worker's key stays on that worker
    await createKey(ws, await newWorker(ws, 'Other'), { origins: ['https://c.test'] });

    const { text, keys } = await listKeys(ws, workerId);
    expect(keys.map((k) => k.label)).toEqual(['Second', 'First']);
    expect(keys[1]).toEqual(first.key);
    for (const made of [first, second]) {
      expect(text).not.toContain(made.embedKey);
      expect(text).not.toContain(made.embedKey.slice(8));
      expect(text).not.toContain(made.visitorSecret);
    }
  });
});

describe('DELETE /api/assistant/workers/:workerId/embed-keys/:embedKeyId', () => {
  it('revokes the key at once, answers the revoked key, and again changes nothing', async () => {
    const ws = await newWorkspace(g, 'embed-revoke');
    const workerId = await newWorker(ws);
    const made = await createKey(ws, workerId);
    const kept = await createKey(ws, workerId, { origins: ['https://kept.a.test'] });

    const res = await as(ws).revoke(workerId, made.key.id);
    expect(res.status).toBe(200);
    const revoked = expectContract(EmbedKeyView, await res.json());
    expect(revoked).toMatchObject({ id: made.key.id, origins: made.key.origins });
    expect(revoked.revokedAt).not.toBeNull();
    expect(JSON.stringify(revoked)).not.toContain(made.embedKey);

    const again = expectContract(EmbedKeyView, await (await as(ws).revoke(workerId, made.key.id)).json());
    expect(again.revokedAt).toBe(revoked.revokedAt);

    const { keys } = await listKeys(ws, workerId);
    expect(keys.find((k) => k.id === made.key.id)?.revokedAt).toBe(revoked.revokedAt);
    expect(keys.find((k) => k.id === kept.key.id)?.revokedAt).toBeNull();
    expect(await runtime.authenticate(made.embedKey)).toBeNull();
    expect((await runtime.authenticate(kept.embedKey))?.id).toBe(kept.key.id);
  });

  it('answers 404 embed-key-not-found for an unknown key and for another worker’s', async () => {
    const ws = await newWorkspace(g, 'embed-unknown');
    const workerId = await newWorker(ws);
    const otherWorker = await newWorker(ws, 'Other');
    const made = await createKey(ws, otherWorker);
    await expectProblem(await as(ws).revoke(workerId, crypto.randomUUID()), 404, 'embed-key-not-found');
    await expectProblem(await as(ws).revoke(workerId, made.key.id), 404, 'embed-key-not-found');
    expect((await g.db.embedKey.findUniqueOrThrow({ where: { id: made.key.id } })).revokedAt).toBeNull();
    await expectProblem(await as(ws).revoke(workerId, 'not-a-uuid'), 400, 'validation-failed');
  });
});

describe('the embed keys’ routes and who may call them', () => {
  let ws: string;
  let workerId: string;
  let theirs: { ws: string; workerId: string; key: EmbedKeyCreated };
  let admin: PairedDevice;
  let settingsOnly: PairedDevice;

  beforeAll(async () => {
    ws = await newWorkspace(g, 'embed-mine');
    workerId = await newWorker(ws);
    const otherWs = await newWorkspace(g, 'embed-theirs');
    const otherWorker = await newWorker(otherWs);
    theirs = { ws: otherWs, workerId: otherWorker, key: await createKey(otherWs, otherWorker) };
    admin = await pairDevice(g, ws, ['chat', 'admin'], 'admin');
    settingsOnly = await pairDevice(g, ws, ['chat', 'workers:write'], 'settings');
  });

  it('lets a device with the admin scope manage its own workspace’s keys, with or without X-Workspace-Id', async () => {
    const res = await postJson(g.baseUrl, keysPath(workerId), { origins: ['https://a.test'] }, admin.bearer);
    expect(res.status, await res.clone().text()).toBe(201);
    const made = expectContract(EmbedKeyCreated, await res.json());
    expect(made.key.workspaceId).toBe(ws);
    const listed = await as(ws, admin.bearer).list(workerId);
    expect(expectContract(EmbedKeysResponse, await listed.json()).embedKeys.map((k) => k.id)).toContain(
      made.key.id,
    );
    expect((await as(ws, admin.bearer).revoke(workerId, made.key.id)).status).toBe(200);
  });

  it('refuses a device without the admin scope: 403 insufficient-scope, nothing made', async () => {
    const before = await g.db.embedKey.count({ where: { workerId } });
    const mine = as(ws, settingsOnly.bearer);
    await expectProblem(
      await mine.create(workerId, { origins: ['https://a.test'] }),
      403,
      'insufficient-scope',
    );
    await expectProblem(await mine.list(workerId), 403, 'insufficient-scope');
    await expectProblem(await mine.revoke(workerId, crypto.randomUUID()), 403, 'insufficient-scope');
    await expectProblem(
      await postJson(g.baseUrl, keysPath(workerId), { origins: ['https://a.test'] }),
      401,
      'unauthorized',
    );
    expect(await g.db.embedKey.count({ where: { workerId } })).toBe(before);
  });

  it('answers 404 worker-not-found for another workspace’s worker, and never touches its keys', async () => {
    // the operator acting in this workspace, and this workspace's admin device, both reach only its workers
    for (const auth of [adminHeaders, admin.bearer]) {
      const mine = as(ws, auth);
      await expectProblem(await mine.list(theirs.workerId), 404, 'worker-not-found');
      await expectProblem(
        await mine.create(theirs.workerId, { origins: ['https://a.test'] }),
        404,
        'worker-not-found',
      );
      await expectProblem(await mine.revoke(theirs.workerId, theirs.key.key.id), 404, 'worker-not-found');
      await expectProblem(await mine.revoke(workerId, theirs.key.key.id), 404, 'embed-key-not-found');
    }
    // the device cannot name the other workspace either
    await expectProblem(await as(theirs.ws, admin.bearer).list(theirs.workerId), 403, 'workspace-forbidden');
    const row = await g.db.embedKey.findUniqueOrThrow({ where: { id: theirs.key.key.id } });
    expect(row.revokedAt).toBeNull();
    expect(await g.db.embedKey.count({ where: { workerId: theirs.workerId } })).toBe(1);
  });

  it('answers 404 workspace-not-found for an unknown workspace and 400 for a worker id that is not a UUID', async () => {
    await expectProblem(await as(crypto.randomUUID()).list(workerId), 404, 'workspace-not-found');
    await expectProblem(await as(ws).list('nope'), 400, 'validation-failed');
  });
});

describe('the snippet behind a public address', () => {
  it('names PUBLIC_BASE_URL, where the host page’s visitors reach the gateway', async () => {
    const behind = await startTestGateway({
      secretKey,
      redis: 'none',
      databaseUrl: g.databaseUrl,
      env: { ...TOKEN_ENV, AI_WORKERS_ENABLED: 'true', PUBLIC_BASE_URL: 'https://porter.agency.test/' },
    });
    try {
      const ws = await newWorkspace(g, 'embed-public');
      const workerId = await newWorker(ws);
      const res = await postJson(
        behind.baseUrl,
        keysPath(workerId),
        { origins: ['https://a.test'] },
        {
          ...adminHeaders,
          'X-Workspace-Id': ws,
        },
      );
      expect(res.status).toBe(201);
      const made = expectContract(EmbedKeyCreated, await res.json());
      expect(made.snippet).toBe(
        `<script src="https://porter.agency.test/embed.js" data-embed-key="${made.embedKey}" async></script>`,
      );
    } finally {
      await behind.close();
    }
  });
});
