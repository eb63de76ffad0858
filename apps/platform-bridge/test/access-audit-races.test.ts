import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENDPOINTS_PER_TENANT } from '../src/features/webhooks/webhook-admin-service.ts';
import { createFlagAdmin } from '../src/features/tenants/flag-admin.ts';
import { makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';
import { webhookAdmin } from './support/webhooks.ts';

// Changes that read a tenant's state before writing, made at the same moment: the tenant-row lock makes them run
// one after the other, so the access audit follows every flag change and an endpoint's cap and URL hold.

let t: TestBridge;

beforeAll(async () => {
  t = await startTestBridge();
});
afterAll(async () => {
  await t?.close();
});

describe('flag switches at the same moment', () => {
  it("leave the access audit's last entry agreeing with the flag's final value", async () => {
    const tenant = await makeTenant(t, { flags: [] });
    const flags = createFlagAdmin({ db: t.db });
    const FLAG = 'assistant_bridge_writes';
    for (let round = 0; round < 8; round++) {
      await Promise.all([
        flags.set(tenant.id, FLAG, true, 'admin-a'),
        flags.set(tenant.id, FLAG, false, 'admin-b'),
      ]);
      const final = (await flags.list(tenant.id)).find((f) => f.name === FLAG)!.enabled;
      const last = await t.db.accessAuditEntry.findFirst({
        where: { tenantId: tenant.id, target: FLAG },
        orderBy: { id: 'desc' },
      });
      expect(last?.action, `round ${round}`).toBe(final ? 'flag.enabled' : 'flag.disabled');
    }
  });
});

describe('webhook endpoints added at the same moment', () => {
  it(`never go past ${MAX_ENDPOINTS_PER_TENANT} for a tenant`, async () => {
    const tenant = await makeTenant(t, { flags: [] });
    const admin = webhookAdmin(t);
    const results = await Promise.allSettled(
      Array.from({ length: MAX_ENDPOINTS_PER_TENANT + 2 }, (_, i) =>
        admin.addEndpointFor(tenant.id, tenant.slug, `http://127.0.0.1:9/hooks/${i}`, 'admin'),
      ),
    );
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(
      MAX_ENDPOINTS_PER_TENANT,
    );
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(2);
    for (const r of refused) expect((r.reason as { code?: string }).code).toBe('too-many-endpoints');
  });

  it('store one URL once', async () => {
    const tenant = await makeTenant(t, { flags: [] });
    const admin = webhookAdmin(t);
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () =>
        admin.addEndpointFor(tenant.id, tenant.slug, 'http://127.0.0.1:9/hooks/same', 'admin'),
      ),
    );
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(1);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected')) {
      expect((r.reason as { code?: string }).code).toBe('endpoint-exists');
    }
  });
});
