import { ProposalCreated } from '@pa/contracts';
import { rawRequest } from '@pa/http-kit/testing';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepProposals } from '../src/features/proposals/proposal-expiry.ts';
import { idempotencyLockId } from '../src/lib/idempotency-key.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer } from './support/factories.ts';
import { appWith, makeWritingTenant, propose, proposalPath } from './support/proposals.ts';
import { statementTransaction } from '../src/lib/db.ts';
import {
  fixedClock,
  listenTestBridge,
  BRIDGE_BACKENDS,
  startTestBridge,
  type TestBridge,
} from './support/test-app.ts';

describe.each(BRIDGE_BACKENDS)('idempotent proposal submission on %s', (_name, backend) => {
  let t: TestBridge;
  const NOW = '2026-06-15T09:00:00.000Z';
  beforeAll(async () => {
    t = await startTestBridge({ now: NOW, backend });
  });
  afterAll(async () => t?.close());

  const deal = (propertyId: number, title = 'Buy 3 Mill Lane') => ({ title, property_id: propertyId });
  const compliance = (propertyId: number) => ({
    property_id: propertyId,
    compliance_type: 'gas_safety',
    issue_date: '2026-06-01',
  });
  const countProposals = (tenantId: number) => t.db.proposal.count({ where: { tenantId } });

  describe('POST /proposals/* Idempotency-Key', () => {
    it('400 idempotency-key-missing without the header, creating nothing', async () => {
      const tenant = await makeWritingTenant(t);
      const res = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), null);
      const p = expectProblem(res, 400, 'idempotency-key-missing');
      expect(p.errors).toEqual([{ pointer: '#/idempotency-key', detail: expect.any(String) }]);
      expect(await countProposals(tenant.id)).toBe(0);
    });

    it.each([
      ['empty', ''],
      ['an empty quoted string', '""'],
      ['longer than 255 characters', 'k'.repeat(256)],
      ['longer than 255 characters inside quotes', `"${'k'.repeat(256)}"`],
      ['a tab', 'abc\tdef'],
    ])('400 validation-failed naming the header when the key is %s', async (_what, key) => {
      const tenant = await makeWritingTenant(t);
      const res = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), key);
      const p = expectProblem(res, 400, 'validation-failed');
      expect(p.errors?.[0]?.pointer).toBe('#/idempotency-key');
      expect(await countProposals(tenant.id)).toBe(0);
    });

    // Bytes no HTTP client sends. Other control characters and DEL never reach a route: Node's parser answers 400
    // `bad-request` to them itself.
    it.each([['a non-ASCII character', 'clé-1']])(
      '400 validation-failed naming the header when the key holds %s',
      async (_what, key) => {
        const tenant = await makeWritingTenant(t);
        const server = await listenTestBridge(t);
        try {
          const body = JSON.stringify(deal(tenant.property.id));
          const res = await rawRequest(
            server.baseUrl,
            `POST ${proposalPath('deal')} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${tenant.key}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nIdempotency-Key: ${key}\r\n\r\n${body}`,
          );
          expect(res.status).toBe(400);
          const p = JSON.parse(res.body) as { code: string; errors: { pointer: string }[] };
          expect(p.code).toBe('validation-failed');
          expect(p.errors[0]?.pointer).toBe('#/idempotency-key');
        } finally {
          await server.close();
        }
        expect(await countProposals(tenant.id)).toBe(0);
      },
    );

    it('accepts a key of 255 characters, bare or quoted', async () => {
      const tenant = await makeWritingTenant(t);
      const key = 'k'.repeat(255);
      const first = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), key);
      expect(first.status).toBe(201);
      const quoted = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), `"${key}"`);
      expect(quoted.status).toBe(201);
      expect(quoted.headers['idempotent-replayed']).toBe('true');
    });

    it('replays the first answer when the same key and body come again, with Idempotent-Replayed and no second proposal', async () => {
      const tenant = await makeWritingTenant(t);
      const body = { ...deal(tenant.property.id), value_pence: 100, review_notes: 'n' };
      const first = await propose(t.app, tenant.key, 'deal', body, 'replay-1');
      expect(first.status).toBe(201);
      t.clock.set('2026-06-15T20:00:00.000Z');
      try {
        // the same body with its keys in another order is the same body (canonical JSON)
        const again = await propose(
          t.app,
          tenant.key,
          'deal',
          { review_notes: 'n', value_pence: 100, property_id: tenant.property.id, title: body.title },
          'replay-1',
        );
        expect(again.status).toBe(201);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.headers.location).toBe(first.headers.location);
        expect(expectContract(ProposalCreated, again.body)).toEqual(first.body);
        expect(again.text).toBe(first.text);
      } finally {
        t.clock.set(NOW);
      }
      expect(await countProposals(tenant.id)).toBe(1);
      expect(await t.db.auditEntry.count({ where: { tenantId: tenant.id } })).toBe(1);
    });

    it('treats the quoted and bare forms as one key', async () => {
      const tenant = await makeWritingTenant(t);
      const first = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), '"order-42"');
      const bare = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), 'order-42');
      expect([first.status, bare.status]).toEqual([201, 201]);
      expect(bare.headers['idempotent-replayed']).toBe('true');
      expect(bare.body).toEqual(first.body);
      expect(await countProposals(tenant.id)).toBe(1);
    });

    it('422 idempotency-key-reused for the same key with another body, creating nothing', async () => {
      const tenant = await makeWritingTenant(t);
      expect((await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), 'reuse')).status).toBe(201);
      const res = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id, 'Another deal'), 'reuse');
      expectProblem(res, 422, 'idempotency-key-reused');
      // a default spelled out is another body as received
      const explicit = await propose(
        t.app,
        tenant.key,
        'deal',
        { ...deal(tenant.property.id), deal_type: 'acquisition' },
        'reuse',
      );
      expectProblem(explicit, 422, 'idempotency-key-reused');
      expect(await countProposals(tenant.id)).toBe(1);
    });

    it('scopes keys to tenant and endpoint: the same key elsewhere makes a new proposal', async () => {
      const tenant = await makeWritingTenant(t);
      const other = await makeWritingTenant(t);
      const key = 'shared-key';
      const a = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), key);
      const b = await propose(
        t.app,
        tenant.key,
        'financial_log',
        {
          property_id: tenant.property.id,
          date: '2026-06-01',
          direction: 'income',
          category: 'rent_received',
          net_pence: 95_000,
        },
        key,
      );
      const c = await propose(t.app, other.key, 'deal', deal(other.property.id), key);
      for (const r of [a, b, c]) {
        expect(r.status).toBe(201);
        expect(r.headers['idempotent-replayed']).toBeUndefined();
      }
      expect(new Set([a, b, c].map((r) => r.body.proposal_id as number)).size).toBe(3);
      expect(await countProposals(tenant.id)).toBe(2);
      expect(await countProposals(other.id)).toBe(1);
    });

    // PostgreSQL only: a second connection holds the key's lock (the embedded database is one session)
    if (backend === 'postgres') {
      it('409 idempotency-key-in-flight while the first request holds the key, then the key works', async () => {
        const tenant = await makeWritingTenant(t);
        // the state of a first request still inside its transaction: the key's advisory lock held elsewhere
        const holder = new pg.Client({ connectionString: t.databaseUrl });
        await holder.connect();
        try {
          await holder.query('BEGIN');
          await holder.query('SELECT pg_advisory_xact_lock($1::bigint)', [
            idempotencyLockId(tenant.id, 'deal', 'in-flight').toString(),
          ]);
          const res = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), 'in-flight');
          expectProblem(res, 409, 'idempotency-key-in-flight');
          // another key of the same tenant is not held up
          expect((await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), 'other')).status).toBe(
            201,
          );
          await holder.query('COMMIT');
        } finally {
          await holder.end();
        }
        const after = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), 'in-flight');
        expect(after.status).toBe(201);
        expect(after.headers['idempotent-replayed']).toBeUndefined();
        expect(await countProposals(tenant.id)).toBe(2);
      });
    }

    it('50 concurrent submissions with one key make exactly one proposal: every answer 201 or 409, every 201 the same', async () => {
      const tenant = await makeWritingTenant(t);
      const server = await listenTestBridge(t);
      try {
        const answers = await Promise.all(
          Array.from({ length: 50 }, () =>
            fetch(`${server.baseUrl}${proposalPath('deal')}`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${tenant.key}`,
                'content-type': 'application/json',
                'idempotency-key': 'storm',
              },
              body: JSON.stringify(deal(tenant.property.id)),
            }).then(async (r) => ({
              status: r.status,
              location: r.headers.get('location'),
              body: (await r.json()) as { proposal_id?: number; code?: string },
            })),
          ),
        );
        for (const a of answers) {
          expect([201, 409]).toContain(a.status);
          if (a.status === 409) expect(a.body.code).toBe('idempotency-key-in-flight');
        }
        const created = answers.filter((a) => a.status === 201);
        expect(created.length).toBeGreaterThanOrEqual(1);
        expect(new Set(created.map((a) => a.body.proposal_id)).size).toBe(1);
        expect(new Set(created.map((a) => a.location)).size).toBe(1);
        expect(await countProposals(tenant.id)).toBe(1);
        expect(await t.db.auditEntry.count({ where: { tenantId: tenant.id } })).toBe(1);
        expect(await t.db.idempotencyKey.count({ where: { tenantId: tenant.id } })).toBe(1);
      } finally {
        await server.close();
      }
    });

    it('keeps keys 24 h: the sweep deletes older records, and the key then makes a new proposal', async () => {
      const tenant = await makeWritingTenant(t);
      const first = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), 'day-old');
      expect(first.status).toBe(201);
      const clock = fixedClock('2026-06-16T08:59:59.000Z');
      await sweepProposals({ db: t.db, clock, ttlDays: 14 });
      expect(await t.db.idempotencyKey.count({ where: { tenantId: tenant.id } })).toBe(1);

      clock.set('2026-06-16T09:00:00.001Z');
      const swept = await sweepProposals({ db: t.db, clock, ttlDays: 14 });
      expect(swept.idempotencyKeysDeleted).toBeGreaterThanOrEqual(1);
      expect(await t.db.idempotencyKey.count({ where: { tenantId: tenant.id } })).toBe(0);

      t.clock.set('2026-06-16T09:00:00.001Z');
      try {
        const again = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), 'day-old');
        expect(again.status).toBe(201);
        expect(again.headers['idempotent-replayed']).toBeUndefined();
        expect(again.body.proposal_id).not.toBe(first.body.proposal_id);
      } finally {
        t.clock.set(NOW);
      }
    });

    it('does not replay a record past 24 h that the sweep has not reached yet', async () => {
      const tenant = await makeWritingTenant(t);
      const first = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), 'stale');
      t.clock.set('2026-06-16T09:00:01.000Z');
      try {
        // another body: past 24 h the key is free again, so no 422 either
        const again = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id, 'Other'), 'stale');
        expect(again.status).toBe(201);
        expect(again.body.proposal_id).not.toBe(first.body.proposal_id);
        expect(await t.db.idempotencyKey.count({ where: { tenantId: tenant.id } })).toBe(1);
      } finally {
        t.clock.set(NOW);
      }
    });

    it('reports a missing key before a bad body', async () => {
      const tenant = await makeWritingTenant(t);
      expectProblem(
        await propose(t.app, tenant.key, 'deal', { title: '' }, null),
        400,
        'idempotency-key-missing',
      );
    });

    it('a request refused for its body stores nothing under its key', async () => {
      const tenant = await makeWritingTenant(t);
      const bad = await request(t.app)
        .post(proposalPath('deal'))
        .set(...bearer(tenant.key))
        .set('Idempotency-Key', 'retry-me')
        .send({ title: '' });
      expectProblem(bad, 400, 'validation-failed');
      const good = await propose(t.app, tenant.key, 'deal', deal(tenant.property.id), 'retry-me');
      expect(good.status).toBe(201);
      expect(good.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  // The embedded database has no pool of its own: there the submission's statements run in Prisma's interactive
  // transaction, unprepared. The same statements must give the same answers both ways.
  describe('POST /proposals/* through Prisma’s transactions (the embedded database’s path)', () => {
    it('creates, replays, refuses a reused key and checks the property and the quota', async () => {
      const app = appWith(t, { transactions: statementTransaction(t.db), proposalPendingLimit: 2 });
      const tenant = await makeWritingTenant(t, { label: 'via Prisma' });
      const first = await propose(
        app,
        tenant.key,
        'compliance_update',
        compliance(tenant.property.id),
        'p-1',
      );
      expect(first.status).toBe(201);
      const again = await propose(
        app,
        tenant.key,
        'compliance_update',
        compliance(tenant.property.id),
        'p-1',
      );
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
      expectProblem(
        await propose(
          app,
          tenant.key,
          'compliance_update',
          { ...compliance(tenant.property.id), outcome: 'pass' },
          'p-1',
        ),
        422,
        'idempotency-key-reused',
      );
      expectProblem(
        await propose(app, tenant.key, 'compliance_update', compliance(2_000_000_000), 'p-2'),
        422,
        'unknown-property',
      );
      expect((await propose(app, tenant.key, 'deal', deal(tenant.property.id), 'p-3')).status).toBe(201);
      expectProblem(
        await propose(app, tenant.key, 'deal', deal(tenant.property.id), 'p-4'),
        429,
        'proposal-quota-exceeded',
      );

      const stored = await t.db.proposal.findUniqueOrThrow({
        where: { id: first.body.proposal_id as number },
      });
      expect(stored).toMatchObject({ submittedBy: 'via Prisma', propertyId: tenant.property.id });
      expect(stored.createdAt).toEqual(new Date(NOW));
      expect(stored.payload).toMatchObject({ expiry_date: '2027-05-31' });
      expect(await t.db.auditEntry.count({ where: { tenantId: tenant.id } })).toBe(2);
      expect(await t.db.idempotencyKey.count({ where: { tenantId: tenant.id } })).toBe(2);
    });
  });
});
