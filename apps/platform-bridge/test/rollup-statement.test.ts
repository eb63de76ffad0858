import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, fromDateString, londonDate } from '../src/lib/clock.ts';
import { toRulesItem, toRulesProperty } from '../src/features/compliance/compliance-mapper.ts';
import { evaluateProperty, TYPE_RULES } from '../src/features/compliance/compliance-rules.ts';
import { currentTenancy } from '../src/features/properties/property-repository.ts';
import type { Prisma } from '../src/generated/prisma/client.ts';
import { makeProperty, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// The rollups are written by SQL (rollup-statement.ts) while the compliance endpoint judges items with
// compliance-rules.ts: the two must agree on every property. This builds several hundred properties that vary
// every input the rules read (types, outcomes, EPC bands and exemptions, remedial dates, gas/HMO/letting status,
// tenancies and deposits, due dates on both sides of each type's window) and compares the rollups the statement
// wrote with evaluateProperty's verdicts, on several days.

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z' });
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
const OFFSETS = [-400, -29, -28, -27, -1, 0, 1, 6, 7, 8, 27, 28, 29, 30, 31, 59, 60, 61, 89, 90, 91, 92, 400];
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
        items.push({ tenantId, propertyId: p.id, type, issueDate: fromDateString(DAY0), expiryDate: expiry });
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

async function expectRollupsToMatchRules(tenantId: number) {
  const today = londonDate(t.clock.now());
  const properties = await t.db.property.findMany({
    where: { tenantId },
    orderBy: { id: 'asc' },
    include: { tenancies: currentTenancy, complianceItems: true, complianceRollup: true },
  });
  const mismatches = [];
  for (const p of properties) {
    const e = evaluateProperty(toRulesProperty(p), p.complianceItems.map(toRulesItem), today);
    const expected = { status: e.status, ...e.counts, evaluatedOn: today };
    const r = p.complianceRollup;
    const actual = r && {
      status: r.status,
      valid: r.valid,
      expiring_soon: r.expiringSoon,
      expired: r.expired,
      missing: r.missing,
      evaluatedOn: r.evaluatedOn.toISOString().slice(0, 10),
    };
    if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push({ id: p.id, expected, actual });
  }
  expect(mismatches).toEqual([]);
  return properties;
}

describe('the set-based rollup statement', () => {
  it("writes the rollups compliance-rules.ts's evaluateProperty gives, for every combination and day", async () => {
    const tenant = await makeTenant(t);
    await buildPortfolio(tenant.id, 400, 20260615);
    t.clock.set('2026-06-15T09:00:00Z');
    expect(await t.rollup.refreshStale(tenant.id)).toBe(400);
    const statuses = new Set<string | undefined>();
    const seen = async () => {
      for (const p of await expectRollupsToMatchRules(tenant.id)) statuses.add(p.complianceRollup?.status);
    };
    await seen();

    // later days move every item across its window's edges; 23:30 UTC on 15 June is already 16 June in London
    for (const now of ['2026-06-15T23:30:00Z', '2026-07-14T12:00:00Z', '2026-09-13T12:00:00Z']) {
      t.clock.set(now);
      expect(await t.rollup.refreshStale(tenant.id)).toBe(400);
      await seen();
      expect(await t.rollup.refreshStale(tenant.id)).toBe(0);
    }
    // the sample must actually reach every verdict, or the comparison proves little
    expect([...statuses].sort()).toEqual(['expired', 'expiring_soon', 'missing', 'valid']);
  }, 90_000); // 400 properties built one by one, on a machine shared with other test runs

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
    expect(await t.rollup.refreshStale(tenant.id)).toBe(17);
    await expectRollupsToMatchRules(tenant.id);
  });
});
