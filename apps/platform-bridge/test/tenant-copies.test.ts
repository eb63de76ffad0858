import {
  ComplianceResponse,
  type ComplianceType,
  type OwedCopyStatus,
  TenantCopiesResponse,
  type TenantCopyOwed,
} from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TENANT_SLUG } from '../src/demo/demo-data.ts';
import { seedDemo } from '../src/demo/demo-seed.ts';
import { toRulesProperty } from '../src/features/compliance/compliance-mapper.ts';
import { tenantCopy } from '../src/features/compliance/compliance-rules.ts';
import { currentTenancy } from '../src/features/compliance/current-tenancy.ts';
import { createTenantCopiesRepository } from '../src/features/compliance/tenant-copies-repository.ts';
import { addDays, londonDate, toDateString } from '../src/lib/clock.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeItem, makeProperty, makeTenancy, makeTenant } from './support/factories.ts';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

// GET /api/assistant-bridge/compliance/tenant-copies: the gas records and EICRs whose copy the tenant is owed,
// chosen by one SQL statement. Its choice must be exactly what compliance-rules.ts's tenantCopy says of every
// item, at every date, and each item it lists exactly what GET /properties/{id}/compliance shows.

const NOW = '2026-06-15T09:00:00Z';
const BASE = '/api/assistant-bridge';
const PATH = '/compliance/tenant-copies';

const get = (t: TestBridge, key: string, path: string) =>
  request(t.app)
    .get(`${BASE}${path}`)
    .set(...bearer(key));

/** Every page of the read, following next_cursor. */
async function allPages(t: TestBridge, key: string, query: string): Promise<TenantCopiesResponse[]> {
  const pages: TenantCopiesResponse[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(t, key, `${PATH}?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const page = expectContract(TenantCopiesResponse, res.body);
    pages.push(page);
    cursor = page.next_cursor;
    expect(pages.length).toBeLessThan(200);
  } while (cursor);
  return pages;
}

const listed = (pages: TenantCopiesResponse[]) => pages.flatMap((p) => p.items);

/** A generator of the same numbers every run (mulberry32), so that a failure can be replayed. */
function seeded(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return { pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!, next };
}

/** What tenantCopy says of every item of the tenant on `today`: item id → status, for owed copies only. */
async function expectedByRules(t: TestBridge, tenantId: number, today: string) {
  const properties = await t.db.property.findMany({
    where: { tenantId },
    select: {
      id: true,
      lettingStatus: true,
      hasGas: true,
      isHmo: true,
      tenancies: { ...currentTenancy, select: { startDate: true, depositPence: true } },
      complianceItems: true,
    },
  });
  const owed = new Map<number, OwedCopyStatus>();
  for (const p of properties) {
    const rules = toRulesProperty(p);
    for (const i of p.complianceItems) {
      const copy = tenantCopy(
        {
          type: i.type as ComplianceType,
          issueDate: toDateString(i.issueDate),
          servedToTenantAt: toDateString(i.servedToTenantAt),
        },
        rules,
        today,
      );
      if (copy.status === 'due' || copy.status === 'overdue') owed.set(i.id, copy.status);
    }
  }
  return owed;
}

describe.each(BRIDGE_BACKENDS)('GET /compliance/tenant-copies on %s', (_name, backend) => {
  let t: TestBridge;
  let tenant: Awaited<ReturnType<typeof makeTenant>>;
  let other: Awaited<ReturnType<typeof makeTenant>>;
  let otherItemId: number;
  const TODAY = londonDate(new Date(NOW));

  beforeAll(async () => {
    t = await startTestBridge({ now: NOW, backend });
    tenant = await makeTenant(t);
    other = await makeTenant(t);
    // Dates on both sides of every edge, around the three days the clock is set to below: the 28th and 29th
    // day after a check, a check the day before / on / after move-in, a copy served before / on / after the
    // check, no tenancy, an ended tenancy older than the current one, a tenancy starting in the future.
    const rnd = seeded(34);
    const offsets = [-400, -60, -40, -31, -30, -29, -28, -27, -26, -10, -1, 0, 1, 2, 5, 30];
    for (let n = 0; n < 80; n++) {
      const property = await makeProperty(t, tenant.id, {
        lettingStatus: rnd.pick(['let', 'let', 'void', 'notice_given']),
      });
      const tenancy = rnd.pick([
        'none',
        'current',
        'current',
        'current',
        'ended-and-current',
        'ended',
      ] as const);
      const start = addDays(TODAY, rnd.pick(offsets));
      if (tenancy === 'ended' || tenancy === 'ended-and-current')
        await makeTenancy(t, tenant.id, property.id, { status: 'ended', startDate: addDays(start, -700) });
      if (tenancy === 'current' || tenancy === 'ended-and-current')
        await makeTenancy(t, tenant.id, property.id, {
          status: rnd.pick(['active', 'notice_given', 'pending']),
          startDate: start,
        });
      for (const type of ['gas_safety', 'eicr', 'epc'] as const) {
        if (rnd.next() < 0.15) continue;
        // a check relative to the tenancy's start (before, on, after move-in) or to today (the 28-day edges)
        const issue =
          rnd.next() < 0.5
            ? addDays(start, rnd.pick([-30, -1, 0, 1, 27, 28, 29]))
            : addDays(TODAY, rnd.pick(offsets));
        const served = rnd.pick([null, null, null, null, null, -1, 0, 1, 28, 29, 40] as const);
        await makeItem(t, tenant.id, property.id, type, {
          issueDate: rnd.next() < 0.1 ? undefined : issue,
          expiryDate: addDays(issue, 365),
          servedToTenantAt: served === null ? undefined : addDays(issue, served),
        });
      }
    }
    // another tenant's overdue copy: never listed to the first
    const p = await makeProperty(t, other.id);
    await makeTenancy(t, other.id, p.id, { startDate: addDays(TODAY, -300) });
    otherItemId = (await makeItem(t, other.id, p.id, 'gas_safety', { issueDate: addDays(TODAY, -100) })).id;
  }, 120_000);
  afterAll(async () => t?.close());

  it.each([
    ['2026-06-15T09:00:00Z', 'the seeding day'],
    ['2026-07-13T09:00:00Z', 'four weeks later (the 28th day of checks made on the seeding day)'],
    ['2026-07-14T09:00:00Z', 'the 29th day'],
    ['2026-05-20T22:30:00Z', 'late evening in British Summer Time (already the 21st in London)'],
  ])('lists exactly the copies tenantCopy says are owed, on %s (%s)', async (now) => {
    t.clock.set(now);
    const today = londonDate(new Date(now));
    const expected = await expectedByRules(t, tenant.id, today);
    // enough of each status for the comparison to mean something
    expect([...expected.values()].filter((s) => s === 'overdue').length).toBeGreaterThan(3);
    expect([...expected.values()].filter((s) => s === 'due').length).toBeGreaterThan(3);

    for (const status of [['overdue'], ['due'], ['due', 'overdue']] as const) {
      const want = new Set<string>(status);
      const pages = await allPages(t, tenant.key, `status=${status.join(',')}&limit=7`);
      const items = listed(pages);
      const ids = items.map((i) => i.item.id);
      const expectedIds = [...expected].filter(([, s]) => want.has(s)).map(([id]) => id);
      expect(new Set(ids)).toEqual(new Set(expectedIds));
      expect(ids.length).toBe(new Set(ids).size); // no item on two pages
      for (const i of items) expect(i.item.tenant_copy_status).toBe(expected.get(i.item.id));
      // ordered by property, then item: a keyset walk that can resume anywhere
      const keys = items.map((i) => [i.property_id, i.item.id] as const);
      expect(keys).toEqual([...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
      expect(pages.every((p) => JSON.stringify(p.status) === JSON.stringify(status))).toBe(true);
    }

    // the statement itself, before the service re-judges each row: no row chosen that the rules would not list
    const repository = createTenantCopiesRepository(t.db, t.statements);
    const rows = await repository.owed(
      tenant.id,
      today,
      ['due', 'overdue'],
      { propertyId: 0, itemId: 0 },
      10_000,
    );
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(expected.keys()));
    t.clock.set(NOW);
  });

  it('shows each item exactly as GET /properties/{id}/compliance does', async () => {
    const items: TenantCopyOwed[] = listed(await allPages(t, tenant.key, 'status=due,overdue&limit=500'));
    expect(items.length).toBeGreaterThan(0);
    for (const { property_id, item } of items.slice(0, 12)) {
      const whole = expectContract(
        ComplianceResponse,
        (await get(t, tenant.key, `/properties/${property_id}/compliance`)).body,
      );
      expect(whole.items.find((i) => i.id === item.id)).toEqual(item);
    }
  });

  it('never lists another tenant’s items', async () => {
    const mine = listed(await allPages(t, tenant.key, 'status=due,overdue'));
    expect(mine.map((i) => i.item.id)).not.toContain(otherItemId);
    const theirs = listed(await allPages(t, other.key, ''));
    expect(theirs.map((i) => i.item.id)).toEqual([otherItemId]);
  });
});

describe('GET /compliance/tenant-copies over the demo portfolio', () => {
  let t: TestBridge;
  let demoKey: string;
  beforeAll(async () => {
    t = await startTestBridge({ now: NOW });
    await seedDemo({ db: t.db, clock: t.clock });
    demoKey = (await t.admin.createKey(DEMO_TENANT_SLUG, ['bridge:read'])).key;
  });
  afterAll(async () => t?.close());

  it('lists the gas record and the EICR whose copy is overdue, by default', async () => {
    const res = await get(t, demoKey, PATH);
    const body = expectContract(TenantCopiesResponse, res.body);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.etag).toBeUndefined();
    expect(body.status).toEqual(['overdue']);
    expect(body.next_cursor).toBeNull();
    expect(body.items.map((i) => `${i.ref} ${i.item.type}`).sort()).toEqual([
      'BRS-001 gas_safety',
      'LDS-003 eicr',
    ]);
    for (const { item } of body.items) {
      expect(item.tenant_copy_status).toBe('overdue');
      expect(item.tenant_copy_due_date! < '2026-06-15').toBe(true);
    }
  });

  it.each([
    ['status=served', '#/status'],
    ['status=valid', '#/status'],
    ['status=', '#/status'],
    ['status=due,,overdue', '#/status'],
    ['limit=0', '#/limit'],
    ['limit=501', '#/limit'],
    ['limit=ten', '#/limit'],
    ['cursor=not!a!cursor', '#/cursor'],
    [`cursor=${Buffer.from('c:5').toString('base64url')}`, '#/cursor'],
    [`cursor=${Buffer.from('t:5').toString('base64url')}`, '#/cursor'],
    [`cursor=${Buffer.from('t:5:99999999999').toString('base64url')}`, '#/cursor'],
    ['colour=red', '#'],
  ])('refuses %s with a pointer', async (query, pointer) => {
    const problem = expectProblem(await get(t, demoKey, `${PATH}?${query}`), 400, 'validation-failed');
    expect(JSON.stringify(problem)).toContain(pointer);
  });

  it('needs a key, the bridge:read scope and the bridge flag', async () => {
    const off = await makeTenant(t, { flags: [] });
    expectProblem(await get(t, off.key, PATH), 404, 'bridge-not-enabled');
    const proposer = await makeTenant(t, { scopes: ['bridge:propose'] });
    expectProblem(await get(t, proposer.key, PATH), 403, 'insufficient-scope');
    expectProblem(await get(t, 'plat_nope', PATH), 401, 'invalid-api-key');
    expectProblem(await request(t.app).get(`${BASE}${PATH}`), 401, 'invalid-api-key');
  });

  it('is counted against the key’s rate limit like the other reads', async () => {
    const limited = await startTestBridge({ now: NOW, rateLimitPerMin: 2 });
    try {
      const tenant = await makeTenant(limited);
      expect((await get(limited, tenant.key, PATH)).status).toBe(200);
      const second = await get(limited, tenant.key, PATH);
      expect(second.status).toBe(200);
      expect(second.headers.ratelimit).toBeDefined();
      expectProblem(await get(limited, tenant.key, PATH), 429, 'rate-limited');
    } finally {
      await limited.close();
    }
  });
});
