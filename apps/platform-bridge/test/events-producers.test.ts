import { PlatformEvent } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepProposals } from '../src/features/proposals/proposal-expiry.ts';
import { bearer, makeItem, makeProperty } from './support/factories.ts';
import { makeProposal, makeReviewTenant, type ReviewTenant } from './support/proposal-factory.ts';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

// The signed events' producers: each event is written to the outbox in the transaction of the change
// that causes it, and only for a tenant whose `platform_event_webhooks` flag is on. Read here from the outbox
// (platform_events); their delivery is webhooks-*.test.ts's. Today is 2026-06-15 (London).

describe.each(BRIDGE_BACKENDS)('event producers on %s', (_name, backend) => {
  let t: TestBridge;
  beforeAll(async () => {
    t = await startTestBridge({ now: '2026-06-15T09:00:00Z', backend });
  });
  afterAll(async () => t?.close());

  const FLAGS = ['assistant_external_bridge', 'assistant_bridge_review_queue', 'platform_event_webhooks'];

  async function outbox(tenantId: number) {
    const rows = await t.db.outboxEvent.findMany({ where: { tenantId }, orderBy: { id: 'asc' } });
    return rows.map((r) => PlatformEvent.parse(r.payload));
  }

  const decide = (tenant: ReviewTenant, id: number, action: 'approve' | 'reject', body: object = {}) =>
    request(t.app)
      .post(`/api/admin/proposals/${id}/${action}`)
      .set(...bearer(tenant.adminKey))
      .send(body);

  describe('proposal events', () => {
    it('an approval writes proposal.approved with the label, the note and the record it created', async () => {
      const tenant = await makeReviewTenant(t, { flags: FLAGS });
      const property = await makeProperty(t, tenant.id);
      const deal = await makeProposal(t, tenant.id, 'deal', {
        title: 'Acquire 14 Oak Street',
        property_id: property.id,
      });
      const res = await decide(tenant, deal.id, 'approve', { note: 'Go ahead.' });
      expect(res.status).toBe(200);
      const [event] = await outbox(tenant.id);
      expect(event).toMatchObject({
        type: 'proposal.approved',
        data: {
          tenant_slug: tenant.slug,
          proposal_id: deal.id,
          kind: 'deal',
          label: 'Acquire 14 Oak Street',
          status: 'approved',
          decision_note: 'Go ahead.',
          record: { type: 'deal', id: res.body.record.id },
        },
      });
      expect(event?.type === 'proposal.approved' && event.data.decided_at).toBeTruthy();
    });

    it('a rejection writes proposal.rejected with the reason; labels name the property for other kinds', async () => {
      const tenant = await makeReviewTenant(t, { flags: FLAGS });
      const property = await makeProperty(t, tenant.id);
      const gas = await makeProposal(t, tenant.id, 'compliance_update', {
        property_id: property.id,
        compliance_type: 'gas_safety',
        issue_date: '2026-06-01',
      });
      const repair = await makeProposal(t, tenant.id, 'financial_log', {
        property_id: property.id,
        date: '2026-06-10',
        direction: 'expense',
        category: 'repair',
        net_pence: 10_000,
        vat_pence: 2_000,
      });
      expect((await decide(tenant, gas.id, 'reject', { reason: 'Wrong certificate.' })).status).toBe(200);
      expect((await decide(tenant, repair.id, 'reject', { reason: 'Duplicate.' })).status).toBe(200);
      const events = await outbox(tenant.id);
      expect(events.map((e) => [e.type, 'label' in e.data && e.data.label])).toEqual([
        ['proposal.rejected', `Gas safety certificate at ${property.ref}`],
        ['proposal.rejected', `Repair £120.00 at ${property.ref}`],
      ]);
      expect(events[0]!.type === 'proposal.rejected' && events[0]!.data.decision_note).toBe(
        'Wrong certificate.',
      );
    });

    it('a decision that fails writes nothing; a tenant with events off gets nothing', async () => {
      const tenant = await makeReviewTenant(t, { flags: FLAGS });
      const property = await makeProperty(t, tenant.id);
      const deal = await makeProposal(t, tenant.id, 'deal', { title: 'Gone', property_id: property.id });
      await t.db.property.delete({ where: { id: property.id } });
      const res = await decide(tenant, deal.id, 'approve');
      expect(res.status).toBe(422);
      expect(await outbox(tenant.id)).toEqual([]);

      const quiet = await makeReviewTenant(t);
      const other = await makeProposal(t, quiet.id, 'deal', { title: 'Quiet', property_id: null });
      expect((await decide(quiet, other.id, 'approve')).status).toBe(200);
      expect(await outbox(quiet.id)).toEqual([]);
    });

    it('the expiry sweep writes proposal.expired for each proposal it expires', async () => {
      const tenant = await makeReviewTenant(t, { flags: FLAGS });
      const a = await makeProposal(t, tenant.id, 'deal', { title: 'Old one', property_id: null });
      const b = await makeProposal(t, tenant.id, 'deal', { title: 'Old two', property_id: null });
      await t.db.proposal.updateMany({
        where: { id: { in: [a.id, b.id] } },
        data: { expiresAt: new Date('2026-06-14T00:00:00Z') },
      });
      await sweepProposals({ db: t.db, clock: t.clock, ttlDays: 14 });
      const events = await outbox(tenant.id);
      expect(events.map((e) => e.type)).toEqual(['proposal.expired', 'proposal.expired']);
      expect(events.map((e) => e.type === 'proposal.expired' && e.data.proposal_id).sort()).toEqual(
        [a.id, b.id].sort(),
      );
      expect(events[0]!.type === 'proposal.expired' && events[0]!.data.decided_at).toBeNull();
      // a second sweep finds nothing more to expire, and writes nothing
      await sweepProposals({ db: t.db, clock: t.clock, ttlDays: 14 });
      expect(await outbox(tenant.id)).toHaveLength(2);
    });
  });

  describe('compliance.status_changed', () => {
    it('is sent once when an item enters expiring_soon, once when it expires, never on a first evaluation', async () => {
      const tenant = await makeReviewTenant(t, { flags: FLAGS });
      const property = await makeProperty(t, tenant.id, { line1: '14 Oak Street', postcode: 'M1 4OS' });
      // already expired when first evaluated: baselined, no event
      await makeItem(t, tenant.id, property.id, 'eicr', {
        issueDate: '2021-01-01',
        expiryDate: '2026-01-01',
      });
      // valid today (due 30 Sep, gas safety's window is 60 days)
      const gas = await makeItem(t, tenant.id, property.id, 'gas_safety', {
        issueDate: '2025-09-30',
        expiryDate: '2026-09-30',
      });
      expect(await outbox(tenant.id)).toEqual([]);

      // two months later: within the window
      t.clock.set('2026-08-15T09:00:00Z');
      await t.rollup.refreshStale(tenant.id);
      // and again the same day: nothing new
      await t.rollup.refreshProperties(tenant.id, [property.id]);
      // past the expiry
      t.clock.set('2026-10-01T09:00:00Z');
      await t.rollup.refreshStale(tenant.id);
      await t.rollup.refreshProperties(tenant.id, [property.id]);
      t.clock.set('2026-06-15T09:00:00Z');

      const events = await outbox(tenant.id);
      expect(events).toEqual([
        expect.objectContaining({
          type: 'compliance.status_changed',
          data: {
            tenant_slug: tenant.slug,
            property_id: property.id,
            property_ref: property.ref,
            address: '14 Oak Street, Manchester, M1 4OS',
            item_id: gas.id,
            compliance_type: 'gas_safety',
            previous_status: 'valid',
            status: 'expiring_soon',
            expiry_date: '2026-09-30',
          },
        }),
        expect.objectContaining({
          type: 'compliance.status_changed',
          data: expect.objectContaining({
            item_id: gas.id,
            previous_status: 'expiring_soon',
            status: 'expired',
          }),
        }),
      ]);
    });
  });
});
