import {
  DevicesResponse,
  PAIRING_CODE,
  PAIRING_CODE_ALPHABET,
  PairingCode,
  RedeemPairingResponse,
} from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessRepository } from '../src/features/access/access-repository.ts';
import { createPairingService } from '../src/features/access/pairing-service.ts';
import { createWorkspacesRepository } from '../src/features/workspace/workspaces-repository.ts';
import {
  ADMIN_TOKEN,
  adminHeaders,
  createCode,
  newWorkspace,
  pairDevice,
  TOKEN_ENV,
} from './support/access.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { GATEWAY_BACKENDS, startTestGateway, type TestGateway } from './support/test-app.ts';

// Pairing codes and devices (docs/access.md) on a gateway with GATEWAY_AUTH=token, real PostgreSQL and Redis.

describe.each(GATEWAY_BACKENDS)('device pairing on %s', (_name, backend) => {
  let g: TestGateway;
  let workspaceId: string;

  beforeAll(async () => {
    g = await startTestGateway({ backend, env: { ...TOKEN_ENV }, redis: 'required' });
    workspaceId = await newWorkspace(g);
  });
  afterAll(async () => {
    await g?.close();
  });

  describe('pairing codes', () => {
    it('the operator creates a code of 8 unambiguous characters, valid 10 minutes, chat by default', async () => {
      const before = Date.now();
      const res = await postJson(
        g.baseUrl,
        '/api/pairing/codes',
        { workspaceId, label: 'Sam’s phone' },
        adminHeaders,
      );
      expect(res.status).toBe(201);
      const code = expectContract(PairingCode, await res.json());
      expect(code.code).toMatch(PAIRING_CODE);
      for (const ch of code.code) expect(PAIRING_CODE_ALPHABET).toContain(ch);
      expect(code.scopes).toEqual(['chat']);
      const ttl = Date.parse(code.expiresAt) - before;
      expect(ttl).toBeGreaterThan(9.9 * 60_000);
      expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 5_000);
      // only its hash is stored
      const rows = await g.db.pairingCode.findMany({ where: { workspaceId } });
      expect(
        JSON.stringify(rows.map((r) => ({ ...r, codeHash: Buffer.from(r.codeHash).toString('hex') }))),
      ).not.toContain(code.code);
    });

    it('refuses bad input and unknown workspaces', async () => {
      await expectProblem(
        await postJson(g.baseUrl, '/api/pairing/codes', { workspaceId, scopes: ['root'] }, adminHeaders),
        400,
        'validation-failed',
      );
      await expectProblem(
        await postJson(g.baseUrl, '/api/pairing/codes', { workspaceId, extra: 1 }, adminHeaders),
        400,
        'validation-failed',
      );
      await expectProblem(
        await postJson(g.baseUrl, '/api/pairing/codes', { workspaceId: crypto.randomUUID() }, adminHeaders),
        404,
        'workspace-not-found',
      );
    });

    it('a device creates codes only for its own workspace and never with more scopes than it holds', async () => {
      const admin = await pairDevice(g, workspaceId, ['admin', 'chat']);
      const other = await newWorkspace(g, 'other');
      await expectProblem(
        await postJson(g.baseUrl, '/api/pairing/codes', { workspaceId: other }, admin.bearer),
        403,
        'workspace-forbidden',
      );
      await expectProblem(
        await postJson(
          g.baseUrl,
          '/api/pairing/codes',
          { workspaceId, scopes: ['workers:write'] },
          admin.bearer,
        ),
        403,
        'insufficient-scope',
      );
      const ok = await createCode(g, workspaceId, ['chat'], admin.bearer);
      expect(ok.scopes).toEqual(['chat']);
      const chatOnly = await pairDevice(g, workspaceId, ['chat']);
      await expectProblem(
        await postJson(g.baseUrl, '/api/pairing/codes', { workspaceId }, chatOnly.bearer),
        403,
        'insufficient-scope',
      );
    });
  });

  describe('redeeming', () => {
    it('gives a gwt_ token once, stored hashed, and sets the gw_session cookie (HttpOnly, SameSite=Strict, Path=/)', async () => {
      const { code } = await createCode(g, workspaceId, ['chat', 'workers:write']);
      const res = await postJson(g.baseUrl, '/api/pairing/redeem', {
        code: code.toLowerCase().replace(/(.{4})/, '$1-'),
        deviceName: 'Sam’s phone',
      });
      expect(res.status, await res.clone().text()).toBe(201);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = expectContract(RedeemPairingResponse, await res.json());
      expect(body.scopes).toEqual(['chat', 'workers:write']);
      expect(body.workspaceId).toBe(workspaceId);
      const cookie = res.headers.get('set-cookie')!;
      expect(cookie).toMatch(new RegExp(`^gw_session=${body.token};`));
      expect(cookie).toMatch(/; HttpOnly/i);
      expect(cookie).toMatch(/; SameSite=Strict/i);
      expect(cookie).toMatch(/; Path=\//);
      expect(cookie).not.toMatch(/; Secure/i);

      const row = await g.db.device.findUniqueOrThrow({ where: { id: body.deviceId } });
      expect(row.name).toBe('Sam’s phone');
      expect(Buffer.from(row.tokenHash).toString('hex')).not.toContain(body.token);
      expect(row.tokenPrefix).toBe(body.token.slice(0, 12));

      // the token works as a bearer and as the cookie
      expect(
        (await fetch(`${g.baseUrl}/api/providers`, { headers: { authorization: `Bearer ${body.token}` } }))
          .status,
      ).toBe(200);
      expect(
        (await fetch(`${g.baseUrl}/api/providers`, { headers: { cookie: `gw_session=${body.token}` } }))
          .status,
      ).toBe(200);

      // one use: the same code again is refused like any bad code
      const again = await postJson(g.baseUrl, '/api/pairing/redeem', { code, deviceName: 'thief' });
      const p = await expectProblem(again, 400, 'pairing-code-invalid');
      expect(again.headers.get('set-cookie')).toBeNull();
      const unknown = await expectProblem(
        await postJson(
          g.baseUrl,
          '/api/pairing/redeem',
          { code: 'ABCDEFGH', deviceName: 'x' },
          { 'X-Forwarded-For': '10.9.9.9' },
        ),
        400,
        'pairing-code-invalid',
      );
      expect(unknown.detail).toBe(p.detail);
    });

    it('two concurrent redeems of one code: exactly one device', async () => {
      const { code } = await createCode(g, workspaceId);
      const results = await Promise.all(
        [1, 2, 3].map((i) => postJson(g.baseUrl, '/api/pairing/redeem', { code, deviceName: `racer ${i}` })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
      expect(await g.db.device.count({ where: { name: { startsWith: 'racer' } } })).toBe(1);
    });

    it('sets the cookie Secure behind HTTPS (X-Forwarded-Proto from a proxy TRUST_PROXY trusts)', async () => {
      const proxied = await startTestGateway({ env: { ...TOKEN_ENV, TRUST_PROXY: '1' }, redis: 'required' });
      try {
        const ws = await newWorkspace(proxied);
        const { code } = await createCode(proxied, ws);
        const res = await postJson(
          proxied.baseUrl,
          '/api/pairing/redeem',
          { code, deviceName: 'tablet' },
          { 'X-Forwarded-Proto': 'https' },
        );
        expect(res.status).toBe(201);
        expect(res.headers.get('set-cookie')).toMatch(/; Secure/i);
        // without TRUST_PROXY the header is not believed
        const { code: code2 } = await createCode(g, workspaceId);
        const direct = await postJson(
          g.baseUrl,
          '/api/pairing/redeem',
          { code: code2, deviceName: 'tablet' },
          { 'X-Forwarded-Proto': 'https' },
        );
        expect(direct.status).toBe(201);
        expect(direct.headers.get('set-cookie')).not.toMatch(/; Secure/i);
      } finally {
        await proxied.close();
      }
    });
  });

  describe('failed redeems', () => {
    for (const redis of ['required', 'none'] as const) {
      it(`5 failures per IP in 10 minutes, then 429 with Retry-After (counted ${redis === 'none' ? 'in memory' : 'in Redis'})`, async () => {
        const gw = await startTestGateway({ env: { ...TOKEN_ENV }, redis });
        try {
          const ws = await newWorkspace(gw);
          const { code } = await createCode(gw, ws);
          // a success does not count against the budget
          expect((await postJson(gw.baseUrl, '/api/pairing/redeem', { code, deviceName: 'ok' })).status).toBe(
            201,
          );
          for (let i = 0; i < 5; i++) {
            await expectProblem(
              await postJson(gw.baseUrl, '/api/pairing/redeem', { code: 'ZZZZZZZZ', deviceName: 'guess' }),
              400,
              'pairing-code-invalid',
            );
          }
          const { code: good } = await createCode(gw, ws);
          const limited = await postJson(gw.baseUrl, '/api/pairing/redeem', {
            code: good,
            deviceName: 'late',
          });
          await expectProblem(limited, 429, 'rate-limited');
          const retryAfter = Number(limited.headers.get('retry-after'));
          expect(retryAfter).toBeGreaterThan(500);
          expect(retryAfter).toBeLessThanOrEqual(600);
          if (redis === 'required') {
            expect(await gw.redis!.keys(`${gw.config.REDIS_PREFIX}rl:pairing:*`)).not.toHaveLength(0);
          }
        } finally {
          await gw.close();
        }
      });
    }
  });

  describe('devices', () => {
    it('lists devices without tokens; an admin device sees its own workspace only', async () => {
      const ws = await newWorkspace(g, 'devices');
      const admin = await pairDevice(g, ws, ['admin'], 'laptop');
      const phone = await pairDevice(g, ws, ['chat'], 'phone');
      const res = await fetch(`${g.baseUrl}/api/devices`, { headers: admin.bearer });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain(phone.token);
      expect(text).not.toMatch(/gwt_/);
      const { devices } = expectContract(DevicesResponse, JSON.parse(text));
      expect(devices.map((d) => d.name).sort()).toEqual(['laptop', 'phone']);
      expect(devices.every((d) => d.workspaceId === ws)).toBe(true);
      // the admin device has been used (last_used_at, written beside the request), the phone not yet
      await expect
        .poll(
          async () => (await g.db.device.findUniqueOrThrow({ where: { id: admin.deviceId } })).lastUsedAt,
          {
            timeout: 10_000,
          },
        )
        .not.toBeNull();
      expect(devices.find((d) => d.id === phone.deviceId)!.lastUsedAt).toBeNull();

      const all = expectContract(
        DevicesResponse,
        await (await fetch(`${g.baseUrl}/api/devices`, { headers: adminHeaders })).json(),
      );
      expect(all.devices.some((d) => d.workspaceId === workspaceId)).toBe(true);
      expect(all.devices.some((d) => d.workspaceId === ws)).toBe(true);
    });

    it('revocation holds from the next request; another workspace’s device is not found', async () => {
      const ws = await newWorkspace(g, 'revoke');
      const admin = await pairDevice(g, ws, ['admin']);
      const phone = await pairDevice(g, ws, ['chat']);
      const stranger = await pairDevice(g, workspaceId, ['chat']);
      expect((await fetch(`${g.baseUrl}/api/providers`, { headers: phone.bearer })).status).toBe(200);

      await expectProblem(
        await fetch(`${g.baseUrl}/api/devices/${stranger.deviceId}`, {
          method: 'DELETE',
          headers: admin.bearer,
        }),
        404,
        'device-not-found',
      );
      const revoked = await fetch(`${g.baseUrl}/api/devices/${phone.deviceId}`, {
        method: 'DELETE',
        headers: admin.bearer,
      });
      expect(revoked.status).toBe(204);
      const p = await expectProblem(
        await fetch(`${g.baseUrl}/api/providers`, { headers: phone.bearer }),
        401,
        'unauthorized',
      );
      expect(p.detail).toMatch(/not valid/);
      // again: no change
      const row = await g.db.device.findUniqueOrThrow({ where: { id: phone.deviceId } });
      expect(
        (
          await fetch(`${g.baseUrl}/api/devices/${phone.deviceId}`, {
            method: 'DELETE',
            headers: adminHeaders,
          })
        ).status,
      ).toBe(204);
      expect((await g.db.device.findUniqueOrThrow({ where: { id: phone.deviceId } })).revokedAt).toEqual(
        row.revokedAt,
      );
      await expectProblem(
        await fetch(`${g.baseUrl}/api/devices/not-a-uuid`, { method: 'DELETE', headers: adminHeaders }),
        400,
        'validation-failed',
      );
      // the stranger was never touched
      expect((await fetch(`${g.baseUrl}/api/providers`, { headers: stranger.bearer })).status).toBe(200);
      expect(ADMIN_TOKEN.length).toBeGreaterThanOrEqual(32);
    });
  });

  describe('codes with a fixed clock', () => {
    it('a code redeems until its 10 minutes are up, and once', async () => {
      let now = new Date('2026-01-05T09:00:00Z');
      const workspaces = createWorkspacesRepository(g.db);
      const pairing = createPairingService({
        access: createAccessRepository(g.db, g.deps.statements),
        workspaces,
        now: () => now,
      });
      const operator = { kind: 'operator' } as const;
      const early = await pairing.createCode(operator, { workspaceId });
      const late = await pairing.createCode(operator, { workspaceId });
      expect(early.expiresAt).toBe('2026-01-05T09:10:00.000Z');

      now = new Date('2026-01-05T09:09:59.999Z');
      const paired = await pairing.redeem({ code: early.code, deviceName: 'just in time' });
      expect(paired.workspaceId).toBe(workspaceId);
      await expect(pairing.redeem({ code: early.code, deviceName: 'twice' })).rejects.toMatchObject({
        code: 'pairing-code-invalid',
      });

      now = new Date('2026-01-05T09:10:00.000Z');
      await expect(pairing.redeem({ code: late.code, deviceName: 'too late' })).rejects.toMatchObject({
        code: 'pairing-code-invalid',
      });
      await expect(pairing.redeem({ code: 'not a code', deviceName: 'x' })).rejects.toMatchObject({
        code: 'pairing-code-invalid',
      });
    });
  });
});
