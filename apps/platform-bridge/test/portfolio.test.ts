import { PortfolioResponse } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeItem, makeProperty, makeTenancy, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z' });
});
afterAll(async () => t?.close());

const PORTFOLIO = '/api/assistant-bridge/portfolio';

describe('GET /portfolio', () => {
  it('summarises the whole portfolio', async () => {
    const tenant = await makeTenant(t, { name: 'Summary Lettings' });
    const a = await makeProperty(t, tenant.id, { unitsTotal: 1, unitsOccupied: 1, arrearsPence: 25_000 });
    await makeTenancy(t, tenant.id, a.id, { rentPence: 120_000, rentFrequency: 'monthly' });
    const b = await makeProperty(t, tenant.id, {
      unitsTotal: 5,
      unitsOccupied: 3,
      isHmo: true,
      propertyType: 'hmo',
    });
    await makeTenancy(t, tenant.id, b.id, {
      rentPence: 30_000,
      rentFrequency: 'weekly',
      status: 'notice_given',
      endDate: new Date('2026-07-31T00:00:00Z'),
    });
    // An ended tenancy does not count towards the rent roll.
    await makeTenancy(t, tenant.id, b.id, { rentPence: 99_999, status: 'ended', startDate: '2020-01-01' });
    await makeProperty(t, tenant.id, { lettingStatus: 'void', unitsTotal: 1, unitsOccupied: 0 });
    await makeItem(t, tenant.id, a.id, 'gas_safety', { expiryDate: '2026-06-01' }); // expired
    await makeItem(t, tenant.id, a.id, 'eicr', { expiryDate: '2026-08-01' }); // expiring soon (47 d)
    await makeItem(t, tenant.id, a.id, 'epc', { expiryDate: '2030-01-01', rating: 'C' }); // valid
    await t.db.deal.createMany({
      data: [
        {
          tenantId: tenant.id,
          title: 'Buy 1',
          dealType: 'acquisition',
          stage: 'offer',
          valuePence: 20_000_000,
        },
        {
          tenantId: tenant.id,
          title: 'Buy 2',
          dealType: 'acquisition',
          stage: 'lead',
          valuePence: 5_000_000,
        },
        {
          tenantId: tenant.id,
          title: 'Sold',
          dealType: 'disposal',
          stage: 'completed',
          status: 'won',
          valuePence: 1,
        },
      ],
    });

    const res = await request(t.app)
      .get(PORTFOLIO)
      .set(...bearer(tenant.key));
    expect(res.status).toBe(200);
    const body = expectContract(PortfolioResponse, res.body);
    expect(body.tenant).toEqual({ slug: tenant.slug, name: 'Summary Lettings' });
    expect(body.as_of).toBe('2026-06-15T09:00:00.000Z');
    expect(body.summary).toEqual({
      properties_total: 3,
      units_total: 7,
      units_occupied: 4,
      units_vacant: 3,
      occupancy_rate: 0.5714,
      rent_roll_monthly_pence: 120_000 + 130_000, // £300/week = £1,300/month
      arrears_pence: 25_000,
      // a: 1 expired, 1 expiring, 1 valid, missing smoke/legionella/deposit? (no deposit) → 2 missing;
      // b (let HMO with gas): nothing recorded → 7 missing; the void property needs nothing.
      compliance: { valid: 1, expiring_soon: 1, expired: 1, missing: 2 + 7 },
      open_deals: 2,
      pipeline_value_pence: 25_000_000,
    });
    const [pa, pb, pc] = body.properties;
    expect(pa).toMatchObject({
      id: a.id,
      compliance_status: 'missing',
      rent_pence: 120_000,
      rent_frequency: 'monthly',
      arrears_pence: 25_000,
      units_total: 1,
      units_occupied: 1,
      tenancy_status: 'active',
    });
    expect(pb).toMatchObject({
      id: b.id,
      is_hmo: true,
      rent_pence: 30_000,
      rent_frequency: 'weekly',
      arrears_pence: 0,
      units_total: 5,
      units_occupied: 3,
      tenancy_status: 'notice_given',
      tenancy_end_date: '2026-07-31',
      // every current tenancy is periodic from 1 May 2026 (Renters' Rights Act 2025)
      tenancy_is_periodic: true,
    });
    expect(pc).toMatchObject({
      letting_status: 'void',
      compliance_status: 'valid',
      rent_pence: null,
      units_occupied: 0,
      tenancy_status: null,
      tenancy_end_date: null,
      tenancy_is_periodic: null,
    });
    expect(body.next_cursor).toBeNull();
  });

  it('re-evaluates compliance when the London date changes', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id, { lettingStatus: 'void' });
    await makeItem(t, tenant.id, p.id, 'gas_safety', { expiryDate: '2026-09-01' }); // 78 days: valid
    const before = expectContract(
      PortfolioResponse,
      (
        await request(t.app)
          .get(PORTFOLIO)
          .set(...bearer(tenant.key))
      ).body,
    );
    expect(before.properties[0]!.compliance_status).toBe('valid');
    t.clock.set('2026-07-10T09:00:00Z'); // 53 days before: inside the 60-day window
    try {
      const after = expectContract(
        PortfolioResponse,
        (
          await request(t.app)
            .get(PORTFOLIO)
            .set(...bearer(tenant.key))
        ).body,
      );
      expect(after.properties[0]!.compliance_status).toBe('expiring_soon');
      expect(after.summary.compliance).toEqual({ valid: 0, expiring_soon: 1, expired: 0, missing: 0 });
    } finally {
      t.clock.set('2026-06-15T09:00:00Z');
    }
  });

  it('walks the whole portfolio exactly once with keyset pagination', async () => {
    const tenant = await makeTenant(t);
    const created: number[] = [];
    for (let i = 0; i < 23; i++) created.push((await makeProperty(t, tenant.id)).id);
    // Another tenant's properties interleave by id and must never appear.
    const other = await makeTenant(t);
    await makeProperty(t, other.id);

    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `${PORTFOLIO}?limit=5${cursor ? `&cursor=${cursor}` : ''}`;
      const body = expectContract(
        PortfolioResponse,
        (
          await request(t.app)
            .get(url)
            .set(...bearer(tenant.key))
        ).body,
      );
      expect(body.summary.properties_total).toBe(23);
      expect(body.properties.length).toBeLessThanOrEqual(5);
      seen.push(...body.properties.map((p) => p.id));
      cursor = body.next_cursor;
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBe(5);
    expect(seen).toEqual(created);
  });

  it('answers the summary with an empty page: a tenant with no properties, and a cursor past the last one', async () => {
    const get = async (key: string, cursor?: string) =>
      expectContract(
        PortfolioResponse,
        (
          await request(t.app)
            .get(`${PORTFOLIO}${cursor ? `?cursor=${cursor}` : ''}`)
            .set(...bearer(key))
        ).body,
      );
    const empty = await makeTenant(t);
    expect(await get(empty.key)).toMatchObject({
      summary: { properties_total: 0, units_total: 0, compliance: { valid: 0, expired: 0 } },
      properties: [],
      next_cursor: null,
    });
    const tenant = await makeTenant(t);
    const last = await makeProperty(t, tenant.id, { unitsTotal: 2, unitsOccupied: 1 });
    const past = await get(tenant.key, Buffer.from(`p:${last.id}`).toString('base64url'));
    expect(past).toMatchObject({
      summary: { properties_total: 1, units_total: 2, units_occupied: 1 },
      properties: [],
      next_cursor: null,
    });
  });

  it('defaults to 100 properties a page', async () => {
    const tenant = await makeTenant(t);
    await t.db.property.createMany({
      data: Array.from({ length: 101 }, (_, i) => ({
        tenantId: tenant.id,
        ref: `BULK-${i}`,
        line1: `${i} Bulk Road`,
        town: 'Leeds',
        postcode: 'LS1 1AA',
        propertyType: 'flat',
        bedrooms: 1,
        bathrooms: 1,
        tenure: 'leasehold',
        furnishing: 'furnished',
        localAuthority: 'Leeds City Council',
        lettingStatus: 'to_let',
        managementType: 'managed',
      })),
    });
    const body = expectContract(
      PortfolioResponse,
      (
        await request(t.app)
          .get(PORTFOLIO)
          .set(...bearer(tenant.key))
      ).body,
    );
    expect(body.properties).toHaveLength(100);
    expect(body.next_cursor).not.toBeNull();
  });

  it.each([
    ['limit=0', '#/limit'],
    ['limit=501', '#/limit'],
    ['limit=abc', '#/limit'],
    ['limit=2.5', '#/limit'],
    ['cursor=not-a-cursor!', '#/cursor'],
    [`cursor=${Buffer.from('d:5').toString('base64url')}`, '#/cursor'],
    [`cursor=${Buffer.from('p:abc').toString('base64url')}`, '#/cursor'],
    ['colour=blue', '#/colour'],
  ])('rejects %s with 400 pointing at %s', async (query, pointer) => {
    const tenant = await makeTenant(t);
    const res = await request(t.app)
      .get(`${PORTFOLIO}?${query}`)
      .set(...bearer(tenant.key));
    const p = expectProblem(res, 400, 'validation-failed');
    expect(p.errors?.map((e) => e.pointer)).toContain(pointer);
  });
});
