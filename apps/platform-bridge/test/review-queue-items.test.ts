import { ReviewQueueResponse, type ReviewItem } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../src/demo/demo-seed.ts';
import { fromDateString } from '../src/lib/clock.ts';
import { expectContract } from './support/contract.ts';
import { bearer, makeItem, makeProperty, makeTenancy, uniqueSlug } from './support/factories.ts';
import { makeProposal, makeReviewTenant, type ReviewTenant } from './support/proposal-factory.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// What the queue tells a reviewer about each proposal: the summary, the property, the diff against the current
// record, and the warnings. Today is 2026-06-15 (London).

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z' });
});
afterAll(async () => t?.close());

async function queue(tenant: { adminKey: string }, query = ''): Promise<ReviewItem[]> {
  const res = await request(t.app)
    .get(`/api/admin/review-queue${query}`)
    .set(...bearer(tenant.adminKey));
  expect(res.status).toBe(200);
  return expectContract(ReviewQueueResponse, res.body).items;
}
const only = async (tenant: ReviewTenant, id: number) => {
  const item = (await queue(tenant, '?status=all')).find((i) => i.proposal_id === id);
  if (!item) expect.fail(`proposal ${id} is not in the queue`);
  return item;
};

const log = (tenantId: number, propertyId: number, date: string, net: number, category = 'repair') =>
  t.db.financialLog.create({
    data: {
      tenantId,
      propertyId,
      date: fromDateString(date),
      direction: 'expense',
      category,
      netPence: net,
      vatPence: 0,
      grossPence: net,
    },
  });

describe('GET /api/admin/review-queue: deal proposals', () => {
  it('summarises the deal, shows the property, diffs every field from null, and warns of an open deal with the same title', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id, { line1: 'Flat 2, 45 Hoe Street', town: 'London' });
    const existing = await t.db.deal.create({
      data: { tenantId: tenant.id, title: '  re-let –  FLAT 2 ', dealType: 'letting', stage: 'viewings' },
    });
    // neither a closed deal nor another tenant's open one counts
    await t.db.deal.create({
      data: {
        tenantId: tenant.id,
        title: 'Re-let – Flat 2',
        dealType: 'letting',
        stage: 'moved_in',
        status: 'won',
      },
    });
    const other = await makeReviewTenant(t);
    await t.db.deal.create({
      data: { tenantId: other.id, title: 'Re-let – Flat 2', dealType: 'letting', stage: 'viewings' },
    });
    const proposal = await makeProposal(t, tenant.id, 'deal', {
      title: 'Re-let – Flat 2',
      property_id: property.id,
      deal_type: 'letting',
      value_pence: 1_980_000,
      review_notes: 'Notice ends in 40 days.',
    });

    const item = await only(tenant, proposal.id);
    expect(item).toMatchObject({
      kind: 'deal',
      status: 'pending_review',
      summary: `Deal proposal: Re-let – Flat 2 (letting, £19,800) at ${property.ref}`,
      review_notes: 'Notice ends in 40 days.',
      submitted_by: 'test assistant',
      property: {
        id: property.id,
        ref: property.ref,
        address: {
          line1: 'Flat 2, 45 Hoe Street',
          line2: null,
          town: 'London',
          county: null,
          postcode: 'M1 1AA',
        },
      },
      decided_at: null,
      record: null,
    });
    expect(item.payload).toMatchObject({
      title: 'Re-let – Flat 2',
      deal_type: 'letting',
      value_pence: 1_980_000,
    });
    expect(item.diff).toEqual([
      { path: 'title', from: null, to: 'Re-let – Flat 2' },
      { path: 'deal_type', from: null, to: 'letting' },
      { path: 'stage', from: null, to: 'marketing' },
      { path: 'status', from: null, to: 'open' },
      { path: 'value_pence', from: null, to: 1_980_000 },
      { path: 'property_id', from: null, to: property.id },
      { path: 'source', from: null, to: 'proposal' },
    ]);
    expect(item.warnings).toEqual([
      {
        code: 'duplicate-open-deal',
        message: `An open deal with the same title already exists (deal ${existing.id}, stage viewings).`,
      },
    ]);
  });

  it('has no warning for a deal whose title is new', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    await t.db.deal.create({
      data: { tenantId: tenant.id, title: 'Something else', dealType: 'letting', stage: 'x' },
    });
    const proposal = await makeProposal(t, tenant.id, 'deal', {
      title: 'Brand new',
      property_id: property.id,
    });
    expect((await only(tenant, proposal.id)).warnings).toEqual([]);
  });
});

describe('GET /api/admin/review-queue: compliance updates', () => {
  it('diffs against the property’s current item (nested fields flattened) and warns of the status change', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id, { hasGas: true });
    await makeTenancy(t, tenant.id, property.id);
    await makeItem(t, tenant.id, property.id, 'gas_safety', {
      issueDate: '2025-05-01',
      expiryDate: '2026-04-30',
      referenceNumber: 'CP12-OLD',
      outcome: 'pass',
      contractorName: 'Ann Old',
      contractorCompany: 'Old Gas Ltd',
      contractorScheme: 'Gas Safe',
    });
    const proposal = await makeProposal(t, tenant.id, 'compliance_update', {
      property_id: property.id,
      compliance_type: 'gas_safety',
      issue_date: '2026-06-10',
      reference_number: 'CP12-NEW',
      outcome: 'pass',
      contractor: { name: 'Tom Prideaux', company: 'Avon Gas Services', scheme: 'Gas Safe' },
    });

    const item = await only(tenant, proposal.id);
    expect(item.summary).toBe(
      `Compliance update: gas safety certificate issued 10 Jun 2026, pass at ${property.ref}`,
    );
    expect(item.diff).toEqual([
      { path: 'issue_date', from: '2025-05-01', to: '2026-06-10' },
      { path: 'expiry_date', from: '2026-04-30', to: '2027-06-09' },
      { path: 'reference_number', from: 'CP12-OLD', to: 'CP12-NEW' },
      { path: 'contractor/name', from: 'Ann Old', to: 'Tom Prideaux' },
      { path: 'contractor/company', from: 'Old Gas Ltd', to: 'Avon Gas Services' },
    ]);
    expect(item.warnings).toEqual([
      { code: 'compliance-status-change', message: 'Status would change from expired to valid.' },
    ]);
  });

  it('diffs EICR codes as eicr_codes/<code>, and a new item from null', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, property.id);
    const proposal = await makeProposal(t, tenant.id, 'compliance_update', {
      property_id: property.id,
      compliance_type: 'eicr',
      issue_date: '2026-06-01',
      expiry_date: '2031-06-01',
      outcome: 'satisfactory',
      eicr_codes: { c1: 0, c2: 2, c3: 1, fi: 0 },
    });
    const item = await only(tenant, proposal.id);
    expect(item.diff).toEqual([
      { path: 'issue_date', from: null, to: '2026-06-01' },
      { path: 'expiry_date', from: null, to: '2031-06-01' },
      { path: 'outcome', from: null, to: 'satisfactory' },
      { path: 'eicr_codes/c1', from: null, to: 0 },
      { path: 'eicr_codes/c2', from: null, to: 2 },
      { path: 'eicr_codes/c3', from: null, to: 1 },
      { path: 'eicr_codes/fi', from: null, to: 0 },
    ]);
    // a let property must hold an EICR: it is missing until approval
    expect(item.warnings).toEqual([
      { code: 'compliance-status-change', message: 'Status would change from missing to valid.' },
    ]);
  });

  it('warns of an issue date in the future, and of an update that would leave the item expiring soon', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, property.id);
    await makeItem(t, tenant.id, property.id, 'legionella_risk_assessment', {
      issueDate: '2025-01-01',
      expiryDate: '2027-01-01',
    });
    const proposal = await makeProposal(t, tenant.id, 'compliance_update', {
      property_id: property.id,
      compliance_type: 'legionella_risk_assessment',
      issue_date: '2026-06-20',
      expiry_date: '2026-07-01',
    });
    expect((await only(tenant, proposal.id)).warnings).toEqual([
      { code: 'compliance-status-change', message: 'Status would change from valid to expiring soon.' },
      { code: 'future-date', message: 'The issue date 2026-06-20 is in the future.' },
    ]);
  });
});

describe('GET /api/admin/review-queue: financial logs', () => {
  it('diffs the new log from null (gross = net + VAT) and summarises it', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    const proposal = await makeProposal(t, tenant.id, 'financial_log', {
      property_id: property.id,
      date: '2026-06-14',
      direction: 'expense',
      category: 'repair',
      net_pence: 18_500,
      vat_pence: 3_700,
      payee_or_payer: 'Kershaw Heating Ltd',
    });
    const item = await only(tenant, proposal.id);
    expect(item.summary).toBe(
      `Financial log: expense, repair £185.00 + VAT £37.00 to Kershaw Heating Ltd on 14 Jun 2026 at ${property.ref}`,
    );
    expect(item.diff).toEqual([
      { path: 'property_id', from: null, to: property.id },
      { path: 'date', from: null, to: '2026-06-14' },
      { path: 'direction', from: null, to: 'expense' },
      { path: 'category', from: null, to: 'repair' },
      { path: 'net_pence', from: null, to: 18_500 },
      { path: 'vat_pence', from: null, to: 3_700 },
      { path: 'gross_pence', from: null, to: 22_200 },
      { path: 'payee_or_payer', from: null, to: 'Kershaw Heating Ltd' },
    ]);
    expect(item.warnings).toEqual([]);
  });

  it('warns of a date in the future', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    const proposal = await makeProposal(t, tenant.id, 'financial_log', {
      property_id: property.id,
      date: '2026-07-01',
      direction: 'income',
      category: 'rent_received',
      net_pence: 120_000,
    });
    expect((await only(tenant, proposal.id)).warnings).toEqual([
      { code: 'future-date', message: 'The date 2026-07-01 is in the future.' },
    ]);
  });

  it('warns of an amount over 3× or under a third of the median of the last 12 months’ logs of that category (with ≥ 3)', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    const thin = await makeProperty(t, tenant.id);
    for (const [date, net] of [
      ['2026-01-10', 9_000],
      ['2026-03-10', 10_000],
      ['2026-05-10', 12_000],
    ] as const) {
      await log(tenant.id, property.id, date, net);
    }
    // outside the window or another category: not counted
    await log(tenant.id, property.id, '2025-06-01', 1_000_000);
    await log(tenant.id, property.id, '2026-05-01', 1_000_000, 'insurance');
    // two logs are too few to judge by
    await log(tenant.id, thin.id, '2026-02-01', 10_000);
    await log(tenant.id, thin.id, '2026-03-01', 10_000);

    const propose = (propertyId: number, net: number) =>
      makeProposal(t, tenant.id, 'financial_log', {
        property_id: propertyId,
        date: '2026-06-12',
        direction: 'expense',
        category: 'repair',
        net_pence: net,
      });
    const high = await propose(property.id, 30_001);
    const low = await propose(property.id, 3_333);
    const usual = await propose(property.id, 30_000);
    const unjudged = await propose(thin.id, 1_000_000);

    const items = await queue(tenant);
    const warningsOf = (id: number) => items.find((i) => i.proposal_id === id)?.warnings;
    expect(warningsOf(high.id)).toEqual([
      {
        code: 'unusual-amount',
        message:
          "£300.01 is more than 3× the property's median repair of £100.00 (3 logs in the last 12 months).",
      },
    ]);
    expect(warningsOf(low.id)).toEqual([
      {
        code: 'unusual-amount',
        message:
          "£33.33 is less than a third of the property's median repair of £100.00 (3 logs in the last 12 months).",
      },
    ]);
    expect(warningsOf(usual.id)).toEqual([]);
    expect(warningsOf(unjudged.id)).toEqual([]);
  });
});

describe('GET /api/admin/review-queue: other cases', () => {
  it('warns when the property has gone, and shows no property', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    const proposal = await makeProposal(t, tenant.id, 'deal', { title: 'Orphan', property_id: property.id });
    await t.db.property.delete({ where: { id: property.id } });
    const item = await only(tenant, proposal.id);
    expect(item.property).toBeNull();
    expect(item.warnings).toEqual([
      {
        code: 'property-not-found',
        message: 'The property is no longer on the platform; approving would fail.',
      },
    ]);
  });

  it('shows a decided proposal with its decision and record, without diff or warnings', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    const proposal = await makeProposal(t, tenant.id, 'deal', { title: 'Done', property_id: property.id });
    const approved = await request(t.app)
      .post(`/api/admin/proposals/${proposal.id}/approve`)
      .set(...bearer(tenant.adminKey))
      .send({ note: 'ok' });
    const item = await only(tenant, proposal.id);
    expect(item).toMatchObject({
      status: 'approved',
      decided_by: tenant.adminEmail,
      decided_at: t.clock.now().toISOString(),
      decision_note: 'ok',
      record: approved.body.record,
      diff: [],
      warnings: [],
    });
    expect(await queue(tenant)).toEqual([]);
  });

  it('serves the demo’s proposals in every state, each parsed by the contract', async () => {
    const slug = uniqueSlug('demo');
    await seedDemo({ db: t.db, clock: t.clock }, { tenantSlug: slug });
    const admin = await t.admin.createAdmin(slug, 'sarah.cole@demo-lettings.co.uk');
    const tenant = { adminKey: admin.key };
    const all = await queue(tenant, '?status=all');
    expect(new Set(all.map((i) => i.status))).toEqual(
      new Set(['pending_review', 'approved', 'rejected', 'expired', 'withdrawn']),
    );
    const pending = await queue(tenant);
    expect(pending.map((i) => i.kind)).toEqual(['compliance_update', 'financial_log', 'deal']);
    expect(pending.find((i) => i.kind === 'deal')?.summary).toBe(
      'Deal proposal: Re-let – Flat 2, 45 Hoe Street, Walthamstow (letting, £19,800) at LON-007',
    );
    expect(pending.find((i) => i.kind === 'compliance_update')?.diff.length).toBeGreaterThan(0);
  });
});
