import {
  AccessAuditResponse,
  AdminKeyResponse,
  AdminKeysResponse,
  CreateRemoteKeyResponse,
  RemoteKeyResponse,
  RemoteKeysResponse,
  WhoamiResponse,
} from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/contract.ts';
import { makeTenant } from './support/factories.ts';
import { ADMIN, type AccessTenant, as, auditRows, makeAccessTenant } from './support/remote-access.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// The remote-access admin API, keys half (issue 37, docs/bridge-api.md): who may call it, remote keys (the secret
// shown once), admin keys (the last access admin guarded), and each change in the access audit. Flags, signed
// events and the audit's reads are in remote-access-settings.test.ts; last-use recording in remote-access-last-used.

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge();
});
afterAll(async () => t?.close());

const PORTFOLIO = '/api/assistant-bridge/portfolio';

// Every remote-access route but whoami, with a request a review-only key must not get through.
const MANAGED: Array<[string, (a: ReturnType<typeof as>) => request.Test]> = [
  ['GET remote-keys', (a) => a.get(`${ADMIN}/remote-keys`)],
  ['POST remote-keys', (a) => a.post(`${ADMIN}/remote-keys`, { label: 'x', scopes: ['bridge:read'] })],
  ['POST remote-keys/:id/revoke', (a) => a.post(`${ADMIN}/remote-keys/1/revoke`)],
  ['GET admin-keys', (a) => a.get(`${ADMIN}/admin-keys`)],
  ['POST admin-keys/:id/revoke', (a) => a.post(`${ADMIN}/admin-keys/1/revoke`, {})],
  ['GET flags', (a) => a.get(`${ADMIN}/flags`)],
  ['PUT flags/:name', (a) => a.put(`${ADMIN}/flags/assistant_bridge_writes`, { enabled: true })],
  ['GET webhook-endpoints', (a) => a.get(`${ADMIN}/webhook-endpoints`)],
  ['POST webhook-endpoints', (a) => a.post(`${ADMIN}/webhook-endpoints`, { url: 'https://hooks.example/x' })],
  ['DELETE webhook-endpoints/:id', (a) => a.delete(`${ADMIN}/webhook-endpoints/1`)],
  ['GET webhook-endpoints/:id/deliveries', (a) => a.get(`${ADMIN}/webhook-endpoints/1/deliveries`)],
  ['POST webhook-deliveries/:id/redeliver', (a) => a.post(`${ADMIN}/webhook-deliveries/1/redeliver`)],
  ['GET access-audit', (a) => a.get(`${ADMIN}/access-audit`)],
];

describe('who may call the remote-access API', () => {
  it('GET /api/admin/whoami answers any admin key with its label, scopes and tenant', async () => {
    const tenant = await makeTenant(t, { name: 'Oak Lettings' });
    const viewer = await t.admin.createAdmin(tenant.slug, 'viewer@oak.example', ['review:read']);
    const res = await as(t, viewer.key).get(`${ADMIN}/whoami`);
    expect(res.status).toBe(200);
    expect(expectContract(WhoamiResponse, res.body)).toEqual({
      key_id: viewer.id,
      label: 'viewer@oak.example',
      scopes: ['review:read'],
      tenant: { slug: tenant.slug, name: 'Oak Lettings' },
    });
  });

  it.each(MANAGED)(
    '%s with a review-only admin key → 403 insufficient-scope, nothing changed',
    async (_name, call) => {
      const tenant = await makeAccessTenant(t);
      const reviewer = await t.admin.createAdmin(tenant.slug, 'reviewer@x.example', [
        'review:read',
        'review:write',
      ]);
      const before = await auditRows(t, tenant.id);
      const res = await call(as(t, reviewer.key));
      expectProblem(res, 403, 'insufficient-scope');
      expect(res.headers['www-authenticate']).toMatch(/error="insufficient_scope", scope="access:manage"/);
      expect(await auditRows(t, tenant.id)).toEqual(before);
    },
  );

  it('a remote (plat_) key, no key, or a key in the query string → 401 invalid-api-key', async () => {
    const tenant = await makeAccessTenant(t);
    expectProblem(await as(t, tenant.key).get(`${ADMIN}/remote-keys`), 401, 'invalid-api-key');
    expectProblem(await request(t.app).get(`${ADMIN}/whoami`), 401, 'invalid-api-key');
    expectProblem(
      await as(t, tenant.adminKey).get(`${ADMIN}/remote-keys?key=${tenant.adminKey}`),
      401,
      'invalid-api-key',
    );
  });

  it('needs no tenant flag: a tenant with every flag off can still manage its access', async () => {
    const tenant = await makeAccessTenant(t, { flags: [] });
    const res = await as(t, tenant.adminKey).get(`${ADMIN}/remote-keys`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    // while the review queue's routes still answer that it is off
    expectProblem(await as(t, tenant.adminKey).get(`${ADMIN}/review-queue`), 404, 'review-queue-not-enabled');
  });
});

describe('POST /api/admin/remote-keys', () => {
  it('creates a key that works on the bridge at once; the secret is in this answer only', async () => {
    const tenant = await makeAccessTenant(t);
    const admin = as(t, tenant.adminKey);
    const res = await admin.post(`${ADMIN}/remote-keys`, {
      label: '  Lettings assistant ',
      scopes: ['bridge:read', 'bridge:propose'],
    });
    expect(res.status).toBe(201);
    const created = expectContract(CreateRemoteKeyResponse, res.body);
    expect(created.secret).toMatch(/^plat_[A-Za-z0-9]{38}$/);
    expect(created.key).toMatchObject({
      label: 'Lettings assistant',
      scopes: ['bridge:read', 'bridge:propose'],
      last_used_at: null,
      revoked_at: null,
    });
    expect(created.secret.startsWith(created.key.prefix)).toBe(true);
    expect(created.key.prefix).toMatch(/^plat_[A-Za-z0-9]{8}$/);

    expect((await as(t, created.secret).get(PORTFOLIO)).status).toBe(200);

    // listed with the tenant's other key, never with a secret
    const listRes = await admin.get(`${ADMIN}/remote-keys`);
    const list = expectContract(RemoteKeysResponse, listRes.body);
    expect(list.keys.map((k) => k.id)).toEqual([tenant.keyId, created.key.id]);
    expect(listRes.text).not.toContain(created.secret);
    expect(listRes.text).not.toContain(created.secret.slice(created.key.prefix.length));
    // stored as a hash
    const row = await t.db.apiKey.findUniqueOrThrow({ where: { id: created.key.id } });
    expect(Buffer.from(row.secretHash).toString('utf8')).not.toContain(created.secret);

    expect((await auditRows(t, tenant.id)).at(-1)).toMatchObject({
      actor: tenant.adminEmail,
      action: 'remote-key.created',
      target: `remote key #${created.key.id} "Lettings assistant" (${created.key.prefix})`,
    });
  });

  it.each([
    ['no label', { scopes: ['bridge:read'] }, '/label'],
    ['a blank label', { label: '   ', scopes: ['bridge:read'] }, '/label'],
    ['a label of 101 characters', { label: 'x'.repeat(101), scopes: ['bridge:read'] }, '/label'],
    ['no scopes', { label: 'x', scopes: [] }, '/scopes'],
    ['an admin scope', { label: 'x', scopes: ['access:manage'] }, '/scopes/0'],
    ['an unknown field', { label: 'x', scopes: ['bridge:read'], admin: true }, ''],
  ])('%s → 400 validation-failed, no key made', async (_name, body, pointer) => {
    const tenant = await makeAccessTenant(t);
    const res = await as(t, tenant.adminKey).post(`${ADMIN}/remote-keys`, body);
    const problem = expectProblem(res, 400, 'validation-failed');
    expect(JSON.stringify(problem)).toContain(`#${pointer}`);
    expect(await t.db.apiKey.count({ where: { tenantId: tenant.id, kind: 'remote' } })).toBe(1);
  });

  it('a body that is not JSON → 415; malformed JSON → 400 malformed-json', async () => {
    const tenant = await makeAccessTenant(t);
    const post = () =>
      request(t.app).post(`${ADMIN}/remote-keys`).set('Authorization', `Bearer ${tenant.adminKey}`);
    expectProblem(await post().type('text/plain').send('label=x'), 415, 'unsupported-media-type');
    expectProblem(await post().type('application/json').send('{"label":'), 400, 'malformed-json');
  });
});

describe('POST /api/admin/remote-keys/:id/revoke', () => {
  it('revokes: the key’s next bridge request is refused; a second revoke answers the same, unaudited', async () => {
    const tenant = await makeAccessTenant(t);
    const admin = as(t, tenant.adminKey);
    expect((await as(t, tenant.key).get(PORTFOLIO)).status).toBe(200);

    const res = await admin.post(`${ADMIN}/remote-keys/${tenant.keyId}/revoke`);
    expect(res.status).toBe(200);
    const { key } = expectContract(RemoteKeyResponse, res.body);
    expect(key).toMatchObject({ id: tenant.keyId, revoked_at: expect.any(String) });
    expectProblem(await as(t, tenant.key).get(PORTFOLIO), 401, 'invalid-api-key');

    const again = expectContract(
      RemoteKeyResponse,
      (await admin.post(`${ADMIN}/remote-keys/${tenant.keyId}/revoke`)).body,
    );
    expect(again.key.revoked_at).toBe(key.revoked_at);
    const revocations = (await auditRows(t, tenant.id)).filter((e) => e.action === 'remote-key.revoked');
    expect(revocations).toEqual([
      expect.objectContaining({
        actor: tenant.adminEmail,
        target: expect.stringContaining(`#${tenant.keyId}`),
      }),
    ]);
  });

  it('another tenant’s key, an admin key’s id or an unknown id → 404 key-not-found; the key still works', async () => {
    const mine = await makeAccessTenant(t);
    const other = await makeAccessTenant(t);
    const admin = as(t, mine.adminKey);
    const othersAudit = await auditRows(t, other.id);
    expectProblem(await admin.post(`${ADMIN}/remote-keys/${other.keyId}/revoke`), 404, 'key-not-found');
    expectProblem(await admin.post(`${ADMIN}/remote-keys/${mine.adminKeyId}/revoke`), 404, 'key-not-found');
    expectProblem(await admin.post(`${ADMIN}/remote-keys/2147483647/revoke`), 404, 'key-not-found');
    expect((await as(t, other.key).get(PORTFOLIO)).status).toBe(200);
    expect(await auditRows(t, other.id)).toEqual(othersAudit);
  });

  it('an id that is not a positive integer → 400 validation-failed', async () => {
    const tenant = await makeAccessTenant(t);
    for (const id of ['abc', '0', '-1', '1.5']) {
      expectProblem(
        await as(t, tenant.adminKey).post(`${ADMIN}/remote-keys/${id}/revoke`),
        400,
        'validation-failed',
      );
    }
  });
});

describe('admin keys', () => {
  async function withSecondAdmin(tenant: AccessTenant, scopes: string[]) {
    return t.admin.createAdmin(tenant.slug, `second@${tenant.slug}.example`, scopes);
  }

  it('GET /api/admin/admin-keys lists them, marks the caller, shows no secret', async () => {
    const tenant = await makeAccessTenant(t);
    const second = await withSecondAdmin(tenant, ['review:read']);
    const res = await as(t, tenant.adminKey).get(`${ADMIN}/admin-keys`);
    const { keys } = expectContract(AdminKeysResponse, res.body);
    expect(keys).toEqual([
      expect.objectContaining({
        id: tenant.adminKeyId,
        label: tenant.adminEmail,
        scopes: ['access:manage'],
        current: true,
      }),
      expect.objectContaining({ id: second.id, scopes: ['review:read'], current: false, revoked_at: null }),
    ]);
    expect(res.text).not.toContain(second.key);
  });

  it('POST /api/admin/admin-keys/:id/revoke revokes another admin’s key, without a body', async () => {
    const tenant = await makeAccessTenant(t);
    const second = await withSecondAdmin(tenant, ['access:manage']);
    const res = await as(t, tenant.adminKey).post(`${ADMIN}/admin-keys/${second.id}/revoke`);
    expect(res.status).toBe(200);
    expect(expectContract(AdminKeyResponse, res.body).key).toMatchObject({ id: second.id, current: false });
    expectProblem(await as(t, second.key).get(`${ADMIN}/whoami`), 401, 'invalid-api-key');
    expect((await auditRows(t, tenant.id)).at(-1)).toMatchObject({
      actor: tenant.adminEmail,
      action: 'admin-key.revoked',
      target: expect.stringContaining(`admin key #${second.id} second@`),
    });
  });

  it('the last key with access:manage → 409 last-access-admin unless confirmed; then it stops working', async () => {
    const tenant = await makeAccessTenant(t);
    // a reviewer does not count: it cannot manage access
    await withSecondAdmin(tenant, ['review:read', 'review:write']);
    const self = as(t, tenant.adminKey);
    const path = `${ADMIN}/admin-keys/${tenant.adminKeyId}/revoke`;
    const refused = expectProblem(await self.post(path, {}), 409, 'last-access-admin');
    expect(refused.detail).toMatch(/last one that can manage remote access/);
    expectProblem(await self.post(path, { confirm_last_access_admin: false }), 409, 'last-access-admin');
    expect((await self.get(`${ADMIN}/whoami`)).status).toBe(200);

    const res = await self.post(path, { confirm_last_access_admin: true });
    expect(res.status).toBe(200);
    expect(expectContract(AdminKeyResponse, res.body).key).toMatchObject({ current: true });
    expectProblem(await self.get(`${ADMIN}/whoami`), 401, 'invalid-api-key');
  });

  it('two access admins revoking each other at once: one of them stays', async () => {
    const tenant = await makeAccessTenant(t);
    const second = await withSecondAdmin(tenant, ['access:manage']);
    const [a, b] = await Promise.all([
      as(t, tenant.adminKey).post(`${ADMIN}/admin-keys/${second.id}/revoke`),
      as(t, second.key).post(`${ADMIN}/admin-keys/${tenant.adminKeyId}/revoke`),
    ]);
    // the loser is refused as the last one (409), or was already revoked when it authenticated (401)
    expect([a.status, b.status].sort()).toEqual(expect.arrayContaining([200]));
    expect([a.status, b.status].filter((s) => s === 200)).toHaveLength(1);
    const active = await t.db.apiKey.count({
      where: { tenantId: tenant.id, kind: 'admin', revokedAt: null, scopes: { has: 'access:manage' } },
    });
    expect(active).toBe(1);
  });

  it('another tenant’s admin key or a remote key’s id → 404 key-not-found; a bad body → 400', async () => {
    const mine = await makeAccessTenant(t);
    const other = await makeAccessTenant(t);
    const admin = as(t, mine.adminKey);
    expectProblem(await admin.post(`${ADMIN}/admin-keys/${other.adminKeyId}/revoke`), 404, 'key-not-found');
    expectProblem(await admin.post(`${ADMIN}/admin-keys/${mine.keyId}/revoke`), 404, 'key-not-found');
    expect((await as(t, other.adminKey).get(`${ADMIN}/whoami`)).status).toBe(200);
    expectProblem(
      await admin.post(`${ADMIN}/admin-keys/${mine.adminKeyId}/revoke`, { confirm_last_access_admin: 'yes' }),
      400,
      'validation-failed',
    );
  });
});

describe('the operator CLI’s key changes', () => {
  it('are in the access audit as `operator CLI`, newest first', async () => {
    const tenant = await makeAccessTenant(t);
    const key = await t.admin.createKey(tenant.slug, ['bridge:read'], 'From the terminal');
    await t.admin.revokeKey(key.id);
    const res = await as(t, tenant.adminKey).get(`${ADMIN}/access-audit`);
    const { entries } = expectContract(AccessAuditResponse, res.body);
    expect(entries.map((e) => [e.actor, e.action])).toEqual([
      ['operator CLI', 'remote-key.revoked'],
      ['operator CLI', 'remote-key.created'],
      ['operator CLI', 'admin-key.created'],
      ['operator CLI', 'remote-key.created'],
      ['operator CLI', 'flag.enabled'],
    ]);
    expect(entries[0]!.target).toContain('"From the terminal"');
  });
});
