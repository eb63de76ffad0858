import type { LookupAddress } from 'node:dns';
import {
  AccessAuditResponse,
  CreateRemoteKeyResponse,
  CreateWebhookEndpointResponse,
  RemoteKeysResponse,
} from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/contract.ts';
import { ADMIN, as, makeAccessTenant } from './support/remote-access.ts';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';
import { TEST_SECRET_KEY } from './support/webhooks.ts';

// The remote-access write paths on both databases the bridge runs on: `npm start`'s embedded PGlite meets the
// same transactions, row locks (the last access admin) and conditional UPDATE (last use) as PostgreSQL.

const dns = async (hostname: string): Promise<LookupAddress[]> => {
  if (hostname === 'hooks.example') return [{ address: '93.184.216.34', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

describe.each(BRIDGE_BACKENDS)('remote access on %s', (_name, backend) => {
  let t: TestBridge;
  beforeAll(async () => {
    t = await startTestBridge({
      backend,
      webhooks: { secretKey: TEST_SECRET_KEY, policy: { allowHttpLoopback: false, resolver: dns } },
    });
  });
  afterAll(async () => t?.close());

  it('creates and revokes a key, switches a flag, adds and removes an endpoint, and audits each', async () => {
    const tenant = await makeAccessTenant(t, { flags: [] });
    const admin = as(t, tenant.adminKey);

    const created = expectContract(
      CreateRemoteKeyResponse,
      (await admin.post(`${ADMIN}/remote-keys`, { label: 'Assistant', scopes: ['bridge:read'] })).body,
    );
    expect((await admin.put(`${ADMIN}/flags/assistant_external_bridge`, { enabled: true })).status).toBe(200);
    expect((await as(t, created.secret).get('/api/assistant-bridge/portfolio')).status).toBe(200);
    await expect
      .poll(
        async () =>
          expectContract(RemoteKeysResponse, (await admin.get(`${ADMIN}/remote-keys`)).body).keys.find(
            (k) => k.id === created.key.id,
          )?.last_used_at,
        { timeout: 10_000 },
      )
      .toBe(t.clock.now().toISOString());
    expect((await admin.post(`${ADMIN}/remote-keys/${created.key.id}/revoke`)).status).toBe(200);
    expectProblem(await as(t, created.secret).get('/api/assistant-bridge/portfolio'), 401, 'invalid-api-key');

    const { endpoint } = expectContract(
      CreateWebhookEndpointResponse,
      (await admin.post(`${ADMIN}/webhook-endpoints`, { url: 'https://hooks.example/e' })).body,
    );
    expect((await admin.delete(`${ADMIN}/webhook-endpoints/${endpoint.id}`)).status).toBe(204);

    expectProblem(
      await admin.post(`${ADMIN}/admin-keys/${tenant.adminKeyId}/revoke`, {}),
      409,
      'last-access-admin',
    );

    const { entries } = expectContract(AccessAuditResponse, (await admin.get(`${ADMIN}/access-audit`)).body);
    expect(entries.filter((e) => e.actor === tenant.adminEmail).map((e) => e.action)).toEqual([
      'webhook-endpoint.removed',
      'webhook-endpoint.added',
      'remote-key.revoked',
      'flag.enabled',
      'remote-key.created',
    ]);
  });
});
