import { createLogger } from '@pa/http-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRollupRefresher } from '../src/features/compliance/rollup-refresher.ts';
import { makeItem, makeProperty, makeTenant } from './support/factories.ts';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

// 22:30 UTC on 15 June is 23:30 in London (BST): half an hour before the London date changes.
describe.each(BRIDGE_BACKENDS)('rollup refresher on %s', (_name, backend) => {
  let t: TestBridge;
  beforeAll(async () => {
    t = await startTestBridge({ now: '2026-06-15T22:30:00Z', backend });
  });
  afterAll(async () => t?.close());

  const rollupsOf = (tenantId: number) =>
    t.db.propertyComplianceRollup.findMany({ where: { tenantId }, orderBy: { propertyId: 'asc' } });

  describe('the daily compliance rollup refresher', () => {
    it('brings every tenant to the new London day just after midnight, once per day', async () => {
      const a = await makeTenant(t, { name: 'Refresh A' });
      const b = await makeTenant(t, { name: 'Refresh B' });
      for (const tenant of [a, b]) {
        const p = await makeProperty(t, tenant.id);
        // due on 15 June: still in date that day, expired from 16 June
        await makeItem(t, tenant.id, p.id, 'gas_safety', { expiryDate: '2026-06-15' });
      }
      let refreshes = 0;
      const refresher = startRollupRefresher({
        db: t.db,
        rollup: {
          ...t.rollup,
          refreshStale: (id) => {
            refreshes++;
            return t.rollup.refreshStale(id);
          },
        },
        logger: createLogger('platform-bridge', 'silent'),
        checkEveryMs: 3_600_000, // the test calls tick() itself
      });
      try {
        await refresher.tick(); // the run started with the refresher
        const tenants = await t.db.tenant.count();
        expect(refreshes).toBe(tenants);
        for (const tenant of [a, b]) {
          expect(
            (await rollupsOf(tenant.id)).map((r) => [r.evaluatedOn.toISOString().slice(0, 10), r.expired]),
          ).toEqual([['2026-06-15', 0]]);
        }

        await refresher.tick(); // same London day: nothing to do
        expect(refreshes).toBe(tenants);

        t.clock.set('2026-06-15T23:05:00Z'); // 00:05 on 16 June in London
        await refresher.tick();
        expect(refreshes).toBe(2 * tenants);
        for (const tenant of [a, b]) {
          expect(
            (await rollupsOf(tenant.id)).map((r) => [r.evaluatedOn.toISOString().slice(0, 10), r.expired]),
          ).toEqual([['2026-06-16', 1]]);
        }
      } finally {
        await refresher.stop();
      }
    });

    it('a read that finds rollups stale while a refresh runs waits for that refresh instead of repeating it', async () => {
      const tenant = await makeTenant(t, { name: 'Shared Refresh' });
      await makeProperty(t, tenant.id);
      t.clock.set('2026-06-17T09:00:00Z');
      const first = t.rollup.refreshStale(tenant.id);
      const second = t.rollup.refreshStale(tenant.id);
      expect(second).toBe(first);
      expect(await first).toBeGreaterThanOrEqual(1);
      // once it is over, a later call starts afresh (and finds nothing stale)
      const third = t.rollup.refreshStale(tenant.id);
      expect(third).not.toBe(first);
      expect(await third).toBe(0);
    });
  });
});
