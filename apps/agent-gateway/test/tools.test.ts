import {
  type KnowledgeDocument,
  ComplianceResponse,
  DealsResponse,
  PortfolioComplianceResponse,
  PortfolioResponse,
  Property,
  TenantCopiesResponse,
  WorkerEmailActivityResponse,
} from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPlatformBridgeClient,
  type PlatformBridgeClient,
} from '../src/clients/bridge/platform-bridge-client.ts';
import type { Toolbox } from '../src/features/tools/toolbox.ts';
import {
  compactJson,
  createPlatformToolbox,
  PLATFORM_TOOL_NAMES,
} from '../src/features/tools/platform-tools.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { scaled, until } from '@pa/http-kit/testing';
import { composeGateway, type Gateway } from '../src/compose/gateway.ts';
import {
  KNOWLEDGE_NOTE,
  KNOWLEDGE_TOOL_NAME,
  type KnowledgeResult,
} from '../src/features/tools/knowledge-tool.ts';
import { bindWorker, type BoundWorker } from './support/bound-worker.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// The worker's read tools (docs/gateway-api.md) against the REAL platform-bridge app and its demo tenant.

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let client: PlatformBridgeClient;
let tools: Toolbox;
let idOf: Map<string, number>;
const signal = new AbortController().signal;

beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo();
  client = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(demo.key);
  tools = createPlatformToolbox(client);
  const portfolio = await client.getPortfolio({ limit: 500 });
  idOf = new Map(portfolio.properties.map((p) => [p.ref, p.id]));
});
afterAll(async () => platform?.close());

async function ok(name: string, args: unknown) {
  const record = await tools.call(name, args, signal);
  expect(record, record.result).toMatchObject({ name, ok: true });
  return JSON.parse(record.result) as unknown;
}

describe('definitions', () => {
  it('offers the read tools with a description and a JSON Schema for the arguments', () => {
    expect(tools.definitions.map((d) => d.name)).toEqual([
      'platform-get-portfolio',
      'platform-get-property',
      'platform-get-compliance',
      'platform-get-tenant-copies',
      'platform-get-deals',
      'platform-get-email-activity',
      'platform-get-proposals',
    ]);
    for (const d of tools.definitions) {
      expect(d.description.length).toBeGreaterThan(40);
      expect(d.parameters).toMatchObject({ type: 'object', additionalProperties: false });
    }
    const property = tools.definitions.find((d) => d.name === PLATFORM_TOOL_NAMES.property)!;
    expect(property.parameters).toMatchObject({
      required: ['property_id'],
      properties: { property_id: { type: 'integer', exclusiveMinimum: 0 } },
    });
    // property_id is optional: without it the tool reads the whole portfolio's compliance needing attention
    const compliance = tools.definitions.find((d) => d.name === PLATFORM_TOOL_NAMES.compliance)!;
    expect(compliance.parameters.required).toBeUndefined();
    expect(compliance.parameters).toMatchObject({
      properties: {
        property_id: { type: 'integer' },
        status: { type: 'array', items: { enum: ['expired', 'expiring_soon', 'missing'] } },
        limit: { type: 'integer' },
      },
    });
    expect(compliance.description).toMatch(/whole portfolio/);
    const copies = tools.definitions.find((d) => d.name === PLATFORM_TOOL_NAMES.tenantCopies)!;
    expect(copies.parameters.required).toBeUndefined();
    expect(copies.parameters).toMatchObject({
      properties: {
        status: { type: 'array', items: { enum: ['due', 'overdue'] } },
        limit: { type: 'integer', maximum: 500 },
        cursor: { type: 'string' },
      },
    });
    expect(copies.description).toMatch(/28 days/);
    const deals = tools.definitions.find((d) => d.name === PLATFORM_TOOL_NAMES.deals)!;
    expect(deals.parameters).toMatchObject({
      properties: { status: { enum: ['open', 'won', 'lost', 'all'] } },
    });
  });
});

describe('success through the real bridge', () => {
  it('platform-get-portfolio returns the portfolio as compact JSON', async () => {
    const body = PortfolioResponse.parse(await ok('platform-get-portfolio', {}));
    expect(body.summary.properties_total).toBe(24);
    expect(body.properties).toHaveLength(24);
    const paged = PortfolioResponse.parse(await ok('platform-get-portfolio', { limit: 10 }));
    expect(paged.properties).toHaveLength(10);
    expect(paged.next_cursor).toEqual(expect.any(String));
    const next = PortfolioResponse.parse(
      await ok('platform-get-portfolio', { limit: 10, cursor: paged.next_cursor }),
    );
    expect(next.properties[0]!.id).not.toBe(paged.properties[0]!.id);
    // compact: no pretty-printing
    const record = await tools.call('platform-get-portfolio', {}, signal);
    expect(record.result).not.toContain('\n');
    // null/undefined arguments mean "no arguments"
    expect((await tools.call('platform-get-portfolio', null, signal)).ok).toBe(true);
    expect((await tools.call('platform-get-portfolio', undefined, signal)).ok).toBe(true);
  });

  it('platform-get-property and platform-get-compliance read one property', async () => {
    const id = idOf.get('MAN-004')!;
    const property = Property.parse(await ok('platform-get-property', { property_id: id }));
    expect(property).toMatchObject({ id, ref: 'MAN-004', address: { postcode: 'M16 8LD' } });
    const compliance = ComplianceResponse.parse(await ok('platform-get-compliance', { property_id: id }));
    expect(compliance.items.find((i) => i.type === 'gas_safety')).toMatchObject({ status: 'expired' });
    expect(compliance.items.find((i) => i.type === 'eicr')?.remedial_due_date).toEqual(expect.any(String));
  });

  it('platform-get-compliance without property_id reads the whole portfolio in one call', async () => {
    // The demo's whole answer is longer than the default cap of 20 KB: a caller that needs all of it in one
    // call (the daily summary) gives its toolbox a larger cap; the default trims the list with a note.
    const roomy = createPlatformToolbox(client, { maxResultChars: 200_000 });
    const record = await roomy.call('platform-get-compliance', {}, signal);
    expect(record, record.result).toMatchObject({ ok: true, arguments: {} });
    const whole = PortfolioComplianceResponse.parse(JSON.parse(record.result));
    expect(whole.next_cursor).toBeNull();
    const trimmed = JSON.parse((await tools.call('platform-get-compliance', {}, signal)).result) as {
      properties: unknown[];
      truncated: { field: string; total: number };
    };
    expect(trimmed.truncated).toMatchObject({ field: 'properties', total: whole.properties.length });
    expect(trimmed.properties.length).toBeLessThan(whole.properties.length);
    const man004 = whole.properties.find((p) => p.ref === 'MAN-004')!;
    const single = ComplianceResponse.parse(
      await ok('platform-get-compliance', { property_id: man004.property_id }),
    );
    expect(man004.items).toEqual(single.items.filter((i) => i.status !== 'valid'));
    expect(man004.missing).toEqual(single.missing);
    expect(whole.properties.length).toBeGreaterThan(5);

    const expired = PortfolioComplianceResponse.parse(
      await ok('platform-get-compliance', { status: ['expired'], limit: 3 }),
    );
    expect(expired.properties).toHaveLength(3);
    expect(expired.next_cursor).toEqual(expect.any(String));
    for (const p of expired.properties) for (const i of p.items) expect(i.status).toBe('expired');
  });

  it('platform-get-compliance refuses page arguments together with property_id, in words', async () => {
    const record = await tools.call(
      'platform-get-compliance',
      { property_id: idOf.get('MAN-004')!, status: ['expired'] },
      signal,
    );
    expect(record).toMatchObject({ ok: false });
    expect(record.result).toMatch(/status: applies only to the whole portfolio/);
  });

  it('platform-get-tenant-copies lists the copies owed across the portfolio in one call', async () => {
    const overdue = TenantCopiesResponse.parse(await ok('platform-get-tenant-copies', {}));
    expect(overdue.status).toEqual(['overdue']);
    expect(overdue.items.map((i) => `${i.ref} ${i.item.type}`).sort()).toEqual([
      'BRS-001 gas_safety',
      'LDS-003 eicr',
    ]);
    // the same item as the property's own compliance read shows
    const brs001 = overdue.items.find((i) => i.ref === 'BRS-001')!;
    const single = ComplianceResponse.parse(
      await ok('platform-get-compliance', { property_id: brs001.property_id }),
    );
    expect(single.items.find((i) => i.id === brs001.item.id)).toEqual(brs001.item);

    const both = TenantCopiesResponse.parse(
      await ok('platform-get-tenant-copies', { status: ['due', 'overdue'], limit: 1 }),
    );
    expect(both.status).toEqual(['due', 'overdue']);
    expect(both.items).toHaveLength(1);
    expect(both.next_cursor).toEqual(expect.any(String));
    const next = TenantCopiesResponse.parse(
      await ok('platform-get-tenant-copies', {
        status: ['due', 'overdue'],
        limit: 1,
        cursor: both.next_cursor,
      }),
    );
    expect(next.items[0]!.item.id).not.toBe(both.items[0]!.item.id);
  });

  it('platform-get-deals reads open deals by default, and others on request', async () => {
    const open = DealsResponse.parse(await ok('platform-get-deals', {}));
    expect(open.deals.length).toBeGreaterThan(0);
    expect(open.deals.every((d) => d.status === 'open')).toBe(true);
    const all = DealsResponse.parse(await ok('platform-get-deals', { status: 'all' }));
    expect(new Set(all.deals.map((d) => d.status))).toEqual(new Set(['open', 'won', 'lost']));
  });

  it('platform-get-email-activity reads the last N hours, each message labelled as the platform’s', async () => {
    const day = WorkerEmailActivityResponse.parse(await ok('platform-get-email-activity', {}));
    expect(day.hours).toBe(24);
    const two = WorkerEmailActivityResponse.parse(await ok('platform-get-email-activity', { hours: 48 }));
    expect(two.hours).toBe(48);
    expect(two.items.length).toBeGreaterThan(day.items.length);
    expect(two.items.every((e) => e.source === 'platform')).toBe(true);
    // without mailboxes of its own, the answer says nothing about them
    expect(two.own_mailboxes).toBeUndefined();
  });
});

describe('argument validation', () => {
  it.each([
    ['platform-get-property', {}, /property_id/],
    ['platform-get-property', { property_id: 'MAN-004' }, /property_id/],
    ['platform-get-property', { property_id: -1 }, /property_id/],
    ['platform-get-property', { property_id: 1.5 }, /property_id/],
    ['platform-get-compliance', { property_id: 0 }, /property_id/],
    ['platform-get-portfolio', { limit: 1000 }, /limit/],
    ['platform-get-portfolio', { cursor: 'not a cursor!' }, /cursor/],
    ['platform-get-portfolio', { page: 2 }, /page|unrecognized/i],
    ['platform-get-deals', { status: 'closed' }, /status/],
    ['platform-get-tenant-copies', { status: ['served'] }, /status/],
    ['platform-get-tenant-copies', { status: 'overdue' }, /status/],
    ['platform-get-tenant-copies', { status: [] }, /status/],
    ['platform-get-tenant-copies', { limit: 0 }, /limit/],
    ['platform-get-tenant-copies', { property_id: 5 }, /unrecognized/i],
    ['platform-get-email-activity', { hours: 0 }, /hours/],
    ['platform-get-email-activity', { hours: 721 }, /hours/],
    ['platform-get-email-activity', 'last 24 hours', /object/i],
  ])('%s %j → ok:false', async (name, args, message) => {
    const record = await tools.call(name, args, signal);
    expect(record.ok).toBe(false);
    expect(record.result).toMatch(/^Invalid arguments for platform-get-/);
    expect(record.result).toMatch(message);
  });

  it('an unknown tool is refused without throwing', async () => {
    await expect(tools.call('platform-delete-everything', {}, signal)).resolves.toMatchObject({
      ok: false,
      result: 'No tool named platform-delete-everything.',
    });
  });
});

describe('failures come back as ok:false in words', () => {
  it('a revoked key → the key was refused, never showing the key', async () => {
    const issued = await platform.admin.createKey(demo.tenant.slug, ['bridge:read'], 'to revoke');
    await platform.admin.revokeKey(issued.id);
    const revoked = createPlatformToolbox(
      createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(issued.key),
    );
    for (const def of revoked.definitions) {
      const args =
        def.name === 'platform-get-property' || def.name === 'platform-get-compliance'
          ? { property_id: 1 }
          : {};
      const record = await revoked.call(def.name, args, signal);
      expect(record.ok).toBe(false);
      expect(record.result).toContain(`${def.name} failed:`);
      expect(record.result).toMatch(/refused the API key/);
      expect(JSON.stringify(record)).not.toContain(issued.key);
    }
  });

  it('an unknown property → not found', async () => {
    const record = await tools.call('platform-get-property', { property_id: 999_999 }, signal);
    expect(record).toMatchObject({ ok: false });
    expect(record.result).toMatch(/no such property/);
  });

  it('an unreachable platform, an aborted call and an unexpected error never throw', async () => {
    const down = createPlatformToolbox(
      createPlatformBridgeClient({ baseUrl: 'http://127.0.0.1:9', retries: 0 }).forKey(demo.key),
    );
    const unreachable = await down.call('platform-get-portfolio', {}, signal);
    expect(unreachable).toMatchObject({ ok: false });
    expect(unreachable.result).toMatch(/could not be reached/);

    const aborted = AbortSignal.abort();
    await expect(tools.call('platform-get-portfolio', {}, aborted)).resolves.toMatchObject({ ok: false });

    const broken = createPlatformToolbox({
      ...client,
      getDeals: () => Promise.reject(new Error(`boom with ${demo.key}`)),
    });
    const record = await broken.call('platform-get-deals', {}, signal);
    expect(record).toMatchObject({ ok: false });
    expect(record.result).toMatch(/unexpected error/);
    expect(record.result).not.toContain(demo.key);
  });
});

describe('result size cap', () => {
  it('trims long lists with a note so that the result stays under the cap', async () => {
    const small = createPlatformToolbox(client, { maxResultChars: 3_000 });
    const record = await small.call('platform-get-portfolio', { limit: 500 }, signal);
    expect(record.ok).toBe(true);
    expect(record.result.length).toBeLessThanOrEqual(3_000);
    const body = JSON.parse(record.result) as {
      properties: unknown[];
      summary: { properties_total: number };
      truncated: { field: string; shown: number; total: number; note: string };
    };
    expect(body.summary.properties_total).toBe(24);
    expect(body.truncated).toMatchObject({ field: 'properties', total: 24 });
    expect(body.truncated.shown).toBe(body.properties.length);
    expect(body.properties.length).toBeGreaterThan(0);
    expect(body.properties.length).toBeLessThan(24);
    expect(body.truncated.note).toMatch(/first \d+ of 24/);
  });

  it('keeps the default cap of 20 KB on the largest demo answer', async () => {
    const record = await tools.call('platform-get-email-activity', { hours: 720 }, signal);
    expect(record.ok).toBe(true);
    const raw = JSON.stringify(await client.getEmailActivity({ hours: 720 }));
    expect(raw.length).toBeGreaterThan(20_000);
    expect(record.result.length).toBeLessThanOrEqual(20_000);
    expect(() => JSON.parse(record.result) as unknown).not.toThrow();
  });

  it('compactJson leaves small values alone and cuts anything else', () => {
    expect(compactJson({ a: [1, 2] }, 1_000)).toBe('{"a":[1,2]}');
    const cut = compactJson('x'.repeat(5_000), 1_000);
    expect(cut.length).toBeLessThanOrEqual(1_000);
    expect(cut).toMatch(/truncated/);
  });
});

describe('platform-search-knowledge over the worker’s synced copy of the demo corpus', () => {
  let g: TestGateway;
  let gw: Gateway;
  let worker: BoundWorker;
  let knowledgeTools: Toolbox;
  let corpus: Map<number, KnowledgeDocument>;

  /** Every live document, read through the bridge's own changes feed: the referee for the tool's answers. */
  async function readCorpus(): Promise<Map<number, KnowledgeDocument>> {
    const docs = new Map<number, KnowledgeDocument>();
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await client.getKnowledgeChanges({ limit: 500, ...(cursor ? { cursor } : {}) });
      for (const c of res.changes) {
        if (c.deleted) docs.delete(c.id);
        else docs.set(c.id, c);
      }
      cursor = res.next_cursor;
      if (!res.has_more) break;
    }
    return docs;
  }

  beforeAll(async () => {
    g = await startTestGateway({
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        PLATFORM_BASE_URL: platform.baseUrl,
        RUN_WORKER_IN_PROCESS: 'false', // the test syncs itself
      },
    });
    gw = composeGateway(g.deps);
    worker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
    corpus = await readCorpus();
    expect(corpus.size).toBeGreaterThan(20);
    await until('the worker’s copy to hold the whole corpus', async () => {
      await gw.knowledge.syncNow(worker.workerId);
      return (await gw.knowledge.status(worker.workerId)).documents === corpus.size;
    });
    knowledgeTools = createPlatformToolbox(client, {
      knowledge: { search: (q) => gw.knowledge.search(worker.workerId, q) },
    });
  }, scaled(60_000));
  afterAll(async () => g?.close());

  async function search(args: unknown): Promise<KnowledgeResult> {
    const record = await knowledgeTools.call(KNOWLEDGE_TOOL_NAME, args, signal);
    expect(record, record.result).toMatchObject({ name: KNOWLEDGE_TOOL_NAME, ok: true });
    return JSON.parse(record.result) as KnowledgeResult;
  }

  /** Each passage is the bridge's document as published: title, kind, property, date. */
  function expectPublished(result: KnowledgeResult): void {
    for (const p of result.passages) {
      const doc = corpus.get(p.document_id);
      expect(doc, `document ${p.document_id}`).toBeDefined();
      expect(p).toMatchObject({
        title: doc!.title,
        kind: doc!.kind,
        property_ref: doc!.property_ref,
        updated_at: new Date(doc!.updated_at).toISOString(),
      });
    }
  }

  it('is offered only with a corpus, with a strict schema that says passages are data', () => {
    expect(tools.definitions.map((d) => d.name)).not.toContain(KNOWLEDGE_TOOL_NAME);
    const def = knowledgeTools.definitions.find((d) => d.name === KNOWLEDGE_TOOL_NAME)!;
    expect(def).toBeDefined();
    expect(def.parameters).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: { query: { type: 'string', maxLength: 200 }, property: { type: 'string' } },
    });
    expect(def.description).toMatch(/never instructions/);
    expect(def.description).toMatch(/title and date/);
  });

  it.each([
    [{}, /query/],
    [{ query: '' }, /query/],
    [{ query: '   ' }, /query/],
    [{ query: 'x'.repeat(201) }, /query/],
    [{ query: 5 }, /query/],
    [{ query: 'stopcock', property: '' }, /property/],
    [{ query: 'stopcock', limit: 3 }, /unrecognized/i],
    ['stopcock', /object/i],
  ])('%j → ok:false in words', async (args, message) => {
    const record = await knowledgeTools.call(KNOWLEDGE_TOOL_NAME, args, signal);
    expect(record.ok).toBe(false);
    expect(record.result).toMatch(/^Invalid arguments for platform-search-knowledge/);
    expect(record.result).toMatch(message);
  });

  it('refuses a property the tenant does not hold, in words', async () => {
    for (const property of ['XYZ-999', '999999', '14 Oak Street']) {
      const record = await knowledgeTools.call(KNOWLEDGE_TOOL_NAME, { query: 'stopcock', property }, signal);
      expect(record.ok).toBe(false);
      expect(record.result).toContain(`no property "${property}" in this tenant's portfolio`);
    }
  });

  it('finds a property’s own document first, by ref, id or address, quoted as the bridge publishes it', async () => {
    const stopcock = [...corpus.values()].find(
      (d) => d.property_ref === 'MAN-003' && /stopcock/i.test(d.title),
    )!;
    expect(stopcock).toBeDefined();
    const byRef = await search({ query: 'stopcock', property: 'MAN-003' });
    expect(byRef.property).toEqual({ id: idOf.get('MAN-003'), ref: 'MAN-003' });
    expect(byRef.note).toBe(KNOWLEDGE_NOTE);
    expect(byRef.passages[0]).toMatchObject({ document_id: stopcock.id, title: stopcock.title });
    expect(byRef.passages[0]!.snippet).toMatch(/«stopcock»/i);
    expect(byRef.passages.length).toBeLessThanOrEqual(5);
    expectPublished(byRef);
    // another property's stopcock note is not offered for MAN-003
    expect(byRef.passages.every((p) => p.property_ref === 'MAN-003' || p.property_ref === null)).toBe(true);

    const byId = await search({ query: 'stopcock', property: String(idOf.get('MAN-003')) });
    expect(byId.passages[0]!.document_id).toBe(stopcock.id);

    const boiler = await search({ query: 'boiler engineer', property: '34 Beech Road' });
    expect(boiler.property?.ref).toBe('MAN-002');
    expect(boiler.passages[0]).toMatchObject({ property_ref: 'MAN-002' });
    expect(boiler.passages[0]!.title).toMatch(/boiler/i);
    expectPublished(boiler);
  });

  it('puts the property’s documents before the agency-wide ones, and searches everything without one', async () => {
    const hmo = await search({ query: 'HMO licence conditions', property: 'LON-006' });
    const refs = hmo.passages.map((p) => p.property_ref);
    expect(refs[0]).toBe('LON-006');
    expect(refs).toContain(null); // Newham's borough-wide rule
    expect(refs.indexOf(null)).toBeGreaterThan(refs.lastIndexOf('LON-006'));
    expectPublished(hmo);

    const everywhere = await search({ query: 'stopcock' });
    expect(everywhere.property).toBeNull();
    const holders = new Set(everywhere.passages.map((p) => p.property_ref));
    expect(holders.size).toBeGreaterThan(1); // several properties' notes, not one
    expectPublished(everywhere);
  });

  it('finds nothing for a subject the corpus does not hold', async () => {
    expect([...corpus.values()].some((d) => /locksmith/i.test(`${d.title} ${d.body}`))).toBe(false);
    const none = await search({ query: 'locksmith', property: 'MAN-003' });
    expect(none).toMatchObject({ passages: [], note: KNOWLEDGE_NOTE, property: { ref: 'MAN-003' } });
  });
});
