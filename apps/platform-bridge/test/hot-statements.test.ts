import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey } from '../src/features/auth/api-key-format.ts';
import { createApiKeyRepository } from '../src/features/auth/api-key-repository.ts';
import { createPortfolioRepository } from '../src/features/portfolio/portfolio-repository.ts';
import request from 'supertest';
import { createSubmissionRepository } from '../src/features/proposals/submission-repository.ts';
import { type StatementTransaction, statementRunner, statementTransaction } from '../src/lib/db.ts';
import { bearer, makeItem, makeProperty, makeTenancy, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// The hot statements run two ways: prepared on PostgreSQL's pool (main.ts with a database URL, and these tests'
// app) and through Prisma's raw queries (the embedded database). Both must hand the services the same values.
let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z' });
});
afterAll(async () => t?.close());

const throughPrisma = () => statementRunner(t.db);

describe('hot statements', () => {
  it('the portfolio read gives the same rows prepared on the pool and through Prisma', async () => {
    const tenant = await makeTenant(t);
    const a = await makeProperty(t, tenant.id, { arrearsPence: 123_456 });
    await makeTenancy(t, tenant.id, a.id, { rentPence: 30_001, rentFrequency: 'weekly' });
    await makeItem(t, tenant.id, a.id, 'gas_safety', { expiryDate: '2026-06-01' });
    const b = await makeProperty(t, tenant.id, { lettingStatus: 'void' });
    await t.db.deal.create({
      data: { tenantId: tenant.id, title: 'Buy', dealType: 'acquisition', stage: 'offer', valuePence: 9_999 },
    });

    const pooled = await createPortfolioRepository(t.db, t.statements).read(tenant.id, '2026-06-15', 0, 10);
    const viaPrisma = await createPortfolioRepository(t.db, throughPrisma()).read(
      tenant.id,
      '2026-06-15',
      0,
      10,
    );
    expect(pooled).toEqual(viaPrisma);
    expect(pooled.page.map((p) => p.id)).toEqual([a.id, b.id]);
    expect(pooled.summary.arrears_pence).toBe(123_456);
    expect(pooled.summary.rent_roll_monthly_pence).toBe(Math.round((30_001 * 52) / 12));
    expect(pooled.summary.pipeline_value_pence).toBe(9_999);
    expect(pooled.page[0]!.rent_pence).toBe(30_001);
    expect(pooled.more).toBe(false);
    // one row more than the page says that another page follows; the page itself stays at its size
    const first = await createPortfolioRepository(t.db, t.statements).read(tenant.id, '2026-06-15', 0, 1);
    expect(first.page.map((p) => p.id)).toEqual([a.id]);
    expect(first.more).toBe(true);
    const rest = await createPortfolioRepository(t.db, t.statements).read(tenant.id, '2026-06-15', a.id, 1);
    expect([rest.page.map((p) => p.id), rest.more]).toEqual([[b.id], false]);
  });

  it('the key lookup for authentication gives the same row both ways, and it names the tenant and its flags', async () => {
    const tenant = await makeTenant(t, { flags: ['assistant_external_bridge'] });
    const parsed = parseKey(tenant.key);
    if (!parsed.ok) throw new Error('factory key does not parse');
    const pooled = await createApiKeyRepository(t.db, t.statements).findForAuth(parsed.lookupPrefix);
    const viaPrisma = await createApiKeyRepository(t.db, throughPrisma()).findForAuth(parsed.lookupPrefix);
    expect(pooled).toEqual(viaPrisma);
    expect(pooled).toMatchObject({
      id: tenant.keyId,
      tenant_id: tenant.id,
      slug: tenant.slug,
      revoked: false,
      last_used_ms: null,
      flags: ['assistant_external_bridge'],
    });
    expect(Buffer.from(pooled!.secret_hash, 'hex')).toEqual(Buffer.from(parsed.hash));

    const at = new Date('2026-06-15T09:00:00.123Z');
    await createApiKeyRepository(t.db).touch(tenant.id, tenant.keyId, at);
    await t.admin.revokeKey(tenant.keyId);
    const later = await createApiKeyRepository(t.db, t.statements).findForAuth(parsed.lookupPrefix);
    expect(later).toEqual(
      await createApiKeyRepository(t.db, throughPrisma()).findForAuth(parsed.lookupPrefix),
    );
    expect(later).toMatchObject({ revoked: true, last_used_ms: at.getTime() });
  });

  it('a proposal submission’s lookup gives the same values in a pooled transaction and in Prisma’s', async () => {
    const tenant = await makeTenant(t, {
      flags: ['assistant_external_bridge', 'assistant_bridge_writes'],
      scopes: ['bridge:propose'],
    });
    const property = await makeProperty(t, tenant.id);
    const res = await request(t.app)
      .post('/api/assistant-bridge/proposals/deal')
      .set(...bearer(tenant.key))
      .set('Idempotency-Key', 'hot')
      .send({ title: 'Hot', property_id: property.id });
    expect(res.status).toBe(201);

    const q = {
      endpoint: 'deal',
      key: 'hot',
      keyId: tenant.keyId,
      propertyId: property.id,
      complianceType: null,
    };
    const lookup = (transactions: StatementTransaction) => {
      const repo = createSubmissionRepository(transactions);
      return repo.transaction((run) => repo.lookup(tenant.id, q, run));
    };
    const pooled = await lookup(t.transactions);
    expect(await lookup(statementTransaction(t.db))).toEqual(pooled);
    expect(pooled).toMatchObject({
      label: null,
      propertyFound: true,
      stored: { status: 201, body: res.body },
    });
    expect(pooled.stored!.createdAt).toEqual(new Date('2026-06-15T09:00:00Z'));
    expect(pooled.stored!.fingerprint).toHaveLength(32);
  });
});
