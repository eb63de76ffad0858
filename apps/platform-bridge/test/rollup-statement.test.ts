import { PlatformEvent } from '@pa/contracts';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../src/config.ts';
import { addDays, fromDateString, londonDate } from '../src/lib/clock.ts';
import { toRulesItem, toRulesProperty } from '../src/features/compliance/compliance-mapper.ts';
import { evaluateProperty, TYPE_RULES } from '../src/features/compliance/compliance-rules.ts';
import { TYPE_BITS } from '../src/features/compliance/rollup-statement.ts';
import { currentTenancy } from '../src/features/compliance/current-tenancy.ts';
import type { Prisma } from '../src/generated/prisma/client.ts';
import { makeItem, makeProperty, makeTenant } from './support/factories.ts';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';
import { scaled } from '@pa/http-kit/testing';

// The rollups are written by SQL (rollup-statement.ts) while the compliance endpoint judges items with
// compliance-rules.ts: the two must agree on every property. This builds several hundred properties that vary
// every input the rules read (types, outcomes, EPC bands and exemptions, remedial dates, gas/HMO/letting status,
// tenancies and deposits, due dates on both sides of each type's window) and compares the rollups the statement
// wrote with evaluateProperty's verdicts, and the compliance.status_changed events it wrote with the items whose
// verdict changed, on several days. The last tests race the daily refresh with a second, real transaction.

describe.each(BRIDGE_BACKENDS)('compliance rollups on %s', (_name, backend) => {
  let t: TestBridge;
  beforeAll(async () => {
    t = await startTestBridge({ now: '2026-06-15T09:00:00Z', backend });
  });
  afterAll(async () => t?.close());

  /** A small deterministic generator, so that a failure can be replayed. */
  function random(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
      return s / 2 ** 32;
    };
    return {
      pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
      chance: (p: number) => next() < p,
    };
  }

  const TYPES = Object.keys(TYPE_RULES);
  // Offsets from the first test day that fall on both sides of every window's edge (7, 28, 30, 60, 90 days) and of
  // the 28-day alarm lead; the later test days move every edge again.
  const OFFSETS = [
    -400, -29, -28, -27, -1, 0, 1, 6, 7, 8, 27, 28, 29, 30, 31, 59, 60, 61, 89, 90, 91, 92, 400,
  ];
  const DAY0 = '2026-06-15';

  function date(r: ReturnType<typeof random>, nullChance = 0.3): Date | null {
    return r.chance(nullChance) ? null : fromDateString(addDays(DAY0, r.pick(OFFSETS)));
  }

  async function buildPortfolio(tenantId: number, count: number, seed: number) {
    const r = random(seed);
    const items: Prisma.ComplianceItemCreateManyInput[] = [];
    const tenancies: Prisma.TenancyCreateManyInput[] = [];
    for (let n = 0; n < count; n++) {
      const p = await makeProperty(t, tenantId, {
        lettingStatus: r.pick(['let', 'notice_given', 'under_offer', 'vacant', 'void', 'available']),
        hasGas: r.chance(0.6),
        isHmo: r.chance(0.3),
      });
      const tenancyCount = r.pick([0, 0, 1, 1, 2]);
      for (let k = 0; k < tenancyCount; k++) {
        tenancies.push({
          tenantId,
          propertyId: p.id,
          status: r.pick(['active', 'pending', 'notice_given', 'ended']),
          startDate: fromDateString(addDays(DAY0, r.pick([-400, -40, -10, 0, 20]))),
          rentPence: 100_000,
          rentFrequency: 'monthly',
          depositPence: r.pick([null, 0, 150_000]),
        });
      }
      // some properties hold only sound certificates, so that whole properties also come out valid
      const sound = r.chance(0.2);
      for (const type of TYPES) {
        if (!r.chance(0.65)) continue;
        if (sound) {
          const expiry = fromDateString(addDays(DAY0, r.pick([400, 25])));
          items.push({
            tenantId,
            propertyId: p.id,
            type,
            issueDate: fromDateString(DAY0),
            expiryDate: expiry,
          });
          continue;
        }
        items.push({
          tenantId,
          propertyId: p.id,
          type,
          issueDate: date(r),
          expiryDate: date(r),
          nextDueDate: date(r, 0.6),
          outcome: r.pick([null, null, 'pass', 'satisfactory', 'fail', 'unsatisfactory', 'unsatisfactory']),
          rating: r.pick([null, 'A', 'C', 'E', 'F', 'G']),
          remedialDueDate: date(r, 0.4),
          exemptionValidUntil: date(r, 0.5),
        });
      }
    }
    await t.db.tenancy.createMany({ data: tenancies });
    await t.db.complianceItem.createMany({ data: items });
  }

  type Rollup = Awaited<ReturnType<TestBridge['db']['propertyComplianceRollup']['findMany']>>[number];
  const rollupsById = async (tenantId: number) =>
    new Map(
      (await t.db.propertyComplianceRollup.findMany({ where: { tenantId } })).map((r) => [r.propertyId, r]),
    );
  const figures = (r: Rollup) => ({
    status: r.status,
    valid: r.valid,
    expiring_soon: r.expiringSoon,
    expired: r.expired,
    missing: r.missing,
    expiring_types: r.expiringTypes,
    expired_types: r.expiredTypes,
  });
  /** The types (as the rollups' bits) of the evaluated items in `status`. */
  const typesIn = (items: Array<{ item: { type: string }; status: string }>, status: string) =>
    items
      .filter((e) => e.status === status)
      .reduce((mask, e) => mask | TYPE_BITS[e.item.type as keyof typeof TYPE_BITS], 0);

  /** Each item's status by compliance-rules.ts on the clock's London day. */
  async function itemStatuses(tenantId: number) {
    const today = londonDate(t.clock.now());
    const properties = await t.db.property.findMany({
      where: { tenantId },
      include: { tenancies: currentTenancy, complianceItems: true },
    });
    const statuses = new Map<number, string>();
    for (const p of properties) {
      const evaluated = evaluateProperty(toRulesProperty(p), p.complianceItems.map(toRulesItem), today).items;
      evaluated.forEach((e, i) => statuses.set(p.complianceItems[i]!.id, e.status));
    }
    return statuses;
  }

  /** The compliance.status_changed events in the tenant's outbox after event `afterId`, as [item, from, to]. */
  async function statusEvents(tenantId: number, afterId: number) {
    const rows = await t.db.outboxEvent.findMany({
      where: { tenantId, id: { gt: afterId } },
      orderBy: { id: 'asc' },
    });
    return rows
      .map((r) => PlatformEvent.parse(r.payload))
      .flatMap((e) =>
        e.type === 'compliance.status_changed'
          ? [[e.data.item_id, e.data.previous_status, e.data.status]]
          : [],
      )
      .sort((a, b) => Number(a[0]) - Number(b[0]));
  }

  async function expectRollupsToMatchRules(tenantId: number) {
    const today = londonDate(t.clock.now());
    const properties = await t.db.property.findMany({
      where: { tenantId },
      orderBy: { id: 'asc' },
      include: { tenancies: currentTenancy, complianceItems: true },
    });
    const rollups = await rollupsById(tenantId);
    const mismatches = [];
    for (const p of properties) {
      const e = evaluateProperty(toRulesProperty(p), p.complianceItems.map(toRulesItem), today);
      const expected = {
        status: e.status,
        ...e.counts,
        expiring_types: typesIn(e.items, 'expiring_soon'),
        expired_types: typesIn(e.items, 'expired'),
      };
      const r = rollups.get(p.id);
      const actual = r && figures(r);
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        mismatches.push({ id: p.id, expected, actual });
    }
    expect(mismatches).toEqual([]);
    return rollups;
  }

  /**
   * Resolves once a backend of this test file's database waits on a lock (asked outside the transaction holding
   * it: inside one, pg_stat_activity answers from the snapshot its first read took).
   */
  async function untilWaitingOnLock() {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const [row] = await t.db.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if (row!.n > 0) return;
      if (Date.now() > deadline) throw new Error('nothing waited on the other transaction');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * Runs the tenant-wide refresh while another transaction has made `write` and not committed: the refresh waits on
   * it, then that transaction commits. Resolves to what the refresh returned.
   */
  async function refreshWhileAnotherWrites(tenantId: number, write: string, params: unknown[]) {
    const other = new pg.Client({ connectionString: t.databaseUrl });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(write, params);
      const refresh = t.rollup.refreshStale(tenantId);
      await untilWaitingOnLock();
      await other.query('COMMIT');
      return await refresh;
    } finally {
      await other.end();
    }
  }

  /** A tenant with events on and one vacant property whose gas safety certificate expires on 30 August 2026. */
  async function tenantWithGasDue() {
    const tenant = await makeTenant(t, { flags: ['assistant_external_bridge', 'platform_event_webhooks'] });
    const property = await makeProperty(t, tenant.id, { lettingStatus: 'vacant' });
    const gas = await makeItem(t, tenant.id, property.id, 'gas_safety', { expiryDate: '2026-08-30' });
    return { tenant, property, gas };
  }

  const fullDay = async (tenantId: number) =>
    (await t.db.portfolioSummary.findUnique({ where: { tenantId } }))?.rollupsFullDay
      ?.toISOString()
      .slice(0, 10) ?? null;

  describe('the type bits the rollups store', () => {
    it('keep the bits the migration stored them with, one distinct bit per type', () => {
      // rollups store sets of types as these bits (expiring_types, expired_types): renumbering a type would misread them
      const migration = fs.readFileSync(
        path.join(MIGRATIONS_DIR, '20261126035159_rollup_full_day/migration.sql'),
        'utf8',
      );
      const stored = Object.fromEntries(
        [...migration.matchAll(/\('([a-z_]+)', (\d+)\)/g)].map(([, type, bit]) => [type, Number(bit)]),
      );
      expect(Object.keys(stored)).toHaveLength(10);
      expect(TYPE_BITS).toMatchObject(stored);
      const bits = Object.values(TYPE_BITS);
      expect(new Set(bits).size).toBe(bits.length);
      for (const bit of bits) expect(bit & (bit - 1), `${bit} is one bit`).toBe(0);
    });
  });

  describe('the set-based rollup statement', () => {
    it(
      "writes the rollups compliance-rules.ts's evaluateProperty gives, for every combination and day",
      async () => {
        const tenant = await makeTenant(t, {
          flags: ['assistant_external_bridge', 'platform_event_webhooks'],
        });
        await buildPortfolio(tenant.id, 400, 20260615);
        t.clock.set('2026-06-15T09:00:00Z');
        expect(await t.rollup.refreshStale(tenant.id)).toBe(400);
        // a first evaluation is a baseline: no events
        expect(await statusEvents(tenant.id, 0)).toEqual([]);
        let lastEvent = (await t.db.outboxEvent.aggregate({ _max: { id: true } }))._max.id ?? 0;
        let previousStatuses = await itemStatuses(tenant.id);
        const statuses = new Set<string>();
        const seen = async () => {
          const rollups = await expectRollupsToMatchRules(tenant.id);
          for (const r of rollups.values()) statuses.add(r.status);
          return rollups;
        };
        let before = await seen();
        expect(await fullDay(tenant.id)).toBe('2026-06-15');

        // later days move every item across its window's edges; 23:30 UTC on 15 June is already 16 June in London
        for (const [now, day] of [
          ['2026-06-15T23:30:00Z', '2026-06-16'],
          ['2026-07-14T12:00:00Z', '2026-07-14'],
          ['2026-09-13T12:00:00Z', '2026-09-13'],
        ] as const) {
          t.clock.set(now);
          expect(await t.rollup.refreshStale(tenant.id)).toBe(400);
          const after = await seen();
          // one event for each item that entered expiring_soon or expired since the last evaluation, from its status
          // then
          const statuses = await itemStatuses(tenant.id);
          const entered = [...statuses]
            .filter(([id, status]) => status !== 'valid' && status !== previousStatuses.get(id))
            .map(([id, status]) => [id, previousStatuses.get(id), status])
            .sort((a, b) => Number(a[0]) - Number(b[0]));
          expect(entered.length).toBeGreaterThan(0);
          expect(await statusEvents(tenant.id, lastEvent)).toEqual(entered);
          lastEvent = (await t.db.outboxEvent.aggregate({ _max: { id: true } }))._max.id ?? lastEvent;
          previousStatuses = statuses;
          expect(await fullDay(tenant.id)).toBe(day);
          // only the rollups whose figures (or types in each status) changed were written that day
          let rewritten = 0;
          for (const [id, r] of after) {
            const b = before.get(id)!;
            const same = JSON.stringify(figures(b)) === JSON.stringify(figures(r));
            expect(r.evaluatedOn.toISOString().slice(0, 10)).toBe(
              same ? b.evaluatedOn.toISOString().slice(0, 10) : day,
            );
            if (!same) rewritten++;
          }
          expect(rewritten).toBeGreaterThan(0);
          expect(rewritten).toBeLessThan(400);
          expect(await t.rollup.refreshStale(tenant.id)).toBe(0);
          before = after;
        }
        // the sample must actually reach every verdict, or the comparison proves little
        expect([...statuses].sort()).toEqual(['expired', 'expiring_soon', 'missing', 'valid']);
      },
      scaled(90_000),
    ); // 400 properties built one by one, on a machine shared with other test runs

    it('refreshProperties rewrites only the properties named, within the tenant', async () => {
      t.clock.set('2026-06-15T09:00:00Z');
      const tenant = await makeTenant(t);
      const other = await makeTenant(t);
      await buildPortfolio(tenant.id, 20, 7);
      await buildPortfolio(other.id, 5, 8);
      const ids = (
        await t.db.property.findMany({ where: { tenantId: tenant.id }, orderBy: { id: 'asc' } })
      ).map((p) => p.id);
      const otherIds = (await t.db.property.findMany({ where: { tenantId: other.id } })).map((p) => p.id);
      // another tenant's ids are ignored
      expect(await t.rollup.refreshProperties(tenant.id, [...ids.slice(0, 3), ...otherIds])).toBe(3);
      expect(await t.db.propertyComplianceRollup.count({ where: { tenantId: tenant.id } })).toBe(3);
      expect(await t.db.propertyComplianceRollup.count({ where: { tenantId: other.id } })).toBe(0);
      // the tenant's portfolio was never evaluated as a whole: the daily refresh evaluates all of it
      expect(await fullDay(tenant.id)).toBe(null);
      expect(await t.rollup.refreshStale(tenant.id)).toBe(20);
      await expectRollupsToMatchRules(tenant.id);
      expect(await fullDay(tenant.id)).toBe('2026-06-15');
      // then, the same day, only a property added without a rollup
      await makeProperty(t, tenant.id);
      expect(await t.rollup.refreshStale(tenant.id)).toBe(1);
      expect(await t.rollup.refreshStale(tenant.id)).toBe(0);
      await expectRollupsToMatchRules(tenant.id);
    });

    // PostgreSQL only: another connection's uncommitted write (the embedded database is one session)
    if (backend === 'postgres') {
      it('a daily refresh that meets a rollup another transaction is storing waits, fails on the key and runs again', async () => {
        t.clock.set('2026-06-15T09:00:00Z');
        const tenant = await makeTenant(t);
        await buildPortfolio(tenant.id, 3, 11);
        const [first] = await t.db.property.findMany({
          where: { tenantId: tenant.id },
          orderBy: { id: 'asc' },
        });
        // another transaction stores the first property's rollup (wrong figures, yesterday's): the refresh's insert
        // waits for it on the key, fails once it commits, and the second attempt finds that rollup and rewrites it
        expect(
          await refreshWhileAnotherWrites(
            tenant.id,
            `INSERT INTO property_compliance_rollups
                  (tenant_id, property_id, status, valid, expiring_soon, expired, missing, evaluated_on)
           VALUES ($1, $2, 'valid', 9, 9, 9, 9, '2026-06-14')`,
            [tenant.id, first!.id],
          ),
        ).toBe(3);
        await expectRollupsToMatchRules(tenant.id);
        expect(await fullDay(tenant.id)).toBe('2026-06-15');
      });
    }

    // PostgreSQL only: another connection's uncommitted write (the embedded database is one session)
    if (backend === 'postgres') {
      it("a daily refresh leaves a rollup a writer stored meanwhile, and the writer's events, to the writer", async () => {
        // gas safety due 30 August: valid on 15 June, within its 60-day window from 1 July
        t.clock.set('2026-06-15T09:00:00Z');
        const { tenant, property, gas } = await tenantWithGasDue();
        expect(await t.rollup.refreshStale(tenant.id)).toBe(1);
        t.clock.set('2026-07-01T09:00:00Z');
        // a writer has stored the property's rollup for 1 July (and reported the item's change) but not committed
        expect(
          await refreshWhileAnotherWrites(
            tenant.id,
            `UPDATE property_compliance_rollups
              SET status = 'expiring_soon', valid = 0, expiring_soon = 1, expiring_types = $3,
                  evaluated_on = '2026-07-01'
            WHERE tenant_id = $1 AND property_id = $2`,
            [tenant.id, property.id, TYPE_BITS.gas_safety],
          ),
        ).toBe(1);
        // the refresh evaluated the property, found the writer's rollup (of its day) and reported nothing itself
        expect(await statusEvents(tenant.id, 0)).toEqual([]);
        await expectRollupsToMatchRules(tenant.id);

        // without the writer, the same days' refreshes report the item once
        t.clock.set('2026-06-15T09:00:00Z');
        const again = await tenantWithGasDue();
        await t.rollup.refreshStale(again.tenant.id);
        t.clock.set('2026-07-01T09:00:00Z');
        await t.rollup.refreshStale(again.tenant.id);
        expect(await statusEvents(again.tenant.id, 0)).toEqual([[again.gas.id, 'valid', 'expiring_soon']]);
        expect(gas.id).not.toBe(again.gas.id);
      });
    }
  });
});
