import { PortfolioResponse } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromDateString } from '../src/lib/clock.ts';
import { expectContract } from './support/contract.ts';
import { bearer, makeItem, makeProperty, makeTenancy, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// portfolio_summaries is kept by triggers, not computed per request. After each kind of write, the summary the
// API answers must equal the whole-portfolio aggregate it replaced (kept here as the reference).

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z' });
});
afterAll(async () => t?.close());

type Tenant = Awaited<ReturnType<typeof makeTenant>>;

async function apiSummary(tenant: Tenant) {
  const res = await request(t.app)
    .get('/api/assistant-bridge/portfolio?limit=1')
    .set(...bearer(tenant.key));
  expect(res.status).toBe(200);
  return expectContract(PortfolioResponse, res.body).summary;
}

/** The aggregate the bridge computed on every request before the summary was maintained. */
async function recomputed(tenantId: number) {
  const [s] = await t.db.$queryRaw<Array<Record<string, number | bigint>>>`
    WITH cur AS (
      SELECT DISTINCT ON (property_id) property_id, rent_pence, rent_frequency
        FROM tenancies WHERE tenant_id = ${tenantId} AND status <> 'ended'
       ORDER BY property_id, start_date DESC, id DESC)
    SELECT count(*)::int AS properties_total,
           coalesce(sum(p.units_total), 0)::int AS units_total,
           coalesce(sum(p.units_occupied), 0)::int AS units_occupied,
           coalesce(sum(p.arrears_pence), 0)::bigint AS arrears_pence,
           round(coalesce(sum(CASE cur.rent_frequency WHEN 'weekly' THEN cur.rent_pence * 52.0 / 12
                                                      WHEN 'annually' THEN cur.rent_pence / 12.0
                                                      ELSE cur.rent_pence END), 0))::bigint AS rent_roll,
           coalesce(sum(r.valid), 0)::int AS valid, coalesce(sum(r.expiring_soon), 0)::int AS expiring_soon,
           coalesce(sum(r.expired), 0)::int AS expired, coalesce(sum(r.missing), 0)::int AS missing,
           (SELECT count(*)::int FROM deals d WHERE d.tenant_id = ${tenantId} AND d.status = 'open') AS open_deals,
           (SELECT coalesce(sum(d.value_pence), 0)::bigint FROM deals d
             WHERE d.tenant_id = ${tenantId} AND d.status = 'open') AS pipeline
      FROM properties p
      LEFT JOIN cur ON cur.property_id = p.id
      LEFT JOIN property_compliance_rollups r ON r.tenant_id = p.tenant_id AND r.property_id = p.id
     WHERE p.tenant_id = ${tenantId}`;
  const n = (k: string) => Number(s![k]);
  return {
    properties_total: n('properties_total'),
    units_total: n('units_total'),
    units_occupied: n('units_occupied'),
    units_vacant: Math.max(0, n('units_total') - n('units_occupied')),
    occupancy_rate: n('units_total')
      ? Math.round((n('units_occupied') / n('units_total')) * 10_000) / 10_000
      : 0,
    rent_roll_monthly_pence: n('rent_roll'),
    arrears_pence: n('arrears_pence'),
    compliance: {
      valid: n('valid'),
      expiring_soon: n('expiring_soon'),
      expired: n('expired'),
      missing: n('missing'),
    },
    open_deals: n('open_deals'),
    pipeline_value_pence: n('pipeline'),
  };
}

async function expectSummaryTrue(tenant: Tenant) {
  const summary = await apiSummary(tenant);
  expect(summary).toEqual(await recomputed(tenant.id));
  return summary;
}

const deal = (tenantId: number, over: { status?: string; valuePence?: number | null } = {}) => ({
  tenantId,
  title: 'Deal',
  dealType: 'acquisition',
  stage: 'lead',
  ...over,
});

describe('the maintained portfolio summary', () => {
  it('stays right through inserts, updates and deletes of properties', async () => {
    const tenant = await makeTenant(t);
    expect((await expectSummaryTrue(tenant)).properties_total).toBe(0);
    const a = await makeProperty(t, tenant.id, { unitsTotal: 3, unitsOccupied: 2, arrearsPence: 1_500 });
    await makeProperty(t, tenant.id, { unitsTotal: 1, unitsOccupied: 0, arrearsPence: 0 });
    expect((await expectSummaryTrue(tenant)).units_total).toBe(4);
    await t.db.property.update({ where: { id: a.id }, data: { unitsOccupied: 3, arrearsPence: 99 } });
    await t.db.property.updateMany({
      where: { tenantId: tenant.id },
      data: { arrearsPence: { increment: 10 } },
    });
    expect((await expectSummaryTrue(tenant)).arrears_pence).toBe(109 + 10);
    await t.db.property.delete({ where: { id: a.id } });
    // the rollups have no foreign key: the delete trigger takes the property's rollup with it
    expect(await t.db.propertyComplianceRollup.count({ where: { propertyId: a.id } })).toBe(0);
    expect((await expectSummaryTrue(tenant)).properties_total).toBe(1);
  });

  it('stays right through changes of tenancies: the current one by start date, each rent frequency', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id);
    const q = await makeProperty(t, tenant.id);
    const old = await makeTenancy(t, tenant.id, p.id, { startDate: '2024-01-01', rentPence: 90_000 });
    await expectSummaryTrue(tenant);
    const cur = await makeTenancy(t, tenant.id, p.id, {
      startDate: '2025-06-01',
      rentPence: 30_001,
      rentFrequency: 'weekly',
    });
    await makeTenancy(t, tenant.id, q.id, { rentPence: 1_200_007, rentFrequency: 'annually' });
    expect((await expectSummaryTrue(tenant)).rent_roll_monthly_pence).toBe(
      Math.round(30_001 * (52 / 12) + 100_000.583),
    );
    await t.db.tenancy.update({ where: { id: cur.id }, data: { status: 'ended' } }); // the older one is current again
    await expectSummaryTrue(tenant);
    await t.db.tenancy.updateMany({ where: { tenantId: tenant.id }, data: { rentPence: { increment: 1 } } });
    await expectSummaryTrue(tenant);
    await t.db.tenancy.delete({ where: { id: old.id } });
    await expectSummaryTrue(tenant);
    await t.db.property.delete({ where: { id: q.id } }); // its tenancy goes with it
    expect((await expectSummaryTrue(tenant)).rent_roll_monthly_pence).toBe(0);
  });

  it('stays right through changes of deals', async () => {
    const tenant = await makeTenant(t);
    await t.db.deal.createMany({
      data: [deal(tenant.id, { valuePence: 500 }), deal(tenant.id, { valuePence: null }), deal(tenant.id)],
    });
    const won = await t.db.deal.create({ data: deal(tenant.id, { status: 'won', valuePence: 7 }) });
    expect(await expectSummaryTrue(tenant)).toMatchObject({ open_deals: 3, pipeline_value_pence: 500 });
    await t.db.deal.update({ where: { id: won.id }, data: { status: 'open' } });
    await t.db.deal.updateMany({
      where: { tenantId: tenant.id, valuePence: null },
      data: { valuePence: 40 },
    });
    expect(await expectSummaryTrue(tenant)).toMatchObject({ open_deals: 4, pipeline_value_pence: 587 });
    await t.db.deal.deleteMany({ where: { tenantId: tenant.id, valuePence: 500 } });
    expect(await expectSummaryTrue(tenant)).toMatchObject({ open_deals: 3, pipeline_value_pence: 87 });
  });

  it('stays right through changes of compliance items and when the London day changes', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id);
    const gas = await makeItem(t, tenant.id, p.id, 'gas_safety', { expiryDate: '2026-06-16' });
    await makeItem(t, tenant.id, p.id, 'eicr', { expiryDate: '2030-01-01' });
    expect((await expectSummaryTrue(tenant)).compliance).toEqual({
      valid: 1,
      expiring_soon: 1,
      expired: 0,
      missing: 3,
    });
    await t.db.complianceItem.update({ where: { id: gas.id }, data: { outcome: 'fail' } });
    await t.rollup.refreshProperties(tenant.id, [p.id]);
    expect((await expectSummaryTrue(tenant)).compliance.expired).toBe(1);
    await t.db.complianceItem.update({ where: { id: gas.id }, data: { outcome: null } });
    await t.rollup.refreshProperties(tenant.id, [p.id]);
    // 17 June in London: the gas certificate (due 16 June) has expired without any write
    t.clock.set('2026-06-17T08:00:00Z');
    try {
      expect((await expectSummaryTrue(tenant)).compliance).toEqual({
        valid: 1,
        expiring_soon: 0,
        expired: 1,
        missing: 3,
      });
      // a property added without evaluating it is evaluated by the next read
      await makeProperty(t, tenant.id, { lettingStatus: 'let' });
      expect((await expectSummaryTrue(tenant)).compliance.missing).toBe(3 + 5);
      await t.db.complianceItem.delete({ where: { id: gas.id } });
      await t.rollup.refreshProperties(tenant.id, [p.id]);
      expect((await expectSummaryTrue(tenant)).compliance.missing).toBe(4 + 5);
    } finally {
      t.clock.set('2026-06-15T09:00:00Z');
    }
  });

  it('keeps tenants apart, and a statement over several tenants updates each', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const pa = await makeProperty(t, a.id);
    const pb = await makeProperty(t, b.id);
    await t.db.property.updateMany({ where: { id: { in: [pa.id, pb.id] } }, data: { arrearsPence: 321 } });
    expect((await expectSummaryTrue(a)).arrears_pence).toBe(321);
    expect((await expectSummaryTrue(b)).arrears_pence).toBe(321);
    await t.db.tenancy.createMany({
      data: [pa, pb].map((p) => ({
        tenantId: p.tenantId,
        propertyId: p.id,
        status: 'active',
        startDate: fromDateString('2026-01-01'),
        rentPence: 50_000,
        rentFrequency: 'monthly',
      })),
    });
    expect((await expectSummaryTrue(a)).rent_roll_monthly_pence).toBe(50_000);
    expect((await expectSummaryTrue(b)).rent_roll_monthly_pence).toBe(50_000);
  });
});
