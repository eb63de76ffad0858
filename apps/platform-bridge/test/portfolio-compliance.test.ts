import {
  type AttentionStatus,
  ComplianceResponse,
  PortfolioComplianceResponse,
  PortfolioResponse,
  type PropertyComplianceAttention,
} from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TENANT_SLUG } from '../src/demo/demo-data.ts';
import { seedDemo } from '../src/demo/demo-seed.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeItem, makeProperty, makeTenancy, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// GET /api/assistant-bridge/portfolio/compliance: the portfolio-wide read of compliance needing attention. Its verdicts
// must be item for item those of GET /properties/{id}/compliance.

const NOW = '2026-06-15T09:00:00Z';
const BASE = '/api/assistant-bridge';

let t: TestBridge;
let demoKey: string;
beforeAll(async () => {
  t = await startTestBridge({ now: NOW });
  await seedDemo({ db: t.db, clock: t.clock });
  demoKey = (await t.admin.createKey(DEMO_TENANT_SLUG, ['bridge:read'])).key;
});
afterAll(async () => t?.close());

const get = (key: string, path: string) =>
  request(t.app)
    .get(`${BASE}${path}`)
    .set(...bearer(key));

/** Every page of the portfolio-wide read, following next_cursor. */
async function allPages(key: string, query: string) {
  const pages: PortfolioComplianceResponse[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(key, `/portfolio/compliance?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const page = expectContract(PortfolioComplianceResponse, res.body);
    pages.push(page);
    cursor = page.next_cursor;
    expect(pages.length).toBeLessThan(100);
  } while (cursor);
  return pages;
}

/** What the per-property read says needs attention, for every property of the portfolio, by property id. */
async function perPropertyExpectation(key: string, statuses: readonly AttentionStatus[]) {
  const ids: Array<{ id: number; ref: string }> = [];
  let cursor: string | null = null;
  do {
    const res = await get(key, `/portfolio?limit=500${cursor ? `&cursor=${cursor}` : ''}`);
    const body = expectContract(PortfolioResponse, res.body);
    ids.push(...body.properties.map((p) => ({ id: p.id, ref: p.ref })));
    cursor = body.next_cursor;
  } while (cursor);

  const wanted = new Set<string>(statuses);
  const expected: PropertyComplianceAttention[] = [];
  for (const { id, ref } of ids) {
    const c = expectContract(ComplianceResponse, (await get(key, `/properties/${id}/compliance`)).body);
    const items = c.items.filter((i) => wanted.has(i.status));
    const missing = wanted.has('missing') ? c.missing : [];
    if (items.length === 0 && missing.length === 0) continue;
    expected.push({
      property_id: id,
      ref,
      status: c.status as PropertyComplianceAttention['status'],
      items,
      missing,
    });
  }
  return { expected, propertiesTotal: ids.length };
}

describe('GET /portfolio/compliance over the demo portfolio', () => {
  it.each([
    [['expired', 'expiring_soon', 'missing'], ''],
    [['expired'], 'status=expired'],
    [['expiring_soon', 'missing'], 'status=missing,expiring_soon'],
  ] as const)('agrees item for item with GET /properties/{id}/compliance (%j)', async (statuses, query) => {
    const { expected, propertiesTotal } = await perPropertyExpectation(demoKey, statuses);
    // Pages of 4 properties, so that the comparison crosses several cursors.
    const pages = await allPages(demoKey, `limit=4${query ? `&${query}` : ''}`);
    const got = pages.flatMap((p) => p.properties);

    expect(got).toEqual(expected);
    // the demo has something of each kind, and most properties are fine
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(propertiesTotal);
    for (const page of pages) {
      expect(page.status).toEqual([...statuses].sort((a, b) => order(a) - order(b)));
      expect(page.as_of).toBe(NOW.replace('Z', '.000Z'));
    }
    for (const p of got) for (const i of p.items) expect(statuses).toContain(i.status);
  });

  it('names MAN-004 with its expired gas certificate and its EICR under remedial work', async () => {
    const [page] = await allPages(demoKey, 'limit=500');
    const man004 = page!.properties.find((p) => p.ref === 'MAN-004');
    expect(man004?.items.find((i) => i.type === 'gas_safety')?.status).toBe('expired');
    expect(man004?.items.find((i) => i.type === 'eicr')?.status).toBe('expiring_soon');
    expect(page!.next_cursor).toBeNull();
  });

  it('answers no-store, like the other reads', async () => {
    const res = await get(demoKey, '/portfolio/compliance');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

const order = (s: AttentionStatus) => ['expired', 'expiring_soon', 'missing'].indexOf(s);

describe('GET /portfolio/compliance for a tenant of its own', () => {
  /** A let property with gas: one expired gas certificate, one valid EICR, the other required types missing. */
  async function tenantWithProblems(name: string) {
    const tenant = await makeTenant(t, { name });
    const p = await makeProperty(t, tenant.id);
    await makeTenancy(t, tenant.id, p.id);
    await makeItem(t, tenant.id, p.id, 'gas_safety', { issueDate: '2025-06-01', expiryDate: '2026-05-31' });
    await makeItem(t, tenant.id, p.id, 'eicr', { issueDate: '2024-01-01', expiryDate: '2029-01-01' });
    return { tenant, p };
  }

  it('never shows another tenant’s properties, whatever the cursor', async () => {
    const a = await tenantWithProblems('alpha');
    const b = await tenantWithProblems('beta');
    const asA = expectContract(
      PortfolioComplianceResponse,
      (await get(a.tenant.key, '/portfolio/compliance')).body,
    );
    expect(asA.properties.map((p) => p.property_id)).toEqual([a.p.id]);
    expect(asA.properties[0]).toMatchObject({ ref: a.p.ref, status: 'missing' });
    expect(asA.properties[0]!.items.map((i) => [i.type, i.status, i.days_until_due])).toEqual([
      ['gas_safety', 'expired', -15],
    ]);
    expect(asA.properties[0]!.missing).toEqual(['epc', 'smoke_co_alarms', 'legionella_risk_assessment']);

    // a cursor placed just before B's property, used with A's key
    const cursor = Buffer.from(`c:${b.p.id - 1}`).toString('base64url');
    const forged = expectContract(
      PortfolioComplianceResponse,
      (await get(a.tenant.key, `/portfolio/compliance?cursor=${cursor}`)).body,
    );
    expect(forged.properties.every((p) => p.property_id !== b.p.id)).toBe(true);
    const asB = expectContract(
      PortfolioComplianceResponse,
      (await get(b.tenant.key, '/portfolio/compliance')).body,
    );
    expect(asB.properties.map((p) => p.property_id)).toEqual([b.p.id]);
  });

  it('leaves out valid items and properties with nothing asked for', async () => {
    const { tenant } = await tenantWithProblems('gamma');
    const expiredOnly = expectContract(
      PortfolioComplianceResponse,
      (await get(tenant.key, '/portfolio/compliance?status=expired')).body,
    );
    expect(expiredOnly.properties[0]!.missing).toEqual([]);
    expect(expiredOnly.properties[0]!.items.map((i) => i.type)).toEqual(['gas_safety']);
    const expiring = expectContract(
      PortfolioComplianceResponse,
      (await get(tenant.key, '/portfolio/compliance?status=expiring_soon')).body,
    );
    expect(expiring).toMatchObject({ status: ['expiring_soon'], properties: [], next_cursor: null });
  });

  it('judges on today’s date: a rollup left from an earlier day is brought up to date first', async () => {
    const tenant = await makeTenant(t, { name: 'delta' });
    const p = await makeProperty(t, tenant.id, { hasGas: false, lettingStatus: 'to_let' });
    await makeItem(t, tenant.id, p.id, 'epc', {
      issueDate: '2020-01-01',
      expiryDate: '2030-01-01',
      rating: 'C',
    });
    await makeItem(t, tenant.id, p.id, 'pat', { issueDate: '2025-08-01', expiryDate: '2026-08-20' });
    expect(
      expectContract(PortfolioComplianceResponse, (await get(tenant.key, '/portfolio/compliance')).body)
        .properties,
    ).toEqual([]);
    try {
      // 30 days on, the PAT test is inside its 30-day window; nothing was written in between.
      t.clock.set('2026-07-21T09:00:00Z');
      const later = expectContract(
        PortfolioComplianceResponse,
        (await get(tenant.key, '/portfolio/compliance')).body,
      );
      expect(later.properties.map((x) => x.items.map((i) => [i.type, i.status, i.days_until_due]))).toEqual([
        [['pat', 'expiring_soon', 30]],
      ]);
    } finally {
      t.clock.set(NOW);
      await t.rollup.refreshProperties(tenant.id, [p.id]);
    }
  });

  it.each([
    ['status=valid', '#/status'],
    ['status=', '#/status'],
    ['status=expired,,missing', '#/status'],
    ['limit=0', '#/limit'],
    ['limit=501', '#/limit'],
    ['cursor=not!a!cursor', '#/cursor'],
    [`cursor=${Buffer.from('d:5').toString('base64url')}`, '#/cursor'],
    ['colour=red', '#'],
  ])('refuses %s with a pointer', async (query, pointer) => {
    const res = await get(demoKey, `/portfolio/compliance?${query}`);
    const problem = expectProblem(res, 400, 'validation-failed');
    expect(JSON.stringify(problem)).toContain(pointer);
  });

  it('needs the bridge flag and the bridge:read scope', async () => {
    const off = await makeTenant(t, { flags: [] });
    expectProblem(await get(off.key, '/portfolio/compliance'), 404, 'bridge-not-enabled');
    const proposer = await makeTenant(t, { scopes: ['bridge:propose'] });
    expectProblem(await get(proposer.key, '/portfolio/compliance'), 403, 'insufficient-scope');
    expectProblem(await get('plat_nope', '/portfolio/compliance'), 401, 'invalid-api-key');
  });
});
