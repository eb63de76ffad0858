import { randomBytes } from 'node:crypto';
import type { KnowledgeChangesResponse } from '@pa/contracts';
import { scaled, until } from '@pa/http-kit/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  KnowledgeChangesQuery,
  PlatformBridge,
  PlatformBridgeClient,
} from '../src/clients/bridge/platform-bridge-client.ts';
import { composeGateway, type Gateway } from '../src/compose/gateway.ts';
import type { KnowledgeSyncOutcome } from '../src/features/knowledge/knowledge-sync.ts';
import { createKnowledgeSyncer } from '../src/features/knowledge/knowledge-syncer.ts';
import { bindWorker, type BoundWorker } from './support/bound-worker.ts';
import { postJson } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway, type TestTenant } from './support/platform.ts';
import { GATEWAY_BACKENDS, startTestGateway, type TestGateway } from './support/test-app.ts';

// The gateway's copy of a tenant's knowledge corpus (docs/knowledge.md) against the REAL bridge, on both databases:
// a full sync at binding, incremental syncs with tombstones, a sync killed between pages and resumed by another
// process, two processes syncing one binding once, a rebind to another tenant dropping the old copy, the search
// (ranking, snippets, property filter) and the isolation of the copies of two tenants.

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

describe.each(GATEWAY_BACKENDS)('knowledge sync on %s', (_name, backend) => {
  let platform: PlatformForGateway;
  let g: TestGateway;
  let gw: Gateway;
  let agency: TestTenant;
  let other: TestTenant;
  let stopcockHouse: number;
  let otherHouse: number;
  let worker: BoundWorker;

  beforeAll(async () => {
    platform = await startPlatformForGateway();
    g = await startTestGateway({
      backend,
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        PLATFORM_BASE_URL: platform.baseUrl,
        PLATFORM_EVENT_WEBHOOKS: 'true',
        PLATFORM_WEBHOOK_SECRET: SECRET,
        // the tests drive the syncs themselves
        RUN_WORKER_IN_PROCESS: 'false',
      },
    });
    gw = composeGateway(g.deps);
    [agency, other] = await Promise.all([platform.createTenant(), platform.createTenant()]);
    stopcockHouse = await property(agency, 'MAN-003');
    otherHouse = await property(agency, 'LDS-002');
  }, scaled(60_000));
  afterAll(async () => {
    await g?.close();
    await platform?.close();
  });

  async function property(tenant: TestTenant, ref: string): Promise<number> {
    const row = await platform.db.property.create({
      data: {
        tenantId: tenant.id,
        ref,
        line1: `${ref} Canal Street`,
        town: 'Manchester',
        postcode: 'M1 3HE',
        propertyType: 'flat',
        bedrooms: 2,
        bathrooms: 1,
        tenure: 'leasehold',
        furnishing: 'unfurnished',
        localAuthority: 'Manchester',
        lettingStatus: 'let',
        managementType: 'fully_managed',
      },
    });
    return row.id;
  }

  let keys = 0;
  /** Publishes a document on the platform (its trigger stamps the change), as the operator CLI would. */
  async function publish(
    tenant: TestTenant,
    doc: { title: string; body: string; propertyId?: number; kind?: string },
  ): Promise<number> {
    const row = await platform.db.knowledgeDocument.create({
      data: {
        tenantId: tenant.id,
        key: `doc-${++keys}`,
        propertyId: doc.propertyId ?? null,
        kind: doc.kind ?? (doc.propertyId ? 'property_note' : 'procedure'),
        title: doc.title,
        body: doc.body,
        updatedAt: new Date(),
      },
    });
    return row.id;
  }

  const copy = (workerId: string) =>
    g.db.knowledgeDocument.findMany({ where: { workerId }, orderBy: { documentId: 'asc' } });

  /**
   * Syncs until the copy holds `ids` exactly: the bridge hands a change out once every transaction that began
   * before it has ended, so a change just committed may take a moment to appear.
   */
  async function syncUntil(workerId: string, ids: number[], sync = gw.knowledgeSyncer) {
    const want = [...ids].sort((a, b) => a - b).join(',');
    await until(`the copy to hold ${want}`, async () => {
      await sync.syncNow(workerId);
      return (await copy(workerId)).map((d) => d.documentId).join(',') === want;
    });
  }

  describe('a full sync at binding, then incremental ones', () => {
    let stopcock: number;
    let boiler: number;
    let boilerMention: number;
    let repairLimit: number;
    let councilScheme: number;

    it('binding asks for a full sync, which copies every document with its searchable text', async () => {
      stopcock = await publish(agency, {
        title: 'Stopcock location',
        body: 'The stopcock is under the kitchen sink, behind the bleach. Turn clockwise to close.',
        propertyId: stopcockHouse,
      });
      boiler = await publish(agency, {
        title: 'Boiler service contractor',
        body: 'Northern Heating services the Worcester Bosch boiler every October. Call 0161 496 0000.',
        propertyId: stopcockHouse,
        kind: 'contractor',
      });
      boilerMention = await publish(agency, {
        title: 'Annual inspection checklist',
        body: 'Check smoke alarms, the gas meter and the boiler pressure gauge; photograph each room.',
      });
      repairLimit = await publish(agency, {
        title: 'Landlord repair limit',
        body: 'Repairs up to £250 may go ahead without asking the landlord; above that, ask first.',
        propertyId: otherHouse,
        kind: 'landlord_instruction',
      });
      councilScheme = await publish(agency, {
        title: 'Manchester selective licensing',
        body: 'Every privately rented home in the designated areas needs a selective licence; the stopcock rule does not apply.',
        kind: 'local_rule',
      });

      worker = await bindWorker(g, agency);
      const state = await g.db.knowledgeSyncState.findUniqueOrThrow({ where: { workerId: worker.workerId } });
      expect(state.tenantSlug).toBe(agency.slug);
      expect(state.requestedAt).not.toBeNull();
      expect(state.cursor).toBeNull();

      await syncUntil(worker.workerId, [stopcock, boiler, boilerMention, repairLimit, councilScheme]);
      const rows = await copy(worker.workerId);
      const first = rows.find((r) => r.documentId === stopcock)!;
      expect(first).toMatchObject({
        propertyId: stopcockHouse,
        propertyRef: 'MAN-003',
        kind: 'property_note',
        title: 'Stopcock location',
      });
      const after = await g.db.knowledgeSyncState.findUniqueOrThrow({ where: { workerId: worker.workerId } });
      expect(after.cursor).not.toBeNull();
      expect(after.requestedAt).toBeNull();
      expect(after.lockToken).toBeNull();

      const status = await gw.knowledge.status(worker.workerId);
      expect(status.documents).toBe(5);
      expect(status.lastError).toBeNull();
      expect(status.lastSyncedAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    });

    it('search ranks a title match first, marks the matched words and says where each passage is from', async () => {
      const hits = await gw.knowledge.search(worker.workerId, { query: 'who services the boiler?' });
      expect(hits.map((h) => h.documentId)).toEqual([boiler, boilerMention]);
      expect(hits[0]).toMatchObject({
        documentId: boiler,
        propertyId: stopcockHouse,
        propertyRef: 'MAN-003',
        kind: 'contractor',
        title: 'Boiler service contractor',
      });
      expect(hits[0]!.snippet).toContain('«services»');
      expect(hits[0]!.snippet).toContain('«boiler»');
      expect(new Date(hits[0]!.updatedAt).toISOString()).toBe(hits[0]!.updatedAt);
      expect(hits[0]!.rank).toBeGreaterThan(hits[1]!.rank);

      // stemming: "stopcocks" finds "stopcock"; websearch syntax: -licence leaves the council's scheme out
      const stemmed = await gw.knowledge.search(worker.workerId, { query: 'stopcocks -licence' });
      expect(stemmed.map((h) => h.documentId)).toEqual([stopcock]);
      expect(await gw.knowledge.search(worker.workerId, { query: 'the and of' })).toEqual([]);
      expect(await gw.knowledge.search(worker.workerId, { query: '   ' })).toEqual([]);
    });

    it('filters by property: its own documents first, then the agency-wide ones; never another property’s', async () => {
      const atHouse = await gw.knowledge.search(worker.workerId, {
        query: 'stopcock',
        propertyId: stopcockHouse,
      });
      expect(atHouse.map((h) => h.documentId)).toEqual([stopcock, councilScheme]);
      const elsewhere = await gw.knowledge.search(worker.workerId, {
        query: 'stopcock',
        propertyId: otherHouse,
      });
      expect(elsewhere.map((h) => h.documentId)).toEqual([councilScheme]);
      const agencyOnly = await gw.knowledge.search(worker.workerId, {
        query: 'repair limit',
        propertyId: null,
      });
      expect(agencyOnly).toEqual([]);
      const limit = await gw.knowledge.search(worker.workerId, {
        query: 'repair limit',
        propertyId: otherHouse,
      });
      expect(limit.map((h) => h.documentId)).toEqual([repairLimit]);
      expect(limit[0]!.propertyRef).toBe('LDS-002');
    });

    it('an incremental sync applies edits, new documents and tombstones, and nothing else', async () => {
      await platform.db.knowledgeDocument.update({
        where: { id: stopcock },
        data: { body: 'The stopcock was moved to the airing cupboard in 2026.', updatedAt: new Date() },
      });
      await platform.db.knowledgeDocument.update({
        where: { id: boilerMention },
        data: { deletedAt: new Date(), updatedAt: new Date() },
      });
      const access = await publish(agency, {
        title: 'Access arrangements',
        body: 'Keys are held by the concierge; give the tenant 24 hours’ notice in writing.',
        propertyId: stopcockHouse,
      });
      await syncUntil(worker.workerId, [stopcock, boiler, repairLimit, councilScheme, access]);
      const moved = await gw.knowledge.search(worker.workerId, { query: 'airing cupboard' });
      expect(moved.map((h) => h.documentId)).toEqual([stopcock]);
      expect(await gw.knowledge.search(worker.workerId, { query: 'kitchen sink bleach' })).toEqual([]);
      expect(await gw.knowledge.search(worker.workerId, { query: '"pressure gauge"' })).toEqual([]);

      // nothing changed since: a sync reads one empty page and keeps the copy as it is
      const again = await gw.knowledgeSyncer.syncNow(worker.workerId);
      expect(again).toMatchObject({ outcome: 'synced', changes: 0, pages: 1 });
      expect(await copy(worker.workerId)).toHaveLength(5);
    });

    it('a signed knowledge.changed event syncs the copy at once', async () => {
      const fresh = await publish(agency, {
        title: 'Bin collection',
        body: 'Recycling goes out on Tuesday night; the council fines bins left on the pavement.',
      });
      const body = JSON.stringify({
        type: 'knowledge.changed',
        timestamp: new Date().toISOString(),
        data: { tenant_slug: agency.slug, changed: 1, property_ids: [], at: new Date().toISOString() },
      });
      // the event can come before the bridge hands the change out: the platform sends it again on a later change
      await until('the event to make the document searchable', async () => {
        const id = `msg_${randomBytes(8).toString('hex')}`;
        const at = new Date();
        const res = await fetch(`${g.baseUrl}/api/platform/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new Webhook(SECRET).sign(id, at, body),
          },
          body,
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ received: true, workers: 1 });
        const hits = await g.deps.db.knowledgeDocument.count({
          where: { workerId: worker.workerId, documentId: fresh },
        });
        return hits === 1;
      });
      // not for the worker's feed or its chats
      expect(await g.db.workerEvent.count({ where: { workerId: worker.workerId } })).toBe(0);
    });
  });

  describe('isolation, rebinding and unbinding', () => {
    it('two tenants’ copies never mix in search', async () => {
      const theirs = await publish(other, {
        title: 'Stopcock at the depot',
        body: 'The depot stopcock is in the yard.',
      });
      const second = await bindWorker(g, other);
      await syncUntil(second.workerId, [theirs]);
      const mine = await gw.knowledge.search(worker.workerId, { query: 'stopcock' });
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.map((h) => h.documentId)).not.toContain(theirs);
      const them = await gw.knowledge.search(second.workerId, { query: 'stopcock' });
      expect(them.map((h) => h.documentId)).toEqual([theirs]);
    });

    it('a rebind to another tenant drops the old copy at once; the next sync copies the new tenant’s', async () => {
      const w = await bindWorker(g, agency);
      const agencyIds = (await copy(worker.workerId)).map((d) => d.documentId);
      await syncUntil(w.workerId, agencyIds);
      const res = await postJson(
        g.baseUrl,
        `/api/assistant/workers/${w.workerId}/platform/bind`,
        { tenantSlug: other.slug, apiKey: other.key },
        { 'X-Workspace-Id': w.workspaceId },
      );
      expect(res.status).toBe(200);
      expect(await copy(w.workerId)).toEqual([]);
      expect(await gw.knowledge.search(w.workerId, { query: 'stopcock' })).toEqual([]);
      expect((await gw.knowledge.status(w.workerId)).documents).toBe(0);
      const theirs = (await platform.db.knowledgeDocument.findMany({ where: { tenantId: other.id } })).map(
        (d) => d.id,
      );
      await syncUntil(w.workerId, theirs);
      expect(
        (await g.db.knowledgeSyncState.findUniqueOrThrow({ where: { workerId: w.workerId } })).tenantSlug,
      ).toBe(other.slug);

      // unbinding removes the sync and the copy with the binding
      const unbound = await fetch(`${g.baseUrl}/api/assistant/workers/${w.workerId}/platform/bind`, {
        method: 'DELETE',
        headers: { 'X-Workspace-Id': w.workspaceId },
      });
      expect(unbound.status).toBeLessThan(300);
      expect(await copy(w.workerId)).toEqual([]);
      expect(await g.db.knowledgeSyncState.count({ where: { workerId: w.workerId } })).toBe(0);
    });
  });

  describe('across processes', () => {
    /** The real bridge, with each knowledge read first passing `before` (which may hold it up). */
    function bridgeThrough(
      before: (query: KnowledgeChangesQuery) => Promise<void>,
      seen: KnowledgeChangesQuery[],
    ): PlatformBridge {
      const wrap = (key: string): PlatformBridgeClient => {
        const real = g.deps.platform.forKey(key);
        return {
          ...real,
          keyPreview: real.keyPreview,
          async getKnowledgeChanges(query = {}, call): Promise<KnowledgeChangesResponse> {
            seen.push(query);
            await before(query);
            return real.getKnowledgeChanges(query, call);
          },
        };
      };
      return Object.assign(wrap, { forKey: wrap, baseUrl: g.deps.platform.baseUrl });
    }

    it('two processes syncing one binding at the same time: one syncs, the other finds it busy', async () => {
      const w = await bindWorker(g, agency);
      const ids = (await copy(worker.workerId)).map((d) => d.documentId);
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const seen: KnowledgeChangesQuery[] = [];
      const bridge = bridgeThrough(() => gate, seen);
      const [one, two] = [composeGateway(g.deps), composeGateway(g.deps)].map((c) =>
        createKnowledgeSyncer({
          store: c.repositories.knowledgeSync,
          credentials: c.binding.credentials,
          bridge,
          logger: g.deps.logger,
        }),
      );
      const runs = [one!.syncNow(w.workerId), two!.syncNow(w.workerId)];
      // the one holding the lock waits at the gate; the other has already given up
      const first = await Promise.race(runs);
      expect(first).toEqual({ outcome: 'busy' });
      open();
      const outcomes = await Promise.all(runs);
      expect(outcomes.filter((o) => o?.outcome === 'busy')).toHaveLength(1);
      const synced = outcomes.find((o) => o?.outcome === 'synced');
      // a sync from the start reads the tombstones too
      const changes = await platform.db.knowledgeDocument.count({ where: { tenantId: agency.id } });
      expect(synced).toMatchObject({ outcome: 'synced', changes });
      expect(seen).toHaveLength(1);
      expect((await copy(w.workerId)).map((d) => d.documentId)).toEqual(ids);
    });

    it('a sync killed between pages is resumed by another process from the last page kept', async () => {
      const w = await bindWorker(g, agency);
      const ids = (await copy(worker.workerId)).map((d) => d.documentId);
      expect(ids.length).toBeGreaterThanOrEqual(5);
      // the first process keeps one page of two, then hangs for ever (as good as killed) holding a short lock
      const deadSeen: KnowledgeChangesQuery[] = [];
      const dead = createKnowledgeSyncer({
        store: gw.repositories.knowledgeSync,
        credentials: gw.binding.credentials,
        bridge: bridgeThrough((q) => (q.cursor ? new Promise<void>(() => {}) : Promise.resolve()), deadSeen),
        logger: g.deps.logger,
        pageLimit: 2,
        leaseMs: 300,
      });
      void dead.syncNow(w.workerId);
      const kept = await until('the first page to be kept', async () => {
        const state = await g.db.knowledgeSyncState.findUnique({ where: { workerId: w.workerId } });
        return state?.cursor ?? undefined;
      });
      expect(await copy(w.workerId)).toHaveLength(2);
      await until('the dead process to ask for the second page', () => deadSeen.length === 2);

      const seen: KnowledgeChangesQuery[] = [];
      const successor = createKnowledgeSyncer({
        store: gw.repositories.knowledgeSync,
        credentials: gw.binding.credentials,
        bridge: bridgeThrough(() => Promise.resolve(), seen),
        logger: g.deps.logger,
        pageLimit: 2,
      });
      // busy until the dead process's lock runs out
      const outcome = await until('the successor to take over', async () => {
        const o = await successor.syncNow(w.workerId);
        return o?.outcome === 'synced' ? o : undefined;
      }).then((o) => o as Extract<KnowledgeSyncOutcome, { outcome: 'synced' }>);
      expect(seen[0]?.cursor).toBe(kept);
      // nothing read twice, nothing missed
      const changes = await platform.db.knowledgeDocument.count({ where: { tenantId: agency.id } });
      expect(outcome.changes).toBe(changes - 2);
      expect((await copy(w.workerId)).map((d) => d.documentId)).toEqual(ids);
    });
  });
});
