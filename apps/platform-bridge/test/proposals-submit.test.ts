import { ProposalCreated, type ProposalKind } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeProperty, makeTenant } from './support/factories.ts';
import {
  appWith,
  makeWritingTenant,
  platformRecords,
  propose,
  proposalPath,
  WRITES_FLAGS,
} from './support/proposals.ts';
import { listenTestBridge, BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

describe.each(BRIDGE_BACKENDS)('proposal submission on %s', (_name, backend) => {
  let t: TestBridge;
  const NOW = '2026-06-15T09:00:00.000Z';
  beforeAll(async () => {
    t = await startTestBridge({ now: NOW, backend });
  });
  afterAll(async () => t?.close());

  const deal = (propertyId: number | null) => ({ title: 'Buy 14 Elm Row', property_id: propertyId });
  const compliance = (propertyId: number) => ({
    property_id: propertyId,
    compliance_type: 'gas_safety',
    issue_date: '2026-06-01',
  });
  const financial = (propertyId: number) => ({
    property_id: propertyId,
    date: '2026-06-10',
    direction: 'expense',
    category: 'repair',
    net_pence: 12_000,
  });
  const minimal = (kind: ProposalKind, propertyId: number) =>
    kind === 'deal'
      ? deal(propertyId)
      : kind === 'compliance_update'
        ? compliance(propertyId)
        : financial(propertyId);
  const KINDS = ['deal', 'compliance_update', 'financial_log'] as const;

  describe('POST /proposals/deal', () => {
    it('creates a pending proposal with its audit entry, answers 201 with Location, and creates no deal', async () => {
      const tenant = await makeWritingTenant(t, { label: 'Property Manager (assistant)' });
      const res = await propose(t.app, tenant.key, 'deal', {
        ...deal(tenant.property.id),
        review_notes: 'Vendor keen; asking £240k.',
        value_pence: 24_000_000,
        counterparty: 'Elm Estates',
        expected_close_date: '2026-09-30',
        stage: 'offer',
      });
      expect(res.status).toBe(201);
      const body = expectContract(ProposalCreated, res.body);
      expect(body).toEqual({
        proposal_id: body.proposal_id,
        status: 'pending_review',
        kind: 'deal',
        created_at: NOW,
        expires_at: '2026-06-29T09:00:00.000Z',
      });
      expect(res.headers.location).toBe(`/api/assistant-bridge/proposals/${body.proposal_id}`);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('no-store');

      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: body.proposal_id } });
      expect(stored).toMatchObject({
        tenantId: tenant.id,
        kind: 'deal',
        status: 'pending_review',
        propertyId: tenant.property.id,
        apiKeyId: tenant.keyId,
        submittedBy: 'Property Manager (assistant)',
        reviewNotes: 'Vendor keen; asking £240k.',
        decidedAt: null,
        recordType: null,
        recordId: null,
      });
      // the parsed body with its defaults
      expect(stored.payload).toEqual({
        title: 'Buy 14 Elm Row',
        property_id: tenant.property.id,
        review_notes: 'Vendor keen; asking £240k.',
        deal_type: 'acquisition',
        stage: 'offer',
        value_pence: 24_000_000,
        expected_close_date: '2026-09-30',
        counterparty: 'Elm Estates',
      });
      const audit = await t.db.auditEntry.findMany({ where: { tenantId: tenant.id } });
      expect(audit).toEqual([
        expect.objectContaining({
          proposalId: body.proposal_id,
          at: new Date(NOW),
          actor: 'Property Manager (assistant)',
          action: 'submitted',
          fromStatus: null,
          toStatus: 'pending_review',
          note: 'Vendor keen; asking £240k.',
        }),
      ]);
      expect(await platformRecords(t, tenant.id)).toEqual({ deals: 0, complianceItems: 0, financialLogs: 0 });
    });

    it('accepts a null property_id (a property not yet on the platform)', async () => {
      const tenant = await makeWritingTenant(t);
      const res = await propose(t.app, tenant.key, 'deal', deal(null));
      expect(res.status).toBe(201);
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: res.body.proposal_id as number } });
      expect(stored.propertyId).toBeNull();
    });

    it('names the key by its id in the audit trail when it has no label', async () => {
      const tenant = await makeTenant(t, { flags: WRITES_FLAGS, scopes: ['bridge:propose'] });
      const res = await propose(t.app, tenant.key, 'deal', deal(null));
      expect(res.status).toBe(201);
      const audit = await t.db.auditEntry.findFirstOrThrow({ where: { tenantId: tenant.id } });
      expect(audit.actor).toBe(`API key #${tenant.keyId}`);
    });
  });

  describe('POST /proposals/compliance-update', () => {
    it('fills a missing expiry_date from the type’s cycle and creates no compliance item', async () => {
      const tenant = await makeWritingTenant(t);
      const res = await propose(t.app, tenant.key, 'compliance_update', {
        ...compliance(tenant.property.id),
        reference_number: 'GS-1234',
        outcome: 'pass',
        contractor: { name: 'A. Fitter', scheme: 'Gas Safe', registration_number: '123456' },
      });
      expect(res.status).toBe(201);
      expect(expectContract(ProposalCreated, res.body).kind).toBe('compliance_update');
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: res.body.proposal_id as number } });
      expect(stored.payload).toMatchObject({ issue_date: '2026-06-01', expiry_date: '2027-05-31' });
      expect(await platformRecords(t, tenant.id)).toEqual({ deals: 0, complianceItems: 0, financialLogs: 0 });
    });

    it('keeps the expiry_date it is given, and leaves none for a type without a cycle', async () => {
      const tenant = await makeWritingTenant(t);
      const given = await propose(t.app, tenant.key, 'compliance_update', {
        ...compliance(tenant.property.id),
        expiry_date: '2027-01-31',
      });
      const noCycle = await propose(t.app, tenant.key, 'compliance_update', {
        ...compliance(tenant.property.id),
        compliance_type: 'smoke_co_alarms',
      });
      expect([given.status, noCycle.status]).toEqual([201, 201]);
      const [a, b] = await Promise.all(
        [given, noCycle].map((r) =>
          t.db.proposal.findUniqueOrThrow({ where: { id: r.body.proposal_id as number } }),
        ),
      );
      expect(a!.payload).toMatchObject({ expiry_date: '2027-01-31' });
      expect(b!.payload).not.toHaveProperty('expiry_date');
    });
  });

  describe('POST /proposals/financial-log', () => {
    it('defaults vat_pence to 0 and creates no financial log', async () => {
      const tenant = await makeWritingTenant(t);
      const res = await propose(t.app, tenant.key, 'financial_log', {
        ...financial(tenant.property.id),
        payee_or_payer: 'Fix-It Ltd',
        reference: 'INV-77',
        review_notes: 'Boiler repair',
      });
      expect(res.status).toBe(201);
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: res.body.proposal_id as number } });
      expect(stored.payload).toMatchObject({ net_pence: 12_000, vat_pence: 0, reference: 'INV-77' });
      expect(stored.reviewNotes).toBe('Boiler repair');
      expect(await platformRecords(t, tenant.id)).toEqual({ deals: 0, complianceItems: 0, financialLogs: 0 });
    });
  });

  describe('POST /proposals/* validation', () => {
    let tenant: Awaited<ReturnType<typeof makeWritingTenant>>;
    beforeAll(async () => {
      tenant = await makeWritingTenant(t);
    });

    // [kind, what changes in the minimal body, the pointer the 400 names]
    const cases: [ProposalKind, (b: Record<string, unknown>) => Record<string, unknown>, string][] = [
      ['deal', ({ title: _, ...b }) => b, '#/title'],
      ['deal', ({ property_id: _, ...b }) => b, '#/property_id'],
      ['deal', (b) => ({ ...b, title: '' }), '#/title'],
      ['deal', (b) => ({ ...b, title: 'x'.repeat(201) }), '#/title'],
      ['deal', (b) => ({ ...b, title: 'bad\u0000title' }), '#/title'],
      ['deal', (b) => ({ ...b, review_notes: 'x'.repeat(2001) }), '#/review_notes'],
      ['deal', (b) => ({ ...b, deal_type: 'timeshare' }), '#/deal_type'],
      ['deal', (b) => ({ ...b, value_pence: -1 }), '#/value_pence'],
      ['deal', (b) => ({ ...b, value_pence: 10.5 }), '#/value_pence'],
      ['deal', (b) => ({ ...b, expected_close_date: '2026-13-01' }), '#/expected_close_date'],
      ['deal', (b) => ({ ...b, property_id: 0 }), '#/property_id'],
      ['deal', (b) => ({ ...b, status: 'won' }), '#/status'],
      ['compliance_update', ({ property_id: _, ...b }) => b, '#/property_id'],
      ['compliance_update', ({ compliance_type: _, ...b }) => b, '#/compliance_type'],
      ['compliance_update', ({ issue_date: _, ...b }) => b, '#/issue_date'],
      ['compliance_update', (b) => ({ ...b, property_id: null }), '#/property_id'],
      ['compliance_update', (b) => ({ ...b, compliance_type: 'asbestos' }), '#/compliance_type'],
      ['compliance_update', (b) => ({ ...b, rating: 'H' }), '#/rating'],
      ['compliance_update', (b) => ({ ...b, eicr_codes: { c1: 0, c2: 1, c3: 2 } }), '#/eicr_codes/fi'],
      ['compliance_update', (b) => ({ ...b, contractor: { phone: '0161' } }), '#/contractor/phone'],
      ['compliance_update', (b) => ({ ...b, reference_number: 'x'.repeat(101) }), '#/reference_number'],
      ['financial_log', ({ date: _, ...b }) => b, '#/date'],
      ['financial_log', ({ direction: _, ...b }) => b, '#/direction'],
      ['financial_log', ({ category: _, ...b }) => b, '#/category'],
      ['financial_log', ({ net_pence: _, ...b }) => b, '#/net_pence'],
      ['financial_log', (b) => ({ ...b, net_pence: -5 }), '#/net_pence'],
      ['financial_log', (b) => ({ ...b, net_pence: 2_147_483_648 }), '#/net_pence'],
      ['financial_log', (b) => ({ ...b, vat_pence: -1 }), '#/vat_pence'],
      ['financial_log', (b) => ({ ...b, direction: 'sideways' }), '#/direction'],
      ['financial_log', (b) => ({ ...b, payee_or_payer: 'x'.repeat(201) }), '#/payee_or_payer'],
    ];

    it.each(cases)('%s: 400 validation-failed (%#) pointing at the field', async (kind, change, pointer) => {
      const res = await propose(t.app, tenant.key, kind, change(minimal(kind, tenant.property.id)));
      const p = expectProblem(res, 400, 'validation-failed');
      expect(p.errors?.map((e) => e.pointer)).toContain(pointer);
      expect(await t.db.proposal.count({ where: { tenantId: tenant.id } })).toBe(0);
    });

    it.each(KINDS)('%s: accepts every optional field at its bound', async (kind) => {
      const max = {
        deal: {
          ...deal(tenant.property.id),
          title: 'x'.repeat(200),
          review_notes: 'x'.repeat(2000),
          deal_type: 'refinance',
          stage: 'x'.repeat(100),
          value_pence: 2_147_483_647,
          expected_close_date: '2027-02-28',
          counterparty: 'x'.repeat(200),
        },
        compliance_update: {
          ...compliance(tenant.property.id),
          compliance_type: 'eicr',
          expiry_date: '2031-05-31',
          reference_number: 'x'.repeat(100),
          outcome: 'satisfactory',
          rating: 'C',
          eicr_codes: { c1: 0, c2: 0, c3: 999, fi: 0 },
          contractor: { name: 'n', company: 'c', scheme: 'NICEIC', registration_number: 'x'.repeat(50) },
          review_notes: 'x'.repeat(2000),
        },
        financial_log: {
          ...financial(tenant.property.id),
          net_pence: 0,
          vat_pence: 2_147_483_647,
          payee_or_payer: 'x'.repeat(200),
          reference: 'x'.repeat(100),
          review_notes: '',
        },
      }[kind];
      const res = await propose(t.app, tenant.key, kind, max);
      expect(res.status).toBe(201);
      const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: res.body.proposal_id as number } });
      expect(stored.payload).toEqual(max);
    });

    it('400 malformed-json for a body that is not JSON', async () => {
      const res = await request(t.app)
        .post(proposalPath('deal'))
        .set(...bearer(tenant.key))
        .set('Idempotency-Key', 'k-malformed')
        .set('Content-Type', 'application/json')
        .send('{"title": "x",');
      expectProblem(res, 400, 'malformed-json');
    });

    it.each([
      ['text/plain', 'title=x'],
      ['application/x-www-form-urlencoded', 'title=x&property_id=1'],
    ])('415 unsupported-media-type for %s', async (type, body) => {
      const res = await request(t.app)
        .post(proposalPath('financial_log'))
        .set(...bearer(tenant.key))
        .set('Idempotency-Key', 'k-415')
        .set('Content-Type', type)
        .send(body);
      expectProblem(res, 415, 'unsupported-media-type');
    });
  });

  describe('POST /proposals/* property check', () => {
    it.each(KINDS)('%s: 422 unknown-property for a property that does not exist', async (kind) => {
      const tenant = await makeWritingTenant(t);
      const res = await propose(t.app, tenant.key, kind, minimal(kind, 2_000_000_000));
      expectProblem(res, 422, 'unknown-property');
      expect(await t.db.proposal.count({ where: { tenantId: tenant.id } })).toBe(0);
    });

    it('422 unknown-property for another tenant’s property, storing nothing, so the same key works once fixed', async () => {
      const tenant = await makeWritingTenant(t);
      const other = await makeTenant(t);
      const theirs = await makeProperty(t, other.id);
      const refused = await propose(t.app, tenant.key, 'financial_log', financial(theirs.id), 'fix-me');
      expectProblem(refused, 422, 'unknown-property');
      expect(await t.db.proposal.count({ where: { tenantId: tenant.id } })).toBe(0);
      expect(await t.db.idempotencyKey.count({ where: { tenantId: tenant.id } })).toBe(0);
      expect(await t.db.auditEntry.count({ where: { tenantId: tenant.id } })).toBe(0);

      const fixed = await propose(
        t.app,
        tenant.key,
        'financial_log',
        financial(tenant.property.id),
        'fix-me',
      );
      expect(fixed.status).toBe(201);
    });
  });

  describe('POST /proposals/* scopes and flags', () => {
    it.each(KINDS)('%s: 403 insufficient-scope for a bridge:read key', async (kind) => {
      const tenant = await makeWritingTenant(t, { scopes: ['bridge:read'] });
      const res = await propose(t.app, tenant.key, kind, minimal(kind, tenant.property.id));
      const p = expectProblem(res, 403, 'insufficient-scope');
      expect(p.detail).toContain('bridge:propose');
      expect(res.headers['www-authenticate']).toContain('insufficient_scope');
      expect(await t.db.proposal.count({ where: { tenantId: tenant.id } })).toBe(0);
    });

    it.each(KINDS)('%s: 404 writes-not-enabled while assistant_bridge_writes is off', async (kind) => {
      const tenant = await makeWritingTenant(t, { flags: ['assistant_external_bridge'] });
      const res = await propose(t.app, tenant.key, kind, minimal(kind, tenant.property.id));
      expectProblem(res, 404, 'writes-not-enabled');
      expect(await t.db.proposal.count({ where: { tenantId: tenant.id } })).toBe(0);
    });

    it('404 bridge-not-enabled while assistant_external_bridge is off, even with writes on', async () => {
      const tenant = await makeWritingTenant(t, { flags: ['assistant_bridge_writes'] });
      expectProblem(await propose(t.app, tenant.key, 'deal', deal(null)), 404, 'bridge-not-enabled');
    });

    it('401 invalid-api-key without a key', async () => {
      const res = await request(t.app)
        .post(proposalPath('deal'))
        .set('Idempotency-Key', 'k')
        .send(deal(null));
      expectProblem(res, 401, 'invalid-api-key');
    });
  });

  describe('POST /proposals/* quota', () => {
    it('429 proposal-quota-exceeded with Retry-After once PROPOSAL_PENDING_LIMIT proposals wait, and room again after a withdrawal', async () => {
      const app = appWith(t, { proposalPendingLimit: 2 });
      const tenant = await makeWritingTenant(t);
      const first = await propose(app, tenant.key, 'deal', deal(null));
      expect(first.status).toBe(201);
      expect((await propose(app, tenant.key, 'deal', deal(null))).status).toBe(201);
      const refused = await propose(app, tenant.key, 'deal', deal(null), 'third');
      const p = expectProblem(refused, 429, 'proposal-quota-exceeded');
      expect(refused.headers['retry-after']).toBe('3600');
      expect(p.retry_after_seconds).toBe(3600);
      expect(await t.db.proposal.count({ where: { tenantId: tenant.id } })).toBe(2);
      expect(await t.db.idempotencyKey.count({ where: { tenantId: tenant.id } })).toBe(2);

      // another tenant's quota is its own
      const other = await makeWritingTenant(t);
      expect((await propose(app, other.key, 'deal', deal(null))).status).toBe(201);

      const withdrawn = await request(app)
        .delete(first.headers.location!)
        .set(...bearer(tenant.key));
      expect(withdrawn.status).toBe(200);
      expect((await propose(app, tenant.key, 'deal', deal(null), 'third')).status).toBe(201);
    });

    it('holds exactly under concurrent submissions', async () => {
      const app = appWith(t, { proposalPendingLimit: 3 });
      const tenant = await makeWritingTenant(t);
      const server = await listenTestBridge({ ...t, app });
      try {
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            fetch(`${server.baseUrl}${proposalPath('deal')}`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${tenant.key}`,
                'content-type': 'application/json',
                'idempotency-key': `quota-${i}`,
              },
              body: JSON.stringify({ title: `Deal ${i}`, property_id: tenant.property.id }),
            }).then(async (r) => ({ status: r.status, code: ((await r.json()) as { code?: string }).code })),
          ),
        );
        expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
        expect(answers.filter((a) => a.status === 429 && a.code === 'proposal-quota-exceeded')).toHaveLength(
          9,
        );
        expect(await t.db.proposal.count({ where: { tenantId: tenant.id, status: 'pending_review' } })).toBe(
          3,
        );
        expect(await t.db.auditEntry.count({ where: { tenantId: tenant.id } })).toBe(3);
      } finally {
        await server.close();
      }
    });
  });
});
