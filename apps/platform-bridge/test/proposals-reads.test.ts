import { Proposal, ProposalsResponse } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepProposals } from '../src/features/proposals/proposal-expiry.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeTenant } from './support/factories.ts';
import { appWith, makeWritingTenant, propose, WRITES_FLAGS } from './support/proposals.ts';
import { fixedClock, BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

describe.each(BRIDGE_BACKENDS)('proposal reads, withdrawal and expiry on %s', (_name, backend) => {
  let t: TestBridge;
  const NOW = '2026-06-15T09:00:00.000Z';
  beforeAll(async () => {
    t = await startTestBridge({ now: NOW, backend });
  });
  afterAll(async () => t?.close());

  const BASE = '/api/assistant-bridge/proposals';
  type Tenant = Awaited<ReturnType<typeof makeWritingTenant>>;

  async function submitDeal(tenant: Tenant, title = 'Buy 9 Quay St') {
    const res = await propose(t.app, tenant.key, 'deal', { title, property_id: tenant.property.id });
    expect(res.status).toBe(201);
    return res.body.proposal_id as number;
  }
  const get = (key: string, path: string) =>
    request(t.app)
      .get(path)
      .set(...bearer(key));
  const withdraw = (key: string, id: number) =>
    request(t.app)
      .delete(`${BASE}/${id}`)
      .set(...bearer(key));

  describe('GET /proposals/{id}', () => {
    it('answers the proposal with its payload, no decision and no record', async () => {
      const tenant = await makeWritingTenant(t);
      const id = await submitDeal(tenant);
      const res = await get(tenant.key, `${BASE}/${id}`);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(expectContract(Proposal, res.body)).toEqual({
        proposal_id: id,
        kind: 'deal',
        status: 'pending_review',
        created_at: NOW,
        expires_at: '2026-06-29T09:00:00.000Z',
        decided_at: null,
        decision_note: null,
        payload: { title: 'Buy 9 Quay St', property_id: tenant.property.id, deal_type: 'acquisition' },
        record: null,
      });
    });

    it('reads with a bridge:read key, with writes off', async () => {
      const tenant = await makeWritingTenant(t);
      const id = await submitDeal(tenant);
      await t.admin.setFlag(tenant.slug, 'assistant_bridge_writes', false);
      const reader = await t.admin.createKey(tenant.slug, ['bridge:read']);
      expect((await get(reader.key, `${BASE}/${id}`)).status).toBe(200);
    });

    it('404 proposal-not-found for another tenant’s proposal and for none', async () => {
      const tenant = await makeWritingTenant(t);
      const other = await makeWritingTenant(t);
      const theirs = await submitDeal(other);
      expectProblem(await get(tenant.key, `${BASE}/${theirs}`), 404, 'proposal-not-found');
      expectProblem(await get(tenant.key, `${BASE}/2000000000`), 404, 'proposal-not-found');
    });

    it('400 validation-failed for an id that is not a positive integer', async () => {
      const tenant = await makeWritingTenant(t);
      expectProblem(await get(tenant.key, `${BASE}/abc`), 400, 'validation-failed');
      expectProblem(await get(tenant.key, `${BASE}/0`), 400, 'validation-failed');
    });
  });

  describe('GET /proposals', () => {
    it('lists the tenant’s own proposals newest first, by status, a page at a time', async () => {
      const tenant = await makeWritingTenant(t);
      const other = await makeWritingTenant(t);
      await submitDeal(other);
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push(await submitDeal(tenant, `Deal ${i}`));
      expect((await withdraw(tenant.key, ids[1]!)).status).toBe(200);

      const all = expectContract(ProposalsResponse, (await get(tenant.key, BASE)).body);
      expect(all.proposals.map((p) => p.proposal_id)).toEqual([...ids].reverse());
      expect(all.next_cursor).toBeNull();

      const pending = expectContract(
        ProposalsResponse,
        (await get(tenant.key, `${BASE}?status=pending_review`)).body,
      );
      expect(pending.proposals.map((p) => p.proposal_id)).toEqual([ids[4], ids[3], ids[2], ids[0]]);
      const withdrawn = expectContract(
        ProposalsResponse,
        (await get(tenant.key, `${BASE}?status=withdrawn`)).body,
      );
      expect(withdrawn.proposals.map((p) => p.proposal_id)).toEqual([ids[1]]);

      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page: ProposalsResponse = expectContract(
          ProposalsResponse,
          (await get(tenant.key, `${BASE}?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body,
        );
        expect(page.proposals.length).toBeLessThanOrEqual(2);
        seen.push(...page.proposals.map((p) => p.proposal_id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual([...ids].reverse());
    });

    it.each([['status=open'], ['limit=0'], ['limit=101'], ['cursor=bm9wZQ'], ['other=1']])(
      '400 validation-failed for %s',
      async (query) => {
        const tenant = await makeWritingTenant(t);
        expectProblem(await get(tenant.key, `${BASE}?${query}`), 400, 'validation-failed');
      },
    );
  });

  describe('DELETE /proposals/{id}', () => {
    it('withdraws a pending proposal: withdrawn, decided by the key, with an audit entry', async () => {
      const tenant = await makeWritingTenant(t, { label: 'Ops assistant' });
      const id = await submitDeal(tenant);
      t.clock.set('2026-06-16T10:30:00.000Z');
      try {
        const res = await withdraw(tenant.key, id);
        expect(res.status).toBe(200);
        expect(expectContract(Proposal, res.body)).toMatchObject({
          proposal_id: id,
          status: 'withdrawn',
          decided_at: '2026-06-16T10:30:00.000Z',
          decision_note: null,
          record: null,
        });
      } finally {
        t.clock.set(NOW);
      }
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id } });
      expect(stored).toMatchObject({ status: 'withdrawn', decidedBy: 'Ops assistant' });
      const audit = await t.db.auditEntry.findMany({
        where: { tenantId: tenant.id, proposalId: id },
        orderBy: { id: 'asc' },
      });
      expect(audit.map((a) => [a.actor, a.action, a.fromStatus, a.toStatus])).toEqual([
        ['Ops assistant', 'submitted', null, 'pending_review'],
        ['Ops assistant', 'withdrawn', 'pending_review', 'withdrawn'],
      ]);
      expect(audit[1]!.at).toEqual(new Date('2026-06-16T10:30:00.000Z'));
    });

    it('409 proposal-not-pending with current_status when withdrawn again, leaving it as it is', async () => {
      const tenant = await makeWritingTenant(t);
      const id = await submitDeal(tenant);
      expect((await withdraw(tenant.key, id)).status).toBe(200);
      const again = await withdraw(tenant.key, id);
      const p = expectProblem(again, 409, 'proposal-not-pending');
      expect(p.current_status).toBe('withdrawn');
      expect(await t.db.auditEntry.count({ where: { tenantId: tenant.id, proposalId: id } })).toBe(2);
    });

    it.each(['approved', 'rejected', 'expired'])(
      '409 proposal-not-pending for an %s proposal',
      async (status) => {
        const tenant = await makeWritingTenant(t);
        const id = await submitDeal(tenant);
        await t.db.proposal.update({
          where: { id },
          data: { status, decidedAt: new Date(NOW), decidedBy: 'x' },
        });
        const p = expectProblem(await withdraw(tenant.key, id), 409, 'proposal-not-pending');
        expect(p.current_status).toBe(status);
        expect((await t.db.proposal.findUniqueOrThrow({ where: { id } })).status).toBe(status);
      },
    );

    it('404 proposal-not-found for another tenant’s proposal, leaving it pending', async () => {
      const tenant = await makeWritingTenant(t);
      const other = await makeWritingTenant(t);
      const theirs = await submitDeal(other);
      expectProblem(await withdraw(tenant.key, theirs), 404, 'proposal-not-found');
      expect((await t.db.proposal.findUniqueOrThrow({ where: { id: theirs } })).status).toBe(
        'pending_review',
      );
    });

    it('403 insufficient-scope for a bridge:read key', async () => {
      const tenant = await makeWritingTenant(t);
      const id = await submitDeal(tenant);
      const reader = await t.admin.createKey(tenant.slug, ['bridge:read']);
      expectProblem(await withdraw(reader.key, id), 403, 'insufficient-scope');
      expect((await t.db.proposal.findUniqueOrThrow({ where: { id } })).status).toBe('pending_review');
    });

    it('404 writes-not-enabled while assistant_bridge_writes is off', async () => {
      const tenant = await makeWritingTenant(t);
      const id = await submitDeal(tenant);
      await t.admin.setFlag(tenant.slug, 'assistant_bridge_writes', false);
      expectProblem(await withdraw(tenant.key, id), 404, 'writes-not-enabled');
      expect((await t.db.proposal.findUniqueOrThrow({ where: { id } })).status).toBe('pending_review');
    });
  });

  describe('proposal expiry sweep', () => {
    it('expires pending proposals past expires_at (system, note, audit entry), and leaves the rest alone', async () => {
      const tenant = await makeWritingTenant(t);
      const due = await submitDeal(tenant, 'Due');
      const decided = await submitDeal(tenant, 'Withdrawn');
      expect((await withdraw(tenant.key, decided)).status).toBe(200);
      t.clock.set('2026-06-20T09:00:00.000Z');
      let young: number;
      try {
        young = await submitDeal(tenant, 'Young');
      } finally {
        t.clock.set(NOW);
      }

      const clock = fixedClock('2026-06-29T08:59:59.999Z');
      await sweepProposals({ db: t.db, clock, ttlDays: 14 });
      expect((await t.db.proposal.findUniqueOrThrow({ where: { id: due } })).status).toBe('pending_review');

      clock.set('2026-06-29T09:00:00.000Z');
      const swept = await sweepProposals({ db: t.db, clock, ttlDays: 14, batch: 1 });
      expect(swept.expired).toBeGreaterThanOrEqual(1);
      const expired = await t.db.proposal.findUniqueOrThrow({ where: { id: due } });
      expect(expired).toMatchObject({
        status: 'expired',
        decidedAt: new Date('2026-06-29T09:00:00.000Z'),
        decidedBy: 'system',
        decisionNote: 'Not reviewed within 14 days.',
      });
      const audit = await t.db.auditEntry.findMany({
        where: { tenantId: tenant.id, proposalId: due },
        orderBy: { id: 'asc' },
      });
      expect(audit.map((a) => [a.actor, a.action, a.fromStatus, a.toStatus, a.note])).toEqual([
        [tenant.label, 'submitted', null, 'pending_review', null],
        ['system', 'expired', 'pending_review', 'expired', 'Not reviewed within 14 days.'],
      ]);
      expect((await t.db.proposal.findUniqueOrThrow({ where: { id: decided } })).status).toBe('withdrawn');
      expect(await t.db.auditEntry.count({ where: { proposalId: decided } })).toBe(2);
      expect((await t.db.proposal.findUniqueOrThrow({ where: { id: young! } })).status).toBe(
        'pending_review',
      );

      // a second sweep finds nothing more of this tenant's to expire
      await sweepProposals({ db: t.db, clock, ttlDays: 14 });
      expect(await t.db.auditEntry.count({ where: { proposalId: due } })).toBe(2);

      const answer = expectContract(Proposal, (await get(tenant.key, `${BASE}/${due}`)).body);
      expect(answer).toMatchObject({ status: 'expired', decision_note: 'Not reviewed within 14 days.' });
    });

    it('two sweeps at once expire each proposal once', async () => {
      const tenant = await makeWritingTenant(t);
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) ids.push(await submitDeal(tenant, `Deal ${i}`));
      const clock = fixedClock('2026-07-01T00:00:00.000Z');
      await Promise.all([
        sweepProposals({ db: t.db, clock, ttlDays: 14, batch: 2 }),
        sweepProposals({ db: t.db, clock, ttlDays: 14, batch: 2 }),
      ]);
      expect(await t.db.proposal.count({ where: { id: { in: ids }, status: 'expired' } })).toBe(6);
      expect(await t.db.auditEntry.count({ where: { proposalId: { in: ids }, action: 'expired' } })).toBe(6);
    });

    it('uses the configured TTL for expires_at and the note', async () => {
      const tenant = await makeTenant(t, { flags: WRITES_FLAGS, scopes: ['bridge:propose'] });
      const app = appWith(t, { proposalTtlDays: 3 });
      const res = await request(app)
        .post(`${BASE}/deal`)
        .set(...bearer(tenant.key))
        .set('Idempotency-Key', 'ttl')
        .send({ title: 'Short', property_id: null });
      expect(res.body.expires_at).toBe('2026-06-18T09:00:00.000Z');
      await sweepProposals({ db: t.db, clock: fixedClock('2026-06-18T09:00:00.000Z'), ttlDays: 3 });
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: res.body.proposal_id as number } });
      expect(stored.decisionNote).toBe('Not reviewed within 3 days.');
    });
  });
});
