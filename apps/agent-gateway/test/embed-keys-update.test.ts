import { randomBytes } from 'node:crypto';
import { EmbedKeyCreated, EmbedKeyView, Worker } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyCipher } from '../src/features/binding/key-cipher.ts';
import { createEmbedKeysRepository } from '../src/features/embed/embed-keys-repository.ts';
import { createEmbedKeysService } from '../src/features/embed/embed-keys-service.ts';
import { adminHeaders, newWorkspace, pairDevice, TOKEN_ENV } from './support/access.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Editing an embed key (PATCH …/embed-keys/:embedKeyId, docs/embedding.md) with GATEWAY_AUTH=token on the real
// database: the settings change, the key and its visitor secret do not; every bad body is refused as create refuses
// it and changes nothing; another worker's, another workspace's and a revoked key are not edited. That the change
// holds at once for the embed API: embed-api.test.ts.

const secretKey = randomBytes(32);
let g: TestGateway;
// another instance's service over the same database: what a second gateway's runtime reads
let runtime: ReturnType<typeof createEmbedKeysService>;

beforeAll(async () => {
  g = await startTestGateway({ secretKey, redis: 'none', env: { ...TOKEN_ENV, AI_WORKERS_ENABLED: 'true' } });
  runtime = createEmbedKeysService({
    embedKeys: createEmbedKeysRepository(g.db),
    cipher: createKeyCipher(secretKey),
    onTouchError: () => {},
  });
});
afterAll(async () => {
  await g?.close();
});

const keysPath = (workerId: string) => `/api/assistant/workers/${workerId}/embed-keys`;

function as(workspaceId: string, auth: Record<string, string> = adminHeaders) {
  const headers = { ...auth, 'X-Workspace-Id': workspaceId };
  return {
    edit: (workerId: string, id: string, body: unknown) =>
      fetch(`${g.baseUrl}${keysPath(workerId)}/${id}`, {
        method: 'PATCH',
        headers: { ...headers, 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    revoke: (workerId: string, id: string) =>
      fetch(`${g.baseUrl}${keysPath(workerId)}/${id}`, { method: 'DELETE', headers }),
  };
}

async function workerWithKey(body: unknown = { label: 'Lettings', origins: ['https://a.test'] }) {
  const ws = await newWorkspace(g, 'embed-edit');
  const headers = { ...adminHeaders, 'X-Workspace-Id': ws };
  const worker = await postJson(g.baseUrl, '/api/assistant/workers', { name: 'Website assistant' }, headers);
  expect(worker.status).toBe(201);
  const workerId = expectContract(Worker, await worker.json()).id;
  const res = await postJson(g.baseUrl, keysPath(workerId), body, headers);
  expect(res.status, await res.clone().text()).toBe(201);
  return { ws, workerId, made: expectContract(EmbedKeyCreated, await res.json()) };
}

/** The stored row, secrets included: what must not change when an edit is refused. */
const stored = async (id: string) => {
  const row = await g.db.embedKey.findUniqueOrThrow({ where: { id } });
  return { ...row, keyHash: [...row.keyHash], visitorSecretCipher: [...row.visitorSecretCipher] };
};

describe('PATCH /api/assistant/workers/:workerId/embed-keys/:embedKeyId', () => {
  it('changes the origins, budgets, flags and name it is given, keeps the rest, and never the key or secret', async () => {
    const { ws, workerId, made } = await workerWithKey({
      label: 'Lettings',
      origins: ['https://a.test'],
      budgets: { ipPerMinute: 40 },
    });
    const before = await stored(made.key.id);

    const res = await as(ws).edit(workerId, made.key.id, {
      origins: ['https://a.test', 'https://www.second-site.test', 'http://localhost:5173'],
      budgets: { visitorPerMinute: 3, workspacePerDay: 900 },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const text = await res.clone().text();
    const edited = expectContract(EmbedKeyView, await res.json());
    expect(edited).toEqual({
      ...made.key,
      origins: ['https://a.test', 'https://www.second-site.test', 'http://localhost:5173'],
      // the budget not named stays
      budgets: { visitorPerMinute: 3, ipPerMinute: 40, workspacePerDay: 900 },
    });
    expect(text).not.toContain(made.embedKey);
    expect(text).not.toContain(made.visitorSecret);
    const after = await stored(made.key.id);
    expect(after.keyHash).toEqual(before.keyHash);
    expect(after.visitorSecretCipher).toEqual(before.visitorSecretCipher);

    // the flags, together as the proposal rule wants, and the name (an empty one clears it)
    const flags = await as(ws).edit(workerId, made.key.id, {
      allowProposals: true,
      requireVisitorToken: true,
      label: '  Staff intranet ',
    });
    expect(expectContract(EmbedKeyView, await flags.json())).toMatchObject({
      label: 'Staff intranet',
      allowProposals: true,
      requireVisitorToken: true,
      origins: edited.origins,
    });
    const back = await as(ws).edit(workerId, made.key.id, { allowProposals: false, label: '' });
    expect(expectContract(EmbedKeyView, await back.json())).toMatchObject({
      label: '',
      allowProposals: false,
      // left out: stays on
      requireVisitorToken: true,
    });

    // the same key and secret, as another instance reads them afresh
    const active = await runtime.authenticate(made.embedKey);
    expect(active).toMatchObject({ id: made.key.id, origins: edited.origins, requireVisitorToken: true });
    expect(new TextDecoder().decode(active!.secret)).toBe(made.visitorSecret);
  });

  const badBodies: Array<[string, unknown, string, string]> = [
    ['an empty body', {}, 'validation-failed', '#/'],
    ['empty budgets alone', { budgets: {} }, 'validation-failed', '#/'],
    [
      'an unknown field',
      { origins: ['https://b.test'], embedKey: 'gwe_mine' },
      'validation-failed',
      '#/embedKey',
    ],
    ['a path in an origin', { origins: ['https://b.test/chat'] }, 'validation-failed', '#/origins/0'],
    [
      'an http origin that is not loopback',
      { origins: ['http://b.test'] },
      'validation-failed',
      '#/origins/0',
    ],
    ['a wildcard origin', { origins: ['*'] }, 'validation-failed', '#/origins/0'],
    ['no origins', { origins: [] }, 'validation-failed', '#/origins'],
    [
      'eleven origins',
      { origins: Array.from({ length: 11 }, (_, i) => `https://s${i}.b.test`) },
      'validation-failed',
      '#/origins',
    ],
    [
      'a repeated origin',
      { origins: ['https://b.test', 'https://b.test'] },
      'validation-failed',
      '#/origins',
    ],
    [
      'a budget of 0',
      { budgets: { visitorPerMinute: 0 } },
      'validation-failed',
      '#/budgets/visitorPerMinute',
    ],
    ['a name over 80', { label: 'x'.repeat(81) }, 'validation-failed', '#/label'],
    [
      'proposals without a visitor token',
      { allowProposals: true, requireVisitorToken: false },
      'embed-proposals-need-token',
      '#/requireVisitorToken',
    ],
    // the key takes anonymous visitors: allowing proposals alone would leave it so
    [
      'proposals on a key for anyone',
      { allowProposals: true },
      'embed-proposals-need-token',
      '#/requireVisitorToken',
    ],
  ];
  it.each(badBodies)(
    'refuses %s: 400 %s naming the field, and changes nothing',
    async (_what, body, code, pointer) => {
      const { ws, workerId, made } = await workerWithKey();
      const before = await stored(made.key.id);
      const problem = await expectProblem(await as(ws).edit(workerId, made.key.id, body), 400, code);
      const errors = (problem as { errors?: Array<{ pointer: string; detail: string }> }).errors ?? [];
      expect(errors.map((e) => e.pointer)).toContain(pointer);
      expect(errors.every((e) => e.detail.length > 0)).toBe(true);
      expect(await stored(made.key.id)).toEqual(before);
    },
  );

  it('refuses to let a proposing key take anonymous visitors', async () => {
    const { ws, workerId, made } = await workerWithKey({ origins: ['https://a.test'], allowProposals: true });
    await expectProblem(
      await as(ws).edit(workerId, made.key.id, { requireVisitorToken: false }),
      400,
      'embed-proposals-need-token',
    );
    expect((await stored(made.key.id)).requireVisitorToken).toBe(true);
  });

  it('refuses a body that is not JSON', async () => {
    const { ws, workerId, made } = await workerWithKey();
    await expectProblem(await as(ws).edit(workerId, made.key.id, '{"origins": ['), 400, 'malformed-json');
    const res = await fetch(`${g.baseUrl}${keysPath(workerId)}/${made.key.id}`, {
      method: 'PATCH',
      headers: { ...adminHeaders, 'X-Workspace-Id': ws, 'content-type': 'text/plain' },
      body: 'origins=https://b.test',
    });
    await expectProblem(res, 415, 'unsupported-media-type');
  });

  it('answers 404 for an unknown key, another worker’s and another workspace’s, and 409 for a revoked one', async () => {
    const mine = await workerWithKey();
    const theirs = await workerWithKey();
    const body = { origins: ['https://taken-over.test'] };
    const theirsBefore = await stored(theirs.made.key.id);
    const edit = as(mine.ws);
    await expectProblem(
      await edit.edit(mine.workerId, crypto.randomUUID(), body),
      404,
      'embed-key-not-found',
    );
    // another workspace's key under my worker, and under its own worker while I act in my workspace
    await expectProblem(await edit.edit(mine.workerId, theirs.made.key.id, body), 404, 'embed-key-not-found');
    await expectProblem(await edit.edit(theirs.workerId, theirs.made.key.id, body), 404, 'worker-not-found');
    await expectProblem(await edit.edit(mine.workerId, 'not-a-uuid', body), 400, 'validation-failed');
    expect(await stored(theirs.made.key.id)).toEqual(theirsBefore);

    expect((await edit.revoke(mine.workerId, mine.made.key.id)).status).toBe(200);
    const revoked = await expectProblem(
      await edit.edit(mine.workerId, mine.made.key.id, body),
      409,
      'embed-key-revoked',
    );
    expect(revoked.detail).toMatch(/revoked/);
    expect((await stored(mine.made.key.id)).origins).toEqual(['https://a.test']);
  });

  it('needs the admin scope: 403 insufficient-scope without it, 401 without a token, nothing changed', async () => {
    const { ws, workerId, made } = await workerWithKey();
    const before = await stored(made.key.id);
    const settingsOnly = await pairDevice(g, ws, ['chat', 'workers:write'], 'settings');
    const body = { origins: ['https://b.test'] };
    await expectProblem(
      await as(ws, settingsOnly.bearer).edit(workerId, made.key.id, body),
      403,
      'insufficient-scope',
    );
    await expectProblem(await as(ws, {}).edit(workerId, made.key.id, body), 401, 'unauthorized');
    expect(await stored(made.key.id)).toEqual(before);

    const admin = await pairDevice(g, ws, ['admin'], 'admin');
    const res = await as(ws, admin.bearer).edit(workerId, made.key.id, body);
    expect(expectContract(EmbedKeyView, await res.json()).origins).toEqual(['https://b.test']);
  });
});
