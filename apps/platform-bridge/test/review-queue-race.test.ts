import { ApproveResponse, Problem } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract } from './support/contract.ts';
import { makeProperty } from './support/factories.ts';
import { makeProposal, makeReviewTenant } from './support/proposal-factory.ts';
import { listenTestBridge, BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

// Racing decisions over real HTTP against one listening app: the proposal's row lock lets exactly one win.

describe.each(BRIDGE_BACKENDS)('raced decisions on %s', (_name, backend) => {
  let t: TestBridge;
  let server: Awaited<ReturnType<typeof listenTestBridge>>;
  beforeAll(async () => {
    t = await startTestBridge({ backend });
    server = await listenTestBridge(t);
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  async function post(key: string, path: string, body: object) {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  }

  describe('POST /api/admin/proposals/{id}/approve, raced', () => {
    it('20 concurrent approvals of one proposal create exactly one record and answer 19 × 409 proposal-not-pending', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'financial_log', {
        property_id: property.id,
        date: '2026-06-10',
        direction: 'expense',
        category: 'repair',
        net_pence: 10_000,
        vat_pence: 2_000,
      });
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post(tenant.adminKey, `/api/admin/proposals/${proposal.id}/approve`, { note: `attempt ${i}` }),
        ),
      );

      const won = answers.filter((a) => a.status === 200);
      const lost = answers.filter((a) => a.status === 409);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(19);
      const record = expectContract(ApproveResponse, won[0]!.body).record;
      for (const a of lost) {
        expect(expectContract(Problem, a.body)).toMatchObject({
          code: 'proposal-not-pending',
          current_status: 'approved',
        });
      }
      const logs = await t.db.financialLog.findMany({ where: { tenantId: tenant.id } });
      expect(logs.map((l) => l.id)).toEqual([record.id]);
      const audit = await t.db.auditEntry.findMany({
        where: { tenantId: tenant.id, proposalId: proposal.id },
      });
      expect(audit.map((e) => e.action).sort()).toEqual(['approved', 'submitted']);
    });

    it('approvals racing rejections: exactly one decision stands, and a record only if it was an approval', async () => {
      const tenant = await makeReviewTenant(t);
      const property = await makeProperty(t, tenant.id);
      const proposal = await makeProposal(t, tenant.id, 'deal', {
        title: 'Contested',
        property_id: property.id,
      });
      const path = (verb: string) => `/api/admin/proposals/${proposal.id}/${verb}`;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          i % 2
            ? post(tenant.adminKey, path('reject'), { reason: 'no' })
            : post(tenant.adminKey, path('approve'), {}),
        ),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(9);
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } });
      expect(await t.db.deal.count({ where: { tenantId: tenant.id } })).toBe(
        stored.status === 'approved' ? 1 : 0,
      );
      expect(await t.db.auditEntry.count({ where: { proposalId: proposal.id } })).toBe(2);
    });
  });
});
