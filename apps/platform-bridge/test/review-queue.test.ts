import {
  ApproveResponse,
  AuditResponse,
  ComplianceResponse,
  DealsResponse,
  PortfolioResponse,
  RejectResponse,
  ReviewQueueResponse,
} from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeItem, makeProperty, makeTenancy } from './support/factories.ts';
import { makeProposal, makeReviewTenant, type ReviewTenant, SUBMITTER } from './support/proposal-factory.ts';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

// The review queue's decisions (docs/bridge-api.md): approve (with and without edits), reject, the audit trail, and the
// record an approval creates as the bridge's reads then show it. Today is 2026-06-15 (London).

// On both databases the bridge runs on: every kind's approval writes its record on the embedded one too.
describe.each(BRIDGE_BACKENDS)('review queue decisions on %s', (_name, backend) => {
  let t: TestBridge;
  beforeAll(async () => {
    t = await startTestBridge({ now: '2026-06-15T09:00:00Z', backend });
  });
  afterAll(async () => t?.close());

  const approve = (tenant: ReviewTenant, id: number, body?: object) => {
    const req = request(t.app)
      .post(`/api/admin/proposals/${id}/approve`)
      .set(...bearer(tenant.adminKey));
    return body === undefined ? req : req.send(body);
  };
  const reject = (tenant: ReviewTenant, id: number, body: object) =>
    request(t.app)
      .post(`/api/admin/proposals/${id}/reject`)
      .set(...bearer(tenant.adminKey))
      .send(body);
  const audit = (tenant: ReviewTenant, id: number) =>
    request(t.app)
      .get(`/api/admin/proposals/${id}/audit`)
      .set(...bearer(tenant.adminKey));
  const bridgeGet = (tenant: ReviewTenant, path: string) =>
    request(t.app)
      .get(`/api/assistant-bridge${path}`)
      .set(...bearer(tenant.key));

  describe('POST /api/admin/proposals/{id}/approve', () => {
    it('creates the deal (source proposal, default stage), which /deals and the portfolio then show', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const before = expectContract(PortfolioResponse, (await bridgeGet(tenant, '/portfolio')).body);
      const proposal = await makeProposal(t, tenant.id, 'deal', {
        title: 'Re-let – Flat 2',
        property_id: property.id,
        deal_type: 'letting',
        value_pence: 1_980_000,
        expected_close_date: '2026-08-01',
      });

      const res = await approve(tenant, proposal.id, { note: 'Go ahead.' });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const body = expectContract(ApproveResponse, res.body);
      expect(body).toEqual({
        proposal_id: proposal.id,
        status: 'approved',
        record: { type: 'deal', id: expect.any(Number) },
      });

      const deal = await t.db.deal.findUniqueOrThrow({ where: { id: body.record.id } });
      expect(deal).toMatchObject({
        tenantId: tenant.id,
        title: 'Re-let – Flat 2',
        dealType: 'letting',
        stage: 'marketing',
        status: 'open',
        valuePence: 1_980_000,
        propertyId: property.id,
        source: 'proposal',
      });
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } });
      expect(stored).toMatchObject({
        status: 'approved',
        decidedBy: tenant.adminEmail,
        decisionNote: 'Go ahead.',
        recordType: 'deal',
        recordId: deal.id,
      });
      expect(stored.decidedAt).toEqual(t.clock.now());

      const deals = expectContract(DealsResponse, (await bridgeGet(tenant, '/deals')).body);
      expect(deals.deals).toEqual([
        expect.objectContaining({ id: deal.id, source: 'proposal', status: 'open', stage: 'marketing' }),
      ]);
      const after = expectContract(PortfolioResponse, (await bridgeGet(tenant, '/portfolio')).body);
      expect(after.summary.open_deals).toBe(before.summary.open_deals + 1);
      expect(after.summary.pipeline_value_pence).toBe(before.summary.pipeline_value_pence + 1_980_000);
    });

    it('renews the property’s compliance item, and /compliance and the portfolio counts follow at once', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id, { hasGas: true });
      await makeTenancy(t, tenant.id, property.id, { startDate: '2025-09-01' });
      for (const type of ['eicr', 'epc', 'smoke_co_alarms', 'legionella_risk_assessment']) {
        await makeItem(t, tenant.id, property.id, type, {
          issueDate: '2026-01-01',
          expiryDate: '2028-01-01',
        });
      }
      const gas = await makeItem(t, tenant.id, property.id, 'gas_safety', {
        issueDate: '2025-05-01',
        expiryDate: '2026-05-01',
        referenceNumber: 'OLD-1',
        contractorCompany: 'Old Gas Ltd',
      });
      const compliance = () => bridgeGet(tenant, `/properties/${property.id}/compliance`);
      expect(expectContract(ComplianceResponse, (await compliance()).body).status).toBe('expired');
      const before = expectContract(PortfolioResponse, (await bridgeGet(tenant, '/portfolio')).body).summary;
      expect(before.compliance).toMatchObject({ expired: 1 });

      const proposal = await makeProposal(t, tenant.id, 'compliance_update', {
        property_id: property.id,
        compliance_type: 'gas_safety',
        issue_date: '2026-06-10',
        reference_number: 'CP12-2',
        outcome: 'pass',
        contractor: { name: 'Tom', company: 'Avon Gas Services' },
      });
      const body = expectContract(ApproveResponse, (await approve(tenant, proposal.id)).body);
      // the property's item of that type is updated, not a second one created
      expect(body.record).toEqual({ type: 'compliance_item', id: gas.id });

      const c = expectContract(ComplianceResponse, (await compliance()).body);
      expect(c.status).toBe('valid');
      expect(c.items.find((i) => i.type === 'gas_safety')).toMatchObject({
        id: gas.id,
        issue_date: '2026-06-10',
        expiry_date: '2027-06-09',
        reference_number: 'CP12-2',
        outcome: 'pass',
        contractor: { name: 'Tom', company: 'Avon Gas Services', scheme: null, registration_number: null },
        status: 'valid',
      });
      const after = expectContract(PortfolioResponse, (await bridgeGet(tenant, '/portfolio')).body).summary;
      expect(after.compliance.expired).toBe(before.compliance.expired - 1);
      expect(after.compliance.valid).toBe(before.compliance.valid + 1);
      expect(
        (await bridgeGet(tenant, '/portfolio')).body.properties.find(
          (p: { id: number }) => p.id === property.id,
        ).compliance_status,
      ).toBe('valid');
    });

    it('creates a compliance item when the property has none of that type (expiry from the type’s cycle)', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'compliance_update', {
        property_id: property.id,
        compliance_type: 'eicr',
        issue_date: '2026-06-01',
        outcome: 'satisfactory',
        eicr_codes: { c1: 0, c2: 1, c3: 2, fi: 0 },
      });
      const body = expectContract(ApproveResponse, (await approve(tenant, proposal.id, {})).body);
      const item = await t.db.complianceItem.findUniqueOrThrow({ where: { id: body.record.id } });
      expect(item).toMatchObject({
        tenantId: tenant.id,
        propertyId: property.id,
        type: 'eicr',
        outcome: 'satisfactory',
        eicrC2: 1,
        eicrC3: 2,
      });
      expect(item.expiryDate?.toISOString().slice(0, 10)).toBe('2031-05-31');
    });

    it('creates the financial log with gross = net + VAT and its source proposal', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'financial_log', {
        property_id: property.id,
        date: '2026-06-12',
        direction: 'expense',
        category: 'repair',
        net_pence: 18_500,
        vat_pence: 3_700,
        payee_or_payer: 'Kershaw Heating Ltd',
        reference: 'INV-20931',
      });
      const body = expectContract(ApproveResponse, (await approve(tenant, proposal.id)).body);
      expect(body.record.type).toBe('financial_log');
      const log = await t.db.financialLog.findUniqueOrThrow({ where: { id: body.record.id } });
      expect(log).toMatchObject({
        tenantId: tenant.id,
        propertyId: property.id,
        netPence: 18_500,
        vatPence: 3_700,
        grossPence: 22_200,
        category: 'repair',
        payeeOrPayer: 'Kershaw Heating Ltd',
        sourceProposalId: proposal.id,
      });
    });

    it('applies valid edits: the record and the stored payload have the edited values, the audit names them', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'deal', {
        title: 'Sale of 7 Ash Road',
        property_id: property.id,
        deal_type: 'disposal',
        value_pence: 30_000_000,
      });
      const res = await approve(tenant, proposal.id, {
        note: 'Price agreed with the landlord.',
        edits: { value_pence: 37_500_000, stage: 'marketing' },
      });
      const body = expectContract(ApproveResponse, res.body);
      const deal = await t.db.deal.findUniqueOrThrow({ where: { id: body.record.id } });
      expect(deal).toMatchObject({ valuePence: 37_500_000, stage: 'marketing', title: 'Sale of 7 Ash Road' });
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } });
      expect(stored.payload).toMatchObject({ value_pence: 37_500_000, stage: 'marketing' });

      const trail = expectContract(AuditResponse, (await audit(tenant, proposal.id)).body);
      expect(trail.entries.at(-1)?.note).toBe(
        'Price agreed with the landlord. Edited before approval: value_pence, stage.',
      );
    });

    it('an edit may move the proposal to another of the tenant’s properties, never to another tenant’s (422)', async () => {
      const tenant = await makeReviewTenant(t);
      const other = await makeReviewTenant(t);
      const [first, second] = [await makeProperty(t, tenant.id), await makeProperty(t, tenant.id)];
      const foreign = await makeProperty(t, other.id);
      const proposal = await makeProposal(t, tenant.id, 'deal', { title: 'Moved', property_id: first.id });

      expectProblem(
        await approve(tenant, proposal.id, { edits: { property_id: foreign.id } }),
        422,
        'unknown-property',
      );
      expect(await t.db.deal.count({ where: { tenantId: { in: [tenant.id, other.id] } } })).toBe(0);

      const body = expectContract(
        ApproveResponse,
        (await approve(tenant, proposal.id, { edits: { property_id: second.id } })).body,
      );
      expect((await t.db.deal.findUniqueOrThrow({ where: { id: body.record.id } })).propertyId).toBe(
        second.id,
      );
      expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).propertyId).toBe(
        second.id,
      );
    });

    it('refuses invalid edits with 400 and pointers into #/edits, and changes nothing', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'financial_log', {
        property_id: property.id,
        date: '2026-06-12',
        direction: 'expense',
        category: 'repair',
        net_pence: 100,
      });
      const res = await approve(tenant, proposal.id, {
        edits: { net_pence: -5, category: 'bribes', colour: 'blue' },
      });
      const p = expectProblem(res, 400, 'validation-failed');
      expect(p.errors?.map((e) => e.pointer).sort()).toEqual([
        '#/edits/category',
        '#/edits/colour',
        '#/edits/net_pence',
      ]);
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } });
      expect(stored.status).toBe('pending_review');
      expect(await t.db.financialLog.count({ where: { tenantId: tenant.id } })).toBe(0);
      expect(await t.db.auditEntry.count({ where: { proposalId: proposal.id } })).toBe(1);
    });

    it('answers 422 unknown-property when the property has gone since the proposal, and stays pending', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'financial_log', {
        property_id: property.id,
        date: '2026-06-12',
        direction: 'income',
        category: 'rent_received',
        net_pence: 120_000,
      });
      await t.db.property.delete({ where: { id: property.id } });
      expectProblem(await approve(tenant, proposal.id), 422, 'unknown-property');
      expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe(
        'pending_review',
      );
    });

    it('answers 409 proposal-not-pending with current_status once decided', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'deal', { title: 'Once', property_id: property.id });
      expect((await approve(tenant, proposal.id)).status).toBe(200);
      const p = expectProblem(await approve(tenant, proposal.id), 409, 'proposal-not-pending');
      expect(p).toMatchObject({ current_status: 'approved' });
      expect(await t.db.deal.count({ where: { tenantId: tenant.id } })).toBe(1);
    });

    it('treats a pending proposal past its expiry as expired: 409, marked expired by the system', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(
        t,
        tenant.id,
        'deal',
        {
          title: 'Too late',
          property_id: property.id,
        },
        { createdAt: new Date('2026-05-01T09:00:00Z') },
      );
      const p = expectProblem(await approve(tenant, proposal.id), 409, 'proposal-not-pending');
      expect(p).toMatchObject({ current_status: 'expired' });
      expect(await t.db.deal.count({ where: { tenantId: tenant.id } })).toBe(0);
      const trail = expectContract(AuditResponse, (await audit(tenant, proposal.id)).body);
      expect(trail.entries.map((e) => [e.action, e.actor, e.to_status])).toEqual([
        ['submitted', SUBMITTER, 'pending_review'],
        ['expired', 'system', 'expired'],
      ]);
      expect(trail.entries[1]?.note).toBe('Not reviewed within 14 days.');
    });

    it('answers 404 proposal-not-found for an id that does not exist', async () => {
      const tenant = await makeReviewTenant(t);
      expectProblem(await approve(tenant, 2_000_000_000), 404, 'proposal-not-found');
    });
  });

  describe('POST /api/admin/proposals/{id}/reject', () => {
    it('rejects with the reason: no record, the reason is the decision note and the audit note', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'deal', {
        title: 'Refinance',
        property_id: property.id,
      });
      const res = await reject(tenant, proposal.id, { reason: 'Duplicate of an open deal.' });
      expect(res.status).toBe(200);
      expect(expectContract(RejectResponse, res.body)).toEqual({
        proposal_id: proposal.id,
        status: 'rejected',
      });
      expect(await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).toMatchObject({
        status: 'rejected',
        decidedBy: tenant.adminEmail,
        decisionNote: 'Duplicate of an open deal.',
        recordId: null,
      });
      expect(await t.db.deal.count({ where: { tenantId: tenant.id } })).toBe(0);
      expectProblem(await reject(tenant, proposal.id, { reason: 'again' }), 409, 'proposal-not-pending');
      expectProblem(await approve(tenant, proposal.id), 409, 'proposal-not-pending');
    });

    it.each([
      ['no reason', {}],
      ['an empty reason', { reason: '' }],
      ['a blank reason', { reason: '   ' }],
    ])('needs a reason: %s → 400 pointing at #/reason', async (_name, body) => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'deal', { title: 'X', property_id: property.id });
      const p = expectProblem(await reject(tenant, proposal.id, body), 400, 'validation-failed');
      expect(p.errors?.[0]?.pointer).toBe('#/reason');
      expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe(
        'pending_review',
      );
    });
  });

  describe('GET /api/admin/proposals/{id}/audit', () => {
    it('lists submit then approve, oldest first, with actors and notes', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'deal', {
        title: 'Audit me',
        property_id: property.id,
        review_notes: 'Seen in the broker’s email.',
      });
      await approve(tenant, proposal.id, { note: 'Fine.' });
      const res = await audit(tenant, proposal.id);
      expect(res.status).toBe(200);
      expect(expectContract(AuditResponse, res.body)).toEqual({
        proposal_id: proposal.id,
        entries: [
          {
            at: proposal.createdAt.toISOString(),
            actor: SUBMITTER,
            action: 'submitted',
            from_status: null,
            to_status: 'pending_review',
            note: 'Seen in the broker’s email.',
            channel: 'rest',
          },
          {
            at: t.clock.now().toISOString(),
            actor: tenant.adminEmail,
            action: 'approved',
            from_status: 'pending_review',
            to_status: 'approved',
            note: 'Fine.',
            channel: 'rest',
          },
        ],
      });
    });

    it('lists submit then reject with the reason', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'deal', { title: 'No', property_id: property.id });
      await reject(tenant, proposal.id, { reason: 'Not ours.' });
      const trail = expectContract(AuditResponse, (await audit(tenant, proposal.id)).body);
      expect(trail.entries.map((e) => [e.action, e.actor, e.from_status, e.to_status, e.note])).toEqual([
        ['submitted', SUBMITTER, null, 'pending_review', null],
        ['rejected', tenant.adminEmail, 'pending_review', 'rejected', 'Not ours.'],
      ]);
    });

    it('names MCP as the channel of what an assistant did over MCP, REST for the rest', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(
        t,
        tenant.id,
        'deal',
        { title: 'Over MCP', property_id: property.id },
        { submittedBy: 'Claude', channel: 'mcp' },
      );
      await approve(tenant, proposal.id, {});
      const trail = expectContract(AuditResponse, (await audit(tenant, proposal.id)).body);
      expect(trail.entries.map((e) => [e.action, e.actor, e.channel])).toEqual([
        ['submitted', 'Claude', 'mcp'],
        ['approved', tenant.adminEmail, 'rest'],
      ]);
    });
  });

  describe('GET /api/admin/review-queue', () => {
    it('lists pending proposals oldest first (next to expire on top), decided ones newest first, page by page', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const at = (d: string) => ({ createdAt: new Date(`2026-06-${d}T08:00:00Z`) });
      // created out of id order on purpose: the order is by time
      const p3 = await makeProposal(
        t,
        tenant.id,
        'deal',
        { title: 'Third', property_id: property.id },
        at('14'),
      );
      const p1 = await makeProposal(
        t,
        tenant.id,
        'deal',
        { title: 'First', property_id: property.id },
        at('10'),
      );
      const p2 = await makeProposal(
        t,
        tenant.id,
        'deal',
        { title: 'Second', property_id: property.id },
        at('12'),
      );
      const d1 = await makeProposal(
        t,
        tenant.id,
        'deal',
        { title: 'Old', property_id: property.id },
        at('02'),
      );
      const d2 = await makeProposal(
        t,
        tenant.id,
        'deal',
        { title: 'Newer', property_id: property.id },
        at('05'),
      );
      await reject(tenant, d1.id, { reason: 'no' });
      await reject(tenant, d2.id, { reason: 'no' });

      const page = async (query: string) => {
        const res = await request(t.app)
          .get(`/api/admin/review-queue${query}`)
          .set(...bearer(tenant.adminKey));
        expect(res.status).toBe(200);
        expect(res.headers['cache-control']).toBe('no-store');
        return expectContract(ReviewQueueResponse, res.body);
      };
      const first = await page('?limit=2');
      expect(first.items.map((i) => i.proposal_id)).toEqual([p1.id, p2.id]);
      expect(first.next_cursor).not.toBeNull();
      const second = await page(`?limit=2&cursor=${first.next_cursor}`);
      expect(second.items.map((i) => i.proposal_id)).toEqual([p3.id]);
      expect(second.next_cursor).toBeNull();

      const rejected = await page('?status=rejected');
      expect(rejected.items.map((i) => i.proposal_id)).toEqual([d2.id, d1.id]);
      expect(rejected.items[0]).toMatchObject({
        status: 'rejected',
        decided_by: tenant.adminEmail,
        decision_note: 'no',
      });
      const all = await page('?status=all&limit=3');
      expect(all.items.map((i) => i.proposal_id)).toEqual([p3.id, p2.id, p1.id]);
      expect(
        (await page(`?status=all&limit=3&cursor=${all.next_cursor}`)).items.map((i) => i.proposal_id),
      ).toEqual([d2.id, d1.id]);
      expect((await page('?kind=financial_log')).items).toEqual([]);
    });

    it('answers 400 for a cursor it did not issue', async () => {
      const tenant = await makeReviewTenant(t);
      const p = expectProblem(
        await request(t.app)
          .get(`/api/admin/review-queue?cursor=${Buffer.from('d:5').toString('base64url')}`)
          .set(...bearer(tenant.adminKey)),
        400,
        'validation-failed',
      );
      expect(p.errors?.[0]?.pointer).toBe('#/cursor');
    });
  });
});
