import { KnowledgeChangesResponse, type KnowledgeChange, PlatformEvent } from '@pa/contracts';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKnowledgeAdminService,
  type KnowledgeAdminService,
} from '../src/features/knowledge/knowledge-admin-service.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, knowledgeDoc as doc, makeProperty, makeTenant } from './support/factories.ts';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

// GET /knowledge/changes: the corpus read for syncing, and the operator's writes behind it (tombstones, the
// knowledge.changed event). The cursor must never miss or repeat a change, across pages and across concurrent
// writers (the raw two-connection case on PostgreSQL only: PGlite has one connection, so its transactions cannot
// overlap).

const PATH = '/api/assistant-bridge/knowledge/changes';
type Tenant = Awaited<ReturnType<typeof makeTenant>>;

describe.each(BRIDGE_BACKENDS)('GET /knowledge/changes on %s', (_name, backend) => {
  let t: TestBridge;
  let knowledge: KnowledgeAdminService;
  beforeAll(async () => {
    t = await startTestBridge({ now: '2026-06-15T09:00:00Z', backend });
    knowledge = createKnowledgeAdminService({ db: t.db, clock: t.clock });
  });
  afterAll(async () => t?.close());

  async function read(tenant: Tenant, query: Record<string, string | number> = {}) {
    const res = await request(t.app)
      .get(PATH)
      .query(query)
      .set(...bearer(tenant.key));
    expect(res.status).toBe(200);
    return expectContract(KnowledgeChangesResponse, res.body);
  }

  /** Follows next_cursor until has_more is false; returns every change and the last cursor. */
  async function readAll(tenant: Tenant, from?: string, limit = 2) {
    const changes: KnowledgeChange[] = [];
    let cursor = from;
    for (let page = 0; page < 100; page++) {
      const body = await read(tenant, { limit, ...(cursor ? { cursor } : {}) });
      expect(body.changes.length).toBeLessThanOrEqual(limit);
      changes.push(...body.changes);
      cursor = body.next_cursor;
      if (!body.has_more) return { changes, cursor };
    }
    throw new Error('has_more never became false');
  }

  it('pages through the corpus in a stable order, each document once, with a cursor on every answer', async () => {
    const tenant = await makeTenant(t);
    const property = await makeProperty(t, tenant.id);
    await knowledge.upsert(tenant.slug, [
      doc('a'),
      doc('b', { propertyRef: property.ref, kind: 'property_note', title: 'Stopcock' }),
      doc('c'),
    ]);
    await knowledge.upsert(tenant.slug, [doc('d'), doc('e')]);

    const first = await readAll(tenant);
    expect(first.changes.map((c) => c.id)).toEqual(
      (await t.db.knowledgeDocument.findMany({ where: { tenantId: tenant.id }, orderBy: { id: 'asc' } })).map(
        (d) => d.id,
      ),
    );
    const b = first.changes[1]!;
    expect(b).toMatchObject({
      property_id: property.id,
      property_ref: property.ref,
      kind: 'property_note',
      title: 'Stopcock',
      body: 'Body of b.',
      updated_at: '2026-06-15T09:00:00.000Z',
      deleted: false,
    });

    // nothing new: an empty page that keeps the caller's place
    const idle = await read(tenant, { cursor: first.cursor });
    expect(idle).toMatchObject({ changes: [], has_more: false, next_cursor: first.cursor });

    // an edit and a new document come after the cursor, the edited one in its latest state only
    await knowledge.edit(tenant.slug, { key: 'a' }, { title: 'Renamed' });
    await knowledge.upsert(tenant.slug, [doc('f')]);
    await knowledge.edit(tenant.slug, { key: 'a' }, { body: 'Second edit.' });
    const next = await readAll(tenant, first.cursor);
    expect(next.changes.map((c) => (c.deleted ? c.id : c.title))).toEqual(['Title f', 'Renamed']);
    expect(next.changes[1]).toMatchObject({ body: 'Second edit.' });
  });

  it('publishes a removal as a tombstone, and a re-added key as the same document again', async () => {
    const tenant = await makeTenant(t);
    await knowledge.upsert(tenant.slug, [doc('gone'), doc('kept')]);
    const start = await readAll(tenant);
    t.clock.set('2026-06-16T10:30:00Z');
    const removed = await knowledge.remove(tenant.slug, { key: 'gone' });
    const after = await readAll(tenant, start.cursor);
    expect(after.changes).toEqual([
      { id: removed.id, deleted: true, updated_at: '2026-06-16T10:30:00.000Z' },
    ]);
    expect(await knowledge.list(tenant.slug)).toHaveLength(1);
    expect(await knowledge.list(tenant.slug, { includeDeleted: true })).toHaveLength(2);
    // the whole corpus from the start also says it was removed, so a fresh copy never holds it
    expect((await readAll(tenant)).changes.find((c) => c.id === removed.id)).toMatchObject({ deleted: true });

    await knowledge.add(tenant.slug, doc('gone', { title: 'Back again' }));
    const back = await readAll(tenant, after.cursor);
    expect(back.changes).toMatchObject([{ id: removed.id, deleted: false, title: 'Back again' }]);
    t.clock.set('2026-06-15T09:00:00Z');
  });

  it("never shows another tenant's documents", async () => {
    const mine = await makeTenant(t);
    const theirs = await makeTenant(t);
    await knowledge.upsert(mine.slug, [doc('mine')]);
    await knowledge.upsert(theirs.slug, [doc('theirs-1'), doc('theirs-2')]);
    const all = await readAll(mine);
    expect(all.changes.map((c) => !c.deleted && c.title)).toEqual(['Title mine']);
    // a cursor of the other tenant's read moves nothing across
    const theirCursor = (await readAll(theirs)).cursor;
    const viaTheirs = await read(mine, { cursor: theirCursor });
    expect(viaTheirs.changes.every((c) => c.id !== all.changes[0]!.id || !c.deleted)).toBe(true);
    expect(viaTheirs.changes.map((c) => c.id)).not.toContain(
      (await t.db.knowledgeDocument.findFirst({ where: { tenantId: theirs.id } }))!.id,
    );
  });

  it('refuses a bad cursor or limit, a missing key, a key without bridge:read, and a tenant without the bridge', async () => {
    const tenant = await makeTenant(t);
    const get = (q: Record<string, string>, key = tenant.key) =>
      request(t.app)
        .get(PATH)
        .query(q)
        .set(...bearer(key));
    expectProblem(await get({ cursor: 'not-a-cursor' }), 400, 'validation-failed');
    expectProblem(
      await get({ cursor: Buffer.from('k:-1:0').toString('base64url') }),
      400,
      'validation-failed',
    );
    expectProblem(await get({ limit: '0' }), 400, 'validation-failed');
    expectProblem(await get({ limit: '501' }), 400, 'validation-failed');
    expectProblem(await get({ since: 'yesterday' }), 400, 'validation-failed');
    expectProblem(await request(t.app).get(PATH), 401, 'invalid-api-key');
    const proposer = await makeTenant(t, { scopes: ['bridge:propose'] });
    expectProblem(await get({}, proposer.key), 403, 'insufficient-scope');
    const off = await makeTenant(t, { flags: [] });
    expectProblem(await get({}, off.key), 404, 'bridge-not-enabled');
  });

  it('writes knowledge.changed in the change’s transaction when the tenant’s events are on, and only then', async () => {
    const on = await makeTenant(t, { flags: ['assistant_external_bridge', 'platform_event_webhooks'] });
    const property = await makeProperty(t, on.id);
    await knowledge.upsert(on.slug, [doc('x', { propertyRef: property.ref }), doc('y')]);
    // the same again changes nothing, so no event
    expect(
      await knowledge.upsert(on.slug, [doc('x', { propertyRef: property.ref }), doc('y')]),
    ).toMatchObject({
      added: 0,
      updated: 0,
      unchanged: 2,
    });
    await knowledge.remove(on.slug, { key: 'y' });
    const events = (
      await t.db.outboxEvent.findMany({ where: { tenantId: on.id }, orderBy: { id: 'asc' } })
    ).map((r) => PlatformEvent.parse(r.payload));
    expect(events.map((e) => e.data)).toEqual([
      { tenant_slug: on.slug, changed: 2, property_ids: [property.id], at: '2026-06-15T09:00:00.000Z' },
      { tenant_slug: on.slug, changed: 1, property_ids: [], at: '2026-06-15T09:00:00.000Z' },
    ]);

    // a write that fails (an unknown property) writes neither documents nor an event
    await expect(knowledge.upsert(on.slug, [doc('z'), doc('w', { propertyRef: 'NOPE-1' })])).rejects.toThrow(
      /w: tenant .* has no property with ref "NOPE-1"/,
    );
    expect(await t.db.knowledgeDocument.count({ where: { tenantId: on.id, key: 'z' } })).toBe(0);
    expect(await t.db.outboxEvent.count({ where: { tenantId: on.id } })).toBe(2);

    const off = await makeTenant(t);
    await knowledge.upsert(off.slug, [doc('x')]);
    expect(await t.db.outboxEvent.count({ where: { tenantId: off.id } })).toBe(0);
  });

  // two connections writing at once: the embedded database has a single session, so it has no such case to test
  if (backend === 'postgres')
    it('misses nothing with overlapping writers: a later change cannot commit before an earlier one of the tenant', async () => {
      const tenant = await makeTenant(t);
      await knowledge.upsert(tenant.slug, [doc('before')]);
      const start = await readAll(tenant);
      const first = new pg.Client({ connectionString: t.databaseUrl });
      const second = new pg.Client({ connectionString: t.databaseUrl });
      await first.connect();
      await second.connect();
      try {
        const insert = (c: pg.Client, key: string) =>
          c.query(
            `INSERT INTO knowledge_documents (tenant_id, key, kind, title, body, updated_at)
             VALUES ($1, $2, 'procedure', $2, 'Body.', now())`,
            [tenant.id, key],
          );
        // the first writer has drawn its number; the second, drawn later, cannot commit before it
        await first.query('BEGIN');
        await insert(first, 'slow');
        await second.query('BEGIN');
        let secondWrote = false;
        const secondInsert = insert(second, 'fast').then(() => (secondWrote = true));
        const during = await read(tenant, { cursor: start.cursor });
        // readers never wait for writers; nothing uncommitted is handed out
        expect(during).toMatchObject({ changes: [], has_more: false, next_cursor: start.cursor });
        expect(secondWrote).toBe(false);
        await first.query('COMMIT');
        await secondInsert;
        const between = await readAll(tenant, during.next_cursor, 1);
        expect(between.changes.map((c) => !c.deleted && c.title)).toEqual(['slow']);
        await second.query('COMMIT');
        const after = await readAll(tenant, between.cursor, 1);
        expect(after.changes.map((c) => !c.deleted && c.title)).toEqual(['fast']);
        expect((await read(tenant, { cursor: after.cursor })).changes).toEqual([]);
      } finally {
        await first.end();
        await second.end();
      }
    });

  it('reads many concurrent writers page by page without losing or repeating a change', async () => {
    const tenant = await makeTenant(t);
    const seen: number[] = [];
    let cursor: string | undefined;
    const drain = async () => {
      for (;;) {
        const body = await read(tenant, { limit: 3, ...(cursor ? { cursor } : {}) });
        seen.push(...body.changes.map((c) => c.id));
        cursor = body.next_cursor;
        if (!body.has_more) return;
      }
    };
    // writers and a reader at once: each writer adds two documents in one transaction
    const writers = Array.from({ length: 12 }, (_, i) =>
      knowledge.upsert(tenant.slug, [doc(`w${i}-a`), doc(`w${i}-b`)]),
    );
    const reading = (async () => {
      for (let i = 0; i < 6; i++) await drain();
    })();
    await Promise.all([...writers, reading]);
    await drain();
    expect(seen).toHaveLength(24);
    expect(new Set(seen).size).toBe(24);
  });
});
