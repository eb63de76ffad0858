import { ComplianceResponse, Property } from '@pa/contracts';
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

async function letPropertyWithItems() {
  const tenant = await makeTenant(t);
  const p = await makeProperty(t, tenant.id, {
    ref: `MAN-${Math.floor(Math.random() * 1e6)}`,
    line2: 'Flat 4',
    county: 'Greater Manchester',
    uprn: '77112233',
    epcRating: 'C',
    epcScore: 72,
    epcValidUntil: new Date('2031-02-01T00:00:00Z'),
  });
  await makeTenancy(t, tenant.id, p.id, {
    startDate: '2026-01-10',
    depositPence: 150_000,
    depositScheme: 'dps',
    depositProtectedAt: new Date('2026-01-20T00:00:00Z'),
  });
  await makeItem(t, tenant.id, p.id, 'gas_safety', {
    expiryDate: '2026-06-10',
    referenceNumber: 'CP12-001',
    contractorName: 'Sam Boyle',
    contractorCompany: 'Boyle Heating',
    contractorScheme: 'Gas Safe',
    contractorRegNo: '512345',
  });
  await makeItem(t, tenant.id, p.id, 'eicr', {
    expiryDate: '2030-01-01',
    outcome: 'unsatisfactory',
    remedialDueDate: '2026-07-01',
    eicrC1: 0,
    eicrC2: 2,
    eicrC3: 1,
    eicrFi: 0,
  });
  await makeItem(t, tenant.id, p.id, 'epc', { expiryDate: '2031-02-01', rating: 'C' });
  await makeItem(t, tenant.id, p.id, 'deposit_protection', {
    issueDate: '2026-01-20',
    nextDueDate: '2026-02-09',
  });
  return { tenant, p };
}

describe('GET /properties/{id}', () => {
  it('returns the full property with its current tenancy and compliance summary', async () => {
    const { tenant, p } = await letPropertyWithItems();
    const res = await request(t.app)
      .get(`/api/assistant-bridge/properties/${p.id}`)
      .set(...bearer(tenant.key));
    expect(res.status).toBe(200);
    const body = expectContract(Property, res.body);
    expect(body).toMatchObject({
      id: p.id,
      address: {
        line1: p.line1,
        line2: 'Flat 4',
        town: 'Manchester',
        county: 'Greater Manchester',
        postcode: 'M1 1AA',
      },
      epc: { rating: 'C', score: 72, valid_until: '2031-02-01' },
      current_tenancy: {
        status: 'active',
        start_date: '2026-01-10',
        end_date: null,
        rent_pence: 120_000,
        deposit: {
          amount_pence: 150_000,
          scheme: 'dps',
          protected_at: '2026-01-20',
          prescribed_info_served_at: null,
        },
      },
      compliance_summary: { status: 'missing', valid: 2, expiring_soon: 1, expired: 1, missing: 2 },
    });
  });

  it('answers 304 to a matching If-None-Match and a fresh body once the property changes', async () => {
    const { tenant, p } = await letPropertyWithItems();
    const path = `/api/assistant-bridge/properties/${p.id}`;
    const first = await request(t.app)
      .get(path)
      .set(...bearer(tenant.key));
    const etag = first.headers.etag;
    expect(etag).toBeTruthy();
    const again = await request(t.app)
      .get(path)
      .set(...bearer(tenant.key))
      .set('If-None-Match', etag!);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    await t.db.property.update({ where: { id: p.id }, data: { arrearsPence: 5_000 } });
    const changed = await request(t.app)
      .get(path)
      .set(...bearer(tenant.key))
      .set('If-None-Match', etag!);
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(expectContract(Property, changed.body).arrears_pence).toBe(5_000);
  });

  it.each(['0', '-1', 'abc', '1.5', '99999999999', '1e3'])('rejects the id %s with 400', async (id) => {
    const tenant = await makeTenant(t);
    const res = await request(t.app)
      .get(`/api/assistant-bridge/properties/${id}`)
      .set(...bearer(tenant.key));
    const p = expectProblem(res, 400, 'validation-failed');
    expect(p.errors?.[0]?.pointer).toBe('#/id');
  });

  it('answers 404 property-not-found for an id that does not exist', async () => {
    const tenant = await makeTenant(t);
    expectProblem(
      await request(t.app)
        .get('/api/assistant-bridge/properties/2147483000')
        .set(...bearer(tenant.key)),
      404,
      'property-not-found',
    );
  });
});

describe('GET /properties/{id}/compliance', () => {
  it('lists items with computed status and days until due, and the missing types', async () => {
    const { tenant, p } = await letPropertyWithItems();
    const res = await request(t.app)
      .get(`/api/assistant-bridge/properties/${p.id}/compliance`)
      .set(...bearer(tenant.key));
    expect(res.status).toBe(200);
    const body = expectContract(ComplianceResponse, res.body);
    expect(body.property_id).toBe(p.id);
    expect(body.status).toBe('missing');
    expect(body.missing.sort()).toEqual(['legionella_risk_assessment', 'smoke_co_alarms']);
    const byType = Object.fromEntries(body.items.map((i) => [i.type, i]));
    expect(byType.gas_safety).toMatchObject({
      status: 'expired',
      days_until_due: -5,
      reference_number: 'CP12-001',
      contractor: {
        name: 'Sam Boyle',
        company: 'Boyle Heating',
        scheme: 'Gas Safe',
        registration_number: '512345',
      },
    });
    expect(byType.eicr).toMatchObject({
      status: 'expiring_soon',
      eicr_codes: { c1: 0, c2: 2, c3: 1, fi: 0 },
    });
    expect(byType.epc).toMatchObject({ status: 'valid', rating: 'C' });
    expect(byType.deposit_protection).toMatchObject({ status: 'valid', days_until_due: null });
  });

  it('answers 400 for a bad id and 404 for an unknown one', async () => {
    const tenant = await makeTenant(t);
    expectProblem(
      await request(t.app)
        .get('/api/assistant-bridge/properties/x/compliance')
        .set(...bearer(tenant.key)),
      400,
      'validation-failed',
    );
    expectProblem(
      await request(t.app)
        .get('/api/assistant-bridge/properties/2147483000/compliance')
        .set(...bearer(tenant.key)),
      404,
      'property-not-found',
    );
  });
});
