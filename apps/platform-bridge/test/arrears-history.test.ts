import { PortfolioResponse, Property } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TENANT_SLUG } from '../src/demo/demo-data.ts';
import { seedDemo } from '../src/demo/demo-seed.ts';
import { addDays, fromDateString, toDateString } from '../src/lib/clock.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeProperty, makeTenant } from './support/factories.ts';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

// A property's arrears history (property_arrears_days) is kept by a trigger dated by the database's London day,
// and read by the bridge against its own clock: the tests find the database's day, then move the bridge's clock
// to days after it to read "30 days ago".

const api = (t: TestBridge, key: string, path: string) =>
  request(t.app)
    .get(`/api/assistant-bridge${path}`)
    .set(...bearer(key));

async function databaseDay(t: TestBridge): Promise<string> {
  const [row] = await t.db.$queryRaw<[{ day: string }]>`
    SELECT to_char((now() AT TIME ZONE 'Europe/London')::date, 'YYYY-MM-DD') AS day`;
  return row.day;
}

async function history(t: TestBridge, propertyId: number) {
  const rows = await t.db.propertyArrearsDay.findMany({ where: { propertyId }, orderBy: { onDate: 'asc' } });
  return rows.map((r) => ({ tenantId: r.tenantId, on: toDateString(r.onDate), pence: r.arrearsPence }));
}

/** The bridge's clock at midday (UTC) of `day`, whose London date is `day` in every season. */
const setDay = (t: TestBridge, day: string) => t.clock.set(`${day}T12:00:00Z`);

describe.each(BRIDGE_BACKENDS)('arrears history on %s', (_name, backend) => {
  let t: TestBridge;
  let day: string;
  beforeAll(async () => {
    t = await startTestBridge({ backend });
    day = await databaseDay(t);
  });
  afterAll(async () => t?.close());

  it('records a new property’s arrears and every change, a day keeping its latest value', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id, { arrearsPence: 10_000 });
    expect(await history(t, p.id)).toEqual([{ tenantId: tenant.id, on: day, pence: 10_000 }]);

    await t.db.property.update({ where: { id: p.id }, data: { arrearsPence: 25_000 } });
    await t.db.property.update({ where: { id: p.id }, data: { arrearsPence: 40_000 } });
    // one row for the day, with its last value
    expect(await history(t, p.id)).toEqual([{ tenantId: tenant.id, on: day, pence: 40_000 }]);

    // 30 days on, today's last value is what the arrears were 30 days ago
    setDay(t, addDays(day, 30));
    const portfolio = expectContract(PortfolioResponse, (await api(t, tenant.key, '/portfolio')).body);
    expect(portfolio.properties).toHaveLength(1);
    expect(portfolio.properties[0]).toMatchObject({
      arrears_pence: 40_000,
      arrears_30_days_ago_pence: 40_000,
    });
    const property = expectContract(Property, (await api(t, tenant.key, `/properties/${p.id}`)).body);
    expect(property).toMatchObject({ arrears_pence: 40_000, arrears_30_days_ago_pence: 40_000 });

    // 29 days on, 30 days ago is the day before the history began: not known, not "none"
    setDay(t, addDays(day, 29));
    const earlier = expectContract(PortfolioResponse, (await api(t, tenant.key, '/portfolio')).body);
    expect(earlier.properties[0]!.arrears_30_days_ago_pence).toBeNull();
    const single = expectContract(Property, (await api(t, tenant.key, `/properties/${p.id}`)).body);
    expect(single.arrears_30_days_ago_pence).toBeNull();
  });

  it('writes nothing for an update that leaves the arrears alone', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id, { arrearsPence: 5_000 });
    await t.db.propertyArrearsDay.deleteMany({ where: { propertyId: p.id } });
    await t.db.property.update({ where: { id: p.id }, data: { line1: '2 Other Street', unitsOccupied: 0 } });
    await t.db.property.updateMany({ where: { tenantId: tenant.id }, data: { arrearsPence: 5_000 } });
    expect(await history(t, p.id)).toEqual([]);
  });

  it('reads the newest value on or before the day 30 days back, whatever came after', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id, { arrearsPence: 120_000 });
    // an older history, as days before the trigger's own row
    await t.db.propertyArrearsDay.createMany({
      data: [
        {
          tenantId: tenant.id,
          propertyId: p.id,
          onDate: fromDateString(addDays(day, -60)),
          arrearsPence: 30_000,
        },
        {
          tenantId: tenant.id,
          propertyId: p.id,
          onDate: fromDateString(addDays(day, -40)),
          arrearsPence: 75_000,
        },
      ],
    });
    const at = async (clockDay: string) => {
      setDay(t, clockDay);
      const body = expectContract(PortfolioResponse, (await api(t, tenant.key, '/portfolio')).body);
      return body.properties[0]!.arrears_30_days_ago_pence;
    };
    expect(await at(addDays(day, -5))).toBe(75_000); // 35 days back: the row 40 days back still stood
    expect(await at(addDays(day, -10))).toBe(75_000); // 30 days back is the row's own day
    expect(await at(addDays(day, -11))).toBe(30_000); // the day before it: the older row
    expect(await at(addDays(day, 40))).toBe(120_000);
    expect(await at(addDays(day, -91))).toBeNull(); // before the history began
  });

  it('keeps each tenant’s history to itself', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const pa = await makeProperty(t, a.id, { arrearsPence: 11_000 });
    const pb = await makeProperty(t, b.id, { arrearsPence: 22_000 });
    await t.db.property.update({ where: { id: pb.id }, data: { arrearsPence: 33_000 } });
    expect(await history(t, pa.id)).toEqual([{ tenantId: a.id, on: day, pence: 11_000 }]);
    expect(await history(t, pb.id)).toEqual([{ tenantId: b.id, on: day, pence: 33_000 }]);

    setDay(t, addDays(day, 30));
    const ofA = expectContract(PortfolioResponse, (await api(t, a.key, '/portfolio')).body);
    expect(ofA.properties.map((p) => [p.id, p.arrears_30_days_ago_pence])).toEqual([[pa.id, 11_000]]);
    const ofB = expectContract(Property, (await api(t, b.key, `/properties/${pb.id}`)).body);
    expect(ofB.arrears_30_days_ago_pence).toBe(33_000);
    // another tenant's property is not found, history and all
    expectProblem(await api(t, a.key, `/properties/${pb.id}`), 404, 'property-not-found');

    // a deleted property takes its history with it
    await t.db.property.delete({ where: { id: pa.id } });
    expect(await history(t, pa.id)).toEqual([]);
  });
});

describe('the demo’s arrears history', () => {
  const TODAY = '2026-06-15';
  let t: TestBridge;
  let portfolio: PortfolioResponse;
  beforeAll(async () => {
    t = await startTestBridge({ now: `${TODAY}T09:00:00Z` });
    await seedDemo({ db: t.db, clock: t.clock });
    const key = (await t.admin.createKey(DEMO_TENANT_SLUG)).key;
    portfolio = expectContract(PortfolioResponse, (await api(t, key, '/portfolio')).body);
  });
  afterAll(async () => t?.close());
  const byRef = (ref: string) => portfolio.properties.find((p) => p.ref === ref)!;

  it('has arrears that grew, fell and stayed over the last 30 days, dated by the seeding clock', () => {
    expect(byRef('MAN-004')).toMatchObject({ arrears_pence: 115_000, arrears_30_days_ago_pence: 70_000 });
    expect(byRef('LDS-004')).toMatchObject({ arrears_pence: 28_500, arrears_30_days_ago_pence: 57_000 });
    expect(byRef('LON-005')).toMatchObject({ arrears_pence: 64_000, arrears_30_days_ago_pence: 64_000 });
    // the rest start their history on the seeding day: 30 days ago is not known
    const others = portfolio.properties.filter((p) => !['MAN-004', 'LDS-004', 'LON-005'].includes(p.ref));
    expect(others.length).toBeGreaterThan(20);
    expect(others.every((p) => p.arrears_30_days_ago_pence === null)).toBe(true);
  });

  it('dates the history by the seeding clock, not the database’s', async () => {
    const man004 = byRef('MAN-004');
    expect(await history(t, man004.id)).toEqual([
      { tenantId: expect.any(Number), on: addDays(TODAY, -80), pence: 56_000 },
      { tenantId: expect.any(Number), on: addDays(TODAY, -45), pence: 70_000 },
      { tenantId: expect.any(Number), on: addDays(TODAY, -12), pence: 115_000 },
    ]);
    const quiet = byRef('MAN-001');
    expect(await history(t, quiet.id)).toEqual([{ tenantId: expect.any(Number), on: TODAY, pence: 0 }]);
  });
});
