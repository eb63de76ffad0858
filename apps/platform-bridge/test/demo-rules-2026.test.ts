import { ComplianceResponse, PortfolioResponse, Property } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TENANT_SLUG } from '../src/demo/demo-data.ts';
import { seedDemo } from '../src/demo/demo-seed.ts';
import { addDays, addMonths, daysBetween } from '../src/lib/clock.ts';
import { expectContract } from './support/contract.ts';
import { bearer } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// The demo tells the 2026 rules' story, dated relative to the day it is seeded (docs/rules-england-2026.md): a
// periodic tenancy under notice, one with a possession date, a rent review due within 30 days, gas and EICR copies
// not given to the tenant, one given in time, and a gas check done early that kept its anniversary. Its headline
// facts stay (expired gas, arrears, Leeds, voids). Seeded on today as it was when this was written.

const TODAY = '2026-11-27';
let t: TestBridge;
let key: string;
let portfolio: PortfolioResponse;
const get = (path: string) =>
  request(t.app)
    .get(`/api/assistant-bridge${path}`)
    .set(...bearer(key));

beforeAll(async () => {
  t = await startTestBridge({ now: `${TODAY}T09:00:00Z` });
  await seedDemo({ db: t.db, clock: t.clock });
  key = (await t.admin.createKey(DEMO_TENANT_SLUG)).key;
  portfolio = expectContract(PortfolioResponse, (await get('/portfolio')).body);
});
afterAll(async () => t?.close());

const byRef = (ref: string) => portfolio.properties.find((p) => p.ref === ref)!;
const compliance = async (ref: string) =>
  expectContract(ComplianceResponse, (await get(`/properties/${byRef(ref).id}/compliance`)).body);

describe('the demo under the 2026 rules', () => {
  it('reads every current tenancy as periodic; only notices and possession dates end one', () => {
    const tenanted = portfolio.properties.filter((p) => p.tenancy_status !== null);
    expect(tenanted.length).toBeGreaterThan(15);
    expect(tenanted.every((p) => p.tenancy_is_periodic)).toBe(true);
    const ending = tenanted.filter((p) => p.tenancy_end_date !== null).map((p) => p.ref);
    expect(ending.sort()).toEqual(['LON-007', 'MAN-004']);
    // fixed terms are kept as history, some of them already past
    expect(tenanted.filter((p) => p.tenancy_fixed_term_end_date !== null).length).toBeGreaterThan(10);
  });

  it('has a periodic tenancy under the tenant’s notice (LON-007)', () => {
    const p = byRef('LON-007');
    expect(p).toMatchObject({ tenancy_status: 'notice_given', tenancy_possession_date: null });
    expect(p.tenancy_end_date).toBe(addDays(TODAY, 40));
    // a tenant's notice is two months
    expect(p.tenancy_notice_given_on).toBe(addMonths(p.tenancy_end_date!, -2));
  });

  it('has a possession date for the tenancy in arrears (MAN-004)', () => {
    const p = byRef('MAN-004');
    expect(p.arrears_pence).toBe(115_000);
    expect(p).toMatchObject({
      tenancy_status: 'notice_given',
      tenancy_possession_date: addDays(TODAY, 24),
      tenancy_end_date: addDays(TODAY, 24),
      tenancy_notice_given_on: addDays(TODAY, -75),
    });
  });

  it('has a rent review due within 30 days (MAN-005), and reviews not yet due', () => {
    const days = daysBetween(TODAY, byRef('MAN-005').tenancy_earliest_next_increase_on!);
    expect(days).toBeGreaterThanOrEqual(0);
    expect(days).toBeLessThanOrEqual(30);
    expect(daysBetween(TODAY, byRef('MAN-002').tenancy_earliest_next_increase_on!)).toBeGreaterThan(200);
  });

  it('has a gas record and an EICR whose tenant copy is overdue, and copies served in time', async () => {
    const gas = (await compliance('BRS-001')).items.find((i) => i.type === 'gas_safety')!;
    expect(gas).toMatchObject({ status: 'valid', served_to_tenant_at: null, tenant_copy_status: 'overdue' });
    const eicr = (await compliance('LDS-003')).items.find((i) => i.type === 'eicr')!;
    expect(eicr).toMatchObject({ served_to_tenant_at: null, tenant_copy_status: 'overdue' });
    const served = (await compliance('MAN-002')).items.find((i) => i.type === 'gas_safety')!;
    expect(served.tenant_copy_status).toBe('served');
    expect(served.served_to_tenant_at! <= served.tenant_copy_due_date!).toBe(true);
  });

  it('has a gas check done early that kept the old anniversary (LDS-005)', async () => {
    const gas = (await compliance('LDS-005')).items.find((i) => i.type === 'gas_safety')!;
    // longer than the 12 months (less a day) a check starting again would give
    const fromCheck = addDays(addMonths(gas.issue_date!, 12), -1);
    expect(gas.expiry_date! > fromCheck).toBe(true);
    expect(daysBetween(fromCheck, gas.expiry_date!)).toBeLessThanOrEqual(62);
    expect(gas.notes).toContain('anniversary is kept');
  });

  it('keeps the headline facts: expired gas, arrears, Leeds, voids', async () => {
    const expiredGas: string[] = [];
    for (const ref of ['MAN-004', 'BRS-002', 'LON-003']) {
      const gas = (await compliance(ref)).items.find((i) => i.type === 'gas_safety')!;
      if (gas.status === 'expired') expiredGas.push(ref);
    }
    expect(expiredGas).toEqual(['MAN-004', 'BRS-002', 'LON-003']);
    expect(portfolio.summary.arrears_pence).toBeGreaterThan(0);
    expect(portfolio.properties.filter((p) => p.address.town === 'Leeds').length).toBe(5);
    expect(portfolio.properties.some((p) => p.letting_status === 'void')).toBe(true);
  });

  it('shows an unprotected deposit as a deadline to act', async () => {
    const unprotected = [];
    for (const p of portfolio.properties.filter((x) => x.tenancy_status !== null)) {
      const tenancy = expectContract(Property, (await get(`/properties/${p.id}`)).body).current_tenancy;
      if (tenancy?.deposit && tenancy.deposit.protected_at === null) unprotected.push(tenancy.deposit);
    }
    expect(unprotected.length).toBeGreaterThan(0);
    for (const d of unprotected) expect(d.protection_due_date).toBe(addDays(d.received_at!, 30));
  });
});
