import {
  ComplianceResponse,
  PortfolioComplianceResponse,
  PortfolioResponse,
  Property,
  Proposal,
  ReviewQueueResponse,
} from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract } from './support/contract.ts';
import { bearer, makeItem, makeProperty, makeTenancy, makeTenant } from './support/factories.ts';
import { makeProposal, makeReviewTenant } from './support/proposal-factory.ts';
import { makeWritingTenant, propose, WRITES_FLAGS } from './support/proposals.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';
import { fromDateString } from '../src/lib/clock.ts';

// The 2026 rules for England through the real routes (docs/rules-england-2026.md, docs/bridge-api.md): tenancies
// periodic from 1 May 2026, notices and possession dates, section 13 rent reviews, the deposit's deadline to
// protect, the tenant's copy of the gas record and the EICR, and a gas check done early keeping its anniversary.
// Today is 27 Nov 2026 (London) unless a test moves the clock.

const NOW = '2026-11-27T09:00:00Z';
let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge({ now: NOW });
});
afterAll(async () => t?.close());

const get = (key: string, path: string) =>
  request(t.app)
    .get(`/api/assistant-bridge${path}`)
    .set(...bearer(key));

/** Reads at another London day, then puts the clock back. */
async function on<T>(iso: string, read: () => Promise<T>): Promise<T> {
  t.clock.set(iso);
  try {
    return await read();
  } finally {
    t.clock.set(NOW);
  }
}

describe('GET /properties/{id}: the current tenancy under the 2026 rules', () => {
  async function fixedTermTenancy() {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, p.id, {
      startDate: '2025-09-01',
      fixedTermEndDate: fromDateString('2026-08-31'),
      depositPence: 150_000,
      depositScheme: 'tds',
      depositReceivedAt: fromDateString('2026-11-20'),
    });
    return { tenant, p };
  }

  it('reads a fixed-term tenancy as periodic with no end, its term kept as history', async () => {
    const { tenant, p } = await fixedTermTenancy();
    const res = await get(tenant.key, `/properties/${p.id}`);
    expect(res.status).toBe(200);
    const tenancy = expectContract(Property, res.body).current_tenancy!;
    expect(tenancy).toMatchObject({
      status: 'active',
      start_date: '2025-09-01',
      end_date: null,
      is_periodic: true,
      fixed_term_end_date: '2026-08-31',
      notice_given_on: null,
      possession_date: null,
      // 52 weeks after the start: an increase may take effect now
      rent_review: { last_increase_on: null, earliest_next_increase_on: '2026-08-31' },
    });
    // received a week ago and not protected: a deadline to act, 30 days from receipt
    expect(tenancy.deposit).toEqual({
      amount_pence: 150_000,
      scheme: 'tds',
      received_at: '2026-11-20',
      protected_at: null,
      protection_due_date: '2026-12-20',
      prescribed_info_served_at: null,
    });
  });

  it('before 1 May 2026 the same tenancy still ended with its fixed term', async () => {
    const { tenant, p } = await fixedTermTenancy();
    const res = await on('2026-04-30T12:00:00Z', () => get(tenant.key, `/properties/${p.id}`));
    const tenancy = expectContract(Property, res.body).current_tenancy!;
    expect(tenancy).toMatchObject({
      is_periodic: false,
      end_date: '2026-08-31',
      // no increase within the fixed term then
      rent_review: { earliest_next_increase_on: '2026-09-01' },
    });
  });

  it('ends a tenancy on its possession date, and shows when the notice was given', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, p.id, {
      status: 'notice_given',
      startDate: '2026-06-01',
      noticeGivenOn: fromDateString('2026-09-15'),
      possessionDate: fromDateString('2026-12-21'),
      lastRentIncreaseOn: null,
    });
    const tenancy = expectContract(
      Property,
      (await get(tenant.key, `/properties/${p.id}`)).body,
    ).current_tenancy!;
    expect(tenancy).toMatchObject({
      status: 'notice_given',
      is_periodic: true,
      end_date: '2026-12-21',
      notice_given_on: '2026-09-15',
      possession_date: '2026-12-21',
      fixed_term_end_date: null,
      rent_review: { earliest_next_increase_on: '2027-05-31' },
    });
  });
});

describe('GET /portfolio: tenancy fields', () => {
  it('gives each property’s notice, possession date and rent review, periodic from 1 May 2026', async () => {
    const tenant = await makeTenant(t);
    const notice = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, notice.id, {
      status: 'notice_given',
      startDate: '2024-03-01',
      isPeriodic: true,
      endDate: fromDateString('2027-01-31'),
      noticeGivenOn: fromDateString('2026-11-20'),
      lastRentIncreaseOn: fromDateString('2025-12-10'),
    });
    const fixed = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, fixed.id, {
      startDate: '2026-02-01',
      fixedTermEndDate: fromDateString('2027-01-31'),
    });
    const void_ = await makeProperty(t, tenant.id, { lettingStatus: 'void', unitsOccupied: 0 });

    const body = expectContract(PortfolioResponse, (await get(tenant.key, '/portfolio')).body);
    const byId = new Map(body.properties.map((p) => [p.id, p]));
    expect(byId.get(notice.id)).toMatchObject({
      tenancy_status: 'notice_given',
      tenancy_is_periodic: true,
      tenancy_end_date: '2027-01-31',
      tenancy_notice_given_on: '2026-11-20',
      tenancy_possession_date: null,
      tenancy_fixed_term_end_date: null,
      tenancy_last_rent_increase_on: '2025-12-10',
      // 52 weeks after the last increase: a rent review due within 30 days
      tenancy_earliest_next_increase_on: '2026-12-09',
    });
    expect(byId.get(fixed.id)).toMatchObject({
      tenancy_is_periodic: true,
      tenancy_end_date: null,
      tenancy_fixed_term_end_date: '2027-01-31',
      tenancy_earliest_next_increase_on: '2027-01-31',
    });
    expect(byId.get(void_.id)).toMatchObject({
      tenancy_status: null,
      tenancy_is_periodic: null,
      tenancy_end_date: null,
      tenancy_fixed_term_end_date: null,
      tenancy_notice_given_on: null,
      tenancy_possession_date: null,
      tenancy_last_rent_increase_on: null,
      tenancy_earliest_next_increase_on: null,
    });

    // the property read and the portfolio agree, before 1 May 2026 too
    const before = await on('2026-04-01T09:00:00Z', () => get(tenant.key, '/portfolio'));
    const fixedBefore = expectContract(PortfolioResponse, before.body).properties.find(
      (p) => p.id === fixed.id,
    );
    expect(fixedBefore).toMatchObject({ tenancy_is_periodic: false, tenancy_end_date: '2027-01-31' });
  });
});

describe("GET /properties/{id}/compliance: the tenant's copy and what each date means", () => {
  it('marks a gas record not given to the tenant within 28 days overdue, and a served EICR served', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, p.id, { startDate: '2025-09-01' });
    // checked 29 days ago, copy never given: overdue since yesterday
    await makeItem(t, tenant.id, p.id, 'gas_safety', { issueDate: '2026-10-29', expiryDate: '2027-10-28' });
    // checked 28 days ago: still due today
    await makeItem(t, tenant.id, p.id, 'pat', { issueDate: '2026-10-30', expiryDate: '2027-10-29' });
    await makeItem(t, tenant.id, p.id, 'eicr', {
      issueDate: '2026-10-30',
      expiryDate: '2031-10-29',
      servedToTenantAt: fromDateString('2026-11-02'),
    });
    const res = await get(tenant.key, `/properties/${p.id}/compliance`);
    const items = expectContract(ComplianceResponse, res.body).items;
    const of = (type: string) => items.find((i) => i.type === type)!;
    expect(of('gas_safety')).toMatchObject({
      status: 'valid',
      tenant_copy_due_date: '2026-11-26',
      tenant_copy_status: 'overdue',
      due_date: '2027-10-28',
      due_kind: 'expiry',
    });
    expect(of('eicr')).toMatchObject({ tenant_copy_due_date: '2026-11-27', tenant_copy_status: 'served' });
    // no copy is owed for PAT
    expect(of('pat')).toMatchObject({ tenant_copy_due_date: null, tenant_copy_status: null });

    // the same gas record on its 28th day is still in time
    const dayBefore = await on('2026-11-26T09:00:00Z', () =>
      get(tenant.key, `/properties/${p.id}/compliance`),
    );
    const gasThen = expectContract(ComplianceResponse, dayBefore.body).items.find(
      (i) => i.type === 'gas_safety',
    );
    expect(gasThen).toMatchObject({ tenant_copy_status: 'due' });
  });

  it('gives an unprotected deposit a deadline to act, not an expiry', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, p.id, { startDate: '2026-11-20', depositPence: 100_000 });
    await makeItem(t, tenant.id, p.id, 'deposit_protection', { expiryDate: '2026-12-02' });
    const items = expectContract(
      ComplianceResponse,
      (await get(tenant.key, `/properties/${p.id}/compliance`)).body,
    ).items;
    expect(items.find((i) => i.type === 'deposit_protection')).toMatchObject({
      status: 'expiring_soon',
      due_date: '2026-12-02',
      due_kind: 'protect_by',
      days_until_due: 5,
      tenant_copy_status: null,
    });
  });

  it('GET /portfolio/compliance carries the same fields for the items it lists', async () => {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, p.id, { startDate: '2025-09-01' });
    await makeItem(t, tenant.id, p.id, 'gas_safety', { issueDate: '2025-11-01', expiryDate: '2026-10-31' });
    const body = expectContract(
      PortfolioComplianceResponse,
      (await get(tenant.key, '/portfolio/compliance?status=expired')).body,
    );
    expect(body.properties[0]!.items.find((i) => i.type === 'gas_safety')).toMatchObject({
      status: 'expired',
      due_kind: 'expiry',
      tenant_copy_due_date: '2025-11-29',
      tenant_copy_status: 'overdue',
    });
  });
});

describe('a gas check done early keeps the anniversary', () => {
  async function tenantWithGas(expiryDate: string) {
    const tenant = await makeWritingTenant(t, {
      flags: [...WRITES_FLAGS, 'assistant_bridge_review_queue'],
    });
    const admin = await t.admin.createAdmin(tenant.slug, `admin@${tenant.slug}.example`);
    const gas = await makeItem(t, tenant.id, tenant.property.id, 'gas_safety', {
      issueDate: '2025-12-21',
      expiryDate,
    });
    return { tenant, admin, gas };
  }

  async function submitAndApprove(
    tenantKey: string,
    adminKey: string,
    propertyId: number,
    issueDate: string,
  ) {
    const submitted = await propose(t.app, tenantKey, 'compliance_update', {
      property_id: propertyId,
      compliance_type: 'gas_safety',
      issue_date: issueDate,
      outcome: 'pass',
    });
    expect(submitted.status).toBe(201);
    const id = submitted.body.proposal_id as number;
    const stored = expectContract(Proposal, (await get(tenantKey, `/proposals/${id}`)).body);
    const approved = await request(t.app)
      .post(`/api/admin/proposals/${id}/approve`)
      .set(...bearer(adminKey));
    expect(approved.status).toBe(200);
    return stored;
  }

  it('a check 2 months before the deadline runs 12 months from the old deadline, through submit and approval', async () => {
    // the current record's deadline is 20 Dec 2026; the check is on 27 Nov 2026, 23 days before it
    const { tenant, admin, gas } = await tenantWithGas('2026-12-20');
    const stored = await submitAndApprove(tenant.key, admin.key, tenant.property.id, '2026-11-27');
    expect(stored.payload).toMatchObject({ expiry_date: '2027-12-20' });
    const item = await t.db.complianceItem.findUniqueOrThrow({ where: { id: gas.id } });
    expect(item.expiryDate).toEqual(fromDateString('2027-12-20'));
    expect(item.issueDate).toEqual(fromDateString('2026-11-27'));
  });

  it('a check more than 2 months early starts again from its own date', async () => {
    const { tenant, admin, gas } = await tenantWithGas('2027-02-28');
    // the window opens on 28 Dec 2026; 27 Nov is outside it
    const stored = await submitAndApprove(tenant.key, admin.key, tenant.property.id, '2026-11-27');
    expect(stored.payload).toMatchObject({ expiry_date: '2027-11-26' });
    const item = await t.db.complianceItem.findUniqueOrThrow({ where: { id: gas.id } });
    expect(item.expiryDate).toEqual(fromDateString('2027-11-26'));
  });

  it('a stored proposal without an expiry keeps the anniversary when approved (the reviewer sees that expiry)', async () => {
    const tenant = await makeReviewTenant(t);
    const p = await makeProperty(t, tenant.id);
    const gas = await makeItem(t, tenant.id, p.id, 'gas_safety', {
      issueDate: '2025-12-21',
      expiryDate: '2026-12-20',
    });
    const proposal = await makeProposal(t, tenant.id, 'compliance_update', {
      property_id: p.id,
      compliance_type: 'gas_safety',
      issue_date: '2026-11-27',
      outcome: 'pass',
    });
    const queue = await request(t.app)
      .get('/api/admin/review-queue')
      .set(...bearer(tenant.adminKey));
    const item = expectContract(ReviewQueueResponse, queue.body).items.find(
      (i) => i.proposal_id === proposal.id,
    )!;
    expect(item.diff).toContainEqual(expect.objectContaining({ path: 'expiry_date', to: '2027-12-20' }));
    const approved = await request(t.app)
      .post(`/api/admin/proposals/${proposal.id}/approve`)
      .set(...bearer(tenant.adminKey));
    expect(approved.status).toBe(200);
    const row = await t.db.complianceItem.findUniqueOrThrow({ where: { id: gas.id } });
    expect(row.expiryDate).toEqual(fromDateString('2027-12-20'));
  });
});
