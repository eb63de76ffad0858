import { KnowledgeSearchResponse } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKnowledgeAdminService,
  type KnowledgeAdminService,
} from '../src/features/knowledge/knowledge-admin-service.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, knowledgeDoc as doc, makeProperty, makeTenant } from './support/factories.ts';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

// GET /knowledge/search: ranked English full text over the tenant's live documents (the migration's GIN expression
// index), with snippets; on both databases, since the embedded one runs the same migration and statement.

const PATH = '/api/assistant-bridge/knowledge/search';
type Tenant = Awaited<ReturnType<typeof makeTenant>>;

describe.each(BRIDGE_BACKENDS)('GET /knowledge/search on %s', (_name, backend) => {
  let t: TestBridge;
  let knowledge: KnowledgeAdminService;
  beforeAll(async () => {
    t = await startTestBridge({ now: '2026-06-15T09:00:00Z', backend });
    knowledge = createKnowledgeAdminService({ db: t.db, clock: t.clock });
  });
  afterAll(async () => t?.close());

  async function search(tenant: Tenant, query: Record<string, string | number>) {
    const res = await request(t.app)
      .get(PATH)
      .query(query)
      .set(...bearer(tenant.key));
    expect(res.status).toBe(200);
    return expectContract(KnowledgeSearchResponse, res.body).results;
  }

  it('ranks documents with every word first, the title above the body, with a marked snippet', async () => {
    const tenant = await makeTenant(t);
    await knowledge.upsert(tenant.slug, [
      doc('boiler-title', { title: 'Boiler servicing', body: 'Book the engineer in October every year.' }),
      doc('boiler-body', { title: 'Annual jobs', body: 'The boiler needs servicing before winter.' }),
      doc('boiler-only', { title: 'Heating', body: 'The boiler is in the loft.' }),
      doc('unrelated', { title: 'Bins', body: 'Collection is on Tuesdays.' }),
    ]);
    const results = await search(tenant, { q: 'boiler servicing' });
    expect(results.map((r) => r.title)).toEqual(['Boiler servicing', 'Annual jobs', 'Heating']);
    // the snippet is the body's: marked where the body matches, its opening words where only the title does
    expect(results[0]!.snippet).toBe('Book the engineer in October every year.');
    expect(results[1]!.snippet).toContain('«boiler» needs «servicing»');
    expect(results[2]!.snippet).toContain('«boiler»');
    expect(results[0]!.rank).toBeGreaterThan(0);
  });

  it("puts the property's own documents before the agency-wide ones and leaves other properties' out", async () => {
    const tenant = await makeTenant(t);
    const [mine, other] = [await makeProperty(t, tenant.id), await makeProperty(t, tenant.id)];
    await knowledge.upsert(tenant.slug, [
      doc('agency', { title: 'Stopcock procedure', body: 'Find the stopcock first.' }),
      doc('mine', { propertyRef: mine.ref, title: 'Stopcock', body: 'Under the kitchen sink.' }),
      doc('other', { propertyRef: other.ref, title: 'Stopcock', body: 'In the cellar.' }),
    ]);
    const scoped = await search(tenant, { q: 'stopcock', property: mine.id });
    expect(scoped.map((r) => [r.property_id, r.property_ref])).toEqual([
      [mine.id, mine.ref],
      [null, null],
    ]);
    const all = await search(tenant, { q: 'stopcock' });
    expect(all).toHaveLength(3);
  });

  // More matches of a common word than one stage ranks (CANDIDATES, 200), written before the answer so that they
  // come first in the table: a bound over all the matches at once left the answer out. Written 50 to a transaction,
  // well within Prisma's 5 s for one on a loaded machine.
  const COMMON = 250;
  async function writeCommon(tenant: Tenant, make: (i: number) => ReturnType<typeof doc>) {
    for (let from = 0; from < COMMON; from += 50) {
      await knowledge.upsert(
        tenant.slug,
        Array.from({ length: 50 }, (_, i) => make(from + i)),
      );
    }
  }

  it('finds the one document with every word behind more matches of a common word than it ranks', async () => {
    const tenant = await makeTenant(t);
    await writeCommon(tenant, (i) =>
      doc(`parking-${i}`, { title: `Parking note ${i}`, body: 'Residents park on the street.' }),
    );
    await knowledge.upsert(tenant.slug, [
      doc('permit', {
        title: 'Visitor permits',
        body: 'Visitors need a parking permit from the council office.',
      }),
    ]);
    const results = await search(tenant, { q: 'visitor parking permit', limit: 5 });
    expect(results.map((r) => r.title)).toEqual([
      'Visitor permits',
      ...results.slice(1).map(() => expect.stringMatching(/^Parking note \d+$/)),
    ]);
    expect(results).toHaveLength(5);
    expect(results[0]!.snippet).toContain('«parking» «permit»');
  });

  it("finds the property's own document, then the agency-wide one with every word, behind more matches", async () => {
    const tenant = await makeTenant(t);
    const mine = await makeProperty(t, tenant.id);
    await writeCommon(tenant, (i) =>
      doc(`stopcock-${i}`, { title: `Stopcock procedure ${i}`, body: 'Turn the stopcock clockwise.' }),
    );
    await knowledge.upsert(tenant.slug, [
      doc('mine', { propertyRef: mine.ref, title: 'Stopcock', body: 'Under the kitchen sink.' }),
      doc('key', { title: 'Stopcock key', body: 'The key for an outside stopcock valve is in the office.' }),
    ]);
    // the property's own document has one of the words: it still comes before every agency-wide one
    const scoped = await search(tenant, { q: 'stopcock key valve', property: mine.id, limit: 3 });
    expect(scoped.map((r) => [r.property_id, r.title])).toEqual([
      [mine.id, 'Stopcock'],
      [null, 'Stopcock key'],
      [null, expect.stringMatching(/^Stopcock procedure \d+$/)],
    ]);
  });

  it("never answers another tenant's documents or removed ones (tombstones)", async () => {
    const [tenant, theirs] = [await makeTenant(t), await makeTenant(t)];
    await knowledge.upsert(theirs.slug, [
      doc('theirs', { title: 'Gutter clearing', body: 'Gutters twice a year.' }),
    ]);
    await knowledge.upsert(tenant.slug, [
      doc('kept', { title: 'Gutter contractor', body: 'Call Smith & Sons for gutters.' }),
      doc('gone', { title: 'Old gutter firm', body: 'Gutters by Jones (no longer used).' }),
    ]);
    await knowledge.remove(tenant.slug, { key: 'gone' });
    expect((await search(tenant, { q: 'gutters' })).map((r) => r.title)).toEqual(['Gutter contractor']);
    expect((await search(theirs, { q: 'gutters' })).map((r) => r.title)).toEqual(['Gutter clearing']);
  });

  it('answers nothing for a question of stop words only, and honours limit', async () => {
    const tenant = await makeTenant(t);
    await knowledge.upsert(
      tenant.slug,
      [1, 2, 3].map((i) => doc(`lease-${i}`, { title: `Lease ${i}`, body: 'Lease terms.' })),
    );
    expect(await search(tenant, { q: 'the and of' })).toEqual([]);
    expect(await search(tenant, { q: 'lease', limit: 2 })).toHaveLength(2);
  });

  it('refuses a missing or empty question, an unknown parameter and a bad property, as the contract says', async () => {
    const tenant = await makeTenant(t);
    const get = (query: Record<string, string>) =>
      request(t.app)
        .get(PATH)
        .query(query)
        .set(...bearer(tenant.key));
    const queries: Array<Record<string, string>> = [
      {},
      { q: '  ' },
      { q: 'x', property: 'MAN-1' },
      { q: 'x', limit: '51' },
      { q: 'x', z: '1' },
    ];
    for (const query of queries) {
      expectProblem(await get(query), 400, 'validation-failed');
    }
  });

  it('needs a key (401) and the bridge flag (404), as every read', async () => {
    const off = await makeTenant(t, { flags: [] });
    expectProblem(await request(t.app).get(PATH).query({ q: 'x' }), 401, 'invalid-api-key');
    expectProblem(
      await request(t.app)
        .get(PATH)
        .query({ q: 'x' })
        .set(...bearer(off.key)),
      404,
      'bridge-not-enabled',
    );
  });
});
