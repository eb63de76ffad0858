import { PortfolioResponse } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksum } from '../src/features/auth/api-key-format.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge();
});
afterAll(async () => t?.close());

const PORTFOLIO = '/api/assistant-bridge/portfolio';

function expectInvalidKey(res: request.Response) {
  expectProblem(res, 401, 'invalid-api-key');
  expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
}

describe('bridge authentication', () => {
  it('serves a valid key and records when it was last used', async () => {
    const tenant = await makeTenant(t);
    const res = await request(t.app)
      .get(PORTFOLIO)
      .set(...bearer(tenant.key));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expectContract(PortfolioResponse, res.body);
    await expect
      .poll(async () => (await t.db.apiKey.findUnique({ where: { id: tenant.keyId } }))?.lastUsedAt)
      .toBeInstanceOf(Date);
  });

  it('refuses a request without Authorization', async () => {
    expectInvalidKey(await request(t.app).get(PORTFOLIO));
  });

  it('asks for a key on paths and methods the bridge does not serve as well, and only then says 404', async () => {
    const tenant = await makeTenant(t);
    for (const call of [
      () => request(t.app).get('/api/assistant-bridge/no-such-path'),
      () => request(t.app).delete(PORTFOLIO),
    ]) {
      expectInvalidKey(await call());
      expectProblem(await call().set(...bearer(tenant.key)), 404, 'not-found');
    }
  });

  it.each([
    ['a non-bearer scheme', (k: string) => `Basic ${k}`],
    ['a bare key', (k: string) => k],
    ['Bearer with nothing after it', () => 'Bearer '],
    ['a key of the wrong shape', () => 'Bearer plat_short'],
    ['an admin key on the bridge', (k: string) => `Bearer ${k.replace('plat_', 'padm_')}`],
  ])('refuses %s', async (_name, header) => {
    const tenant = await makeTenant(t);
    expectInvalidKey(await request(t.app).get(PORTFOLIO).set('Authorization', header(tenant.key)));
  });

  it('refuses a key whose checksum does not match, without looking it up', async () => {
    const tenant = await makeTenant(t);
    const random = tenant.key.slice(5, 37);
    const flipped = random.slice(0, -1) + (random.endsWith('a') ? 'b' : 'a');
    const bad = `plat_${flipped}${tenant.key.slice(37)}`;
    expect(checksum(flipped)).not.toBe(tenant.key.slice(37));
    const res = await request(t.app)
      .get(PORTFOLIO)
      .set(...bearer(bad));
    expectInvalidKey(res);
    expect(res.body.detail).toMatch(/malformed/);
  });

  it('refuses an unknown key that has a valid checksum', async () => {
    const random = 'Z'.repeat(32);
    expectInvalidKey(
      await request(t.app)
        .get(PORTFOLIO)
        .set(...bearer(`plat_${random}${checksum(random)}`)),
    );
  });

  it('refuses a revoked key at once', async () => {
    const tenant = await makeTenant(t);
    expect(
      (
        await request(t.app)
          .get(PORTFOLIO)
          .set(...bearer(tenant.key))
      ).status,
    ).toBe(200);
    await t.admin.revokeKey(tenant.keyId);
    const res = await request(t.app)
      .get(PORTFOLIO)
      .set(...bearer(tenant.key));
    expectInvalidKey(res);
    expect(res.body.detail).toMatch(/not valid or has been revoked/);
  });

  it('never accepts a key in the query string, even alongside a valid header', async () => {
    const tenant = await makeTenant(t);
    for (const q of [
      `api_key=${tenant.key}`,
      `key=${tenant.key}`,
      `token=${tenant.key}`,
      `x=${tenant.key}`,
    ]) {
      expectInvalidKey(await request(t.app).get(`${PORTFOLIO}?${q}`));
      expectInvalidKey(
        await request(t.app)
          .get(`${PORTFOLIO}?${q}`)
          .set(...bearer(tenant.key)),
      );
    }
  });

  it('answers 403 insufficient-scope to a key without bridge:read', async () => {
    const tenant = await makeTenant(t, { scopes: ['bridge:propose'] });
    const res = await request(t.app)
      .get(PORTFOLIO)
      .set(...bearer(tenant.key));
    expectProblem(res, 403, 'insufficient-scope');
    expect(res.headers['www-authenticate']).toMatch(/insufficient_scope/);
  });
});

describe('the assistant_external_bridge flag', () => {
  const paths = [
    '/api/assistant-bridge/portfolio',
    '/api/assistant-bridge/properties/1',
    '/api/assistant-bridge/properties/1/compliance',
    '/api/assistant-bridge/deals',
    '/api/assistant-bridge/email-activity',
    '/api/assistant-bridge/mailboxes',
    '/api/assistant-bridge/no-such-path',
  ];

  it('off: every bridge path answers 404 bridge-not-enabled', async () => {
    const tenant = await makeTenant(t, { flags: [] });
    for (const path of paths)
      expectProblem(
        await request(t.app)
          .get(path)
          .set(...bearer(tenant.key)),
        404,
        'bridge-not-enabled',
      );
  });

  it('on: the bridge is served, and turning it off again takes effect on the next request', async () => {
    const tenant = await makeTenant(t);
    expect(
      (
        await request(t.app)
          .get(paths[0]!)
          .set(...bearer(tenant.key))
      ).status,
    ).toBe(200);
    expect(
      (
        await request(t.app)
          .get(paths[3]!)
          .set(...bearer(tenant.key))
      ).status,
    ).toBe(200);
    await t.admin.setFlag(tenant.slug, 'assistant_external_bridge', false);
    expectProblem(
      await request(t.app)
        .get(paths[0]!)
        .set(...bearer(tenant.key)),
      404,
      'bridge-not-enabled',
    );
  });

  it('other flags do not open the bridge', async () => {
    const tenant = await makeTenant(t, { flags: ['assistant_bridge_writes', 'platform_event_webhooks'] });
    expectProblem(
      await request(t.app)
        .get(paths[0]!)
        .set(...bearer(tenant.key)),
      404,
      'bridge-not-enabled',
    );
  });
});

describe('per-key rate limit', () => {
  it('answers 429 rate-limited with Retry-After and draft-8 headers once a key spends its budget', async () => {
    const limited = await startTestBridge({ rateLimitPerMin: 3 });
    try {
      const a = await makeTenant(limited);
      const b = await makeTenant(limited);
      for (let i = 0; i < 3; i++) {
        const ok = await request(limited.app)
          .get(PORTFOLIO)
          .set(...bearer(a.key));
        expect(ok.status).toBe(200);
        expect(ok.headers.ratelimit).toMatch(/^"per-key"; r=\d+; t=\d+$/);
        expect(ok.headers['ratelimit-policy']).toMatch(/^"per-key"; q=3; w=60; pk=:[A-Za-z0-9+/=]+:$/);
      }
      const res = await request(limited.app)
        .get(PORTFOLIO)
        .set(...bearer(a.key));
      expectProblem(res, 429, 'rate-limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // The budget is per key: another key is unaffected.
      expect(
        (
          await request(limited.app)
            .get(PORTFOLIO)
            .set(...bearer(b.key))
        ).status,
      ).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
