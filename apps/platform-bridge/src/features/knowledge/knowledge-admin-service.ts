import { Conflict, NotFound, Unprocessable } from '@pa/http-kit';
import type { KnowledgeDocument as Row } from '../../generated/prisma/client.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import type { Db, Tx } from '../../lib/db.ts';
import { createTenantsRepository } from '../tenants/tenants-repository.ts';
import { recordEvents } from '../webhooks/record-events.ts';
import { createKnowledgeDocumentsRepository } from './knowledge-documents-repository.ts';
import { knowledgeChangedEvent } from './knowledge-events.ts';
import { type KnowledgeInput, knowledgeProblems, normaliseInput } from './knowledge-input.ts';

export interface KnowledgeWriteResult {
  added: number;
  updated: number;
  unchanged: number;
  documents: Array<{ id: number; key: string; outcome: 'added' | 'updated' | 'unchanged' }>;
}

export interface KnowledgeListing {
  id: number;
  key: string;
  property_ref: string | null;
  kind: string;
  title: string;
  body_chars: number;
  updated_at: string;
  deleted_at: string | null;
}

/** An operator names a document by its id or its key. */
export type DocumentRef = { id: number } | { key: string };

const refWords = (r: DocumentRef) => ('id' in r ? `id ${r.id}` : `key "${r.key}"`);

// Operator actions on a tenant's knowledge corpus (the CLI's `knowledge` commands, the demo seed, tests). Every
// write and its `knowledge.changed` event (when the tenant's events are on) share one transaction, and a write
// that would change nothing writes nothing, so re-importing the same folder neither moves the sync cursor nor
// sends an event.
export function createKnowledgeAdminService(deps: { db: Db; clock?: Clock }) {
  const { db } = deps;
  const clock = deps.clock ?? systemClock;
  const documents = createKnowledgeDocumentsRepository(db);
  const tenants = createTenantsRepository(db);

  async function tenantBySlug(slug: string, tx: Tx | Db = db) {
    const t = await tenants.findBySlug(slug, tx);
    if (!t) throw new NotFound('tenant-not-found', `No tenant with slug "${slug}".`);
    return t;
  }

  function invalid(problems: string[]): never {
    throw new Unprocessable('invalid-knowledge', problems.join('\n'));
  }

  /** Adds or updates documents by key, all or none. */
  async function upsert(
    slug: string,
    given: KnowledgeInput[],
    o: { refuseExisting?: boolean } = {},
  ): Promise<KnowledgeWriteResult> {
    const inputs = given.map(normaliseInput);
    const problems = inputs.flatMap((d) => knowledgeProblems(d).map((p) => `${d.key}: ${p}`));
    const seen = new Set<string>();
    for (const d of inputs) {
      if (seen.has(d.key)) problems.push(`${d.key}: the key is given more than once`);
      seen.add(d.key);
    }
    if (problems.length) invalid(problems);

    return db.$transaction(async (tx) => {
      const tenant = await tenantBySlug(slug, tx);
      const refs = [...new Set(inputs.flatMap((d) => (d.propertyRef ? [d.propertyRef] : [])))];
      const properties = new Map(
        (await documents.propertiesByRef(tenant.id, refs, tx)).map((p) => [p.ref, p.id]),
      );
      const unknown = inputs.filter((d) => d.propertyRef && !properties.has(d.propertyRef));
      if (unknown.length) {
        invalid(unknown.map((d) => `${d.key}: tenant ${slug} has no property with ref "${d.propertyRef}"`));
      }
      const existing = new Map(
        (
          await documents.findByKeys(
            tenant.id,
            inputs.map((d) => d.key),
            tx,
          )
        ).map((r) => [r.key, r]),
      );
      if (o.refuseExisting) {
        const taken = inputs.filter((d) => existing.get(d.key)?.deletedAt === null);
        if (taken.length) {
          throw new Conflict(
            'knowledge-key-taken',
            `A document with key "${taken[0]!.key}" exists already; change it with: knowledge edit --key ${taken[0]!.key}`,
          );
        }
      }

      const now = clock.now();
      const result: KnowledgeWriteResult = { added: 0, updated: 0, unchanged: 0, documents: [] };
      const changed: Row[] = [];
      for (const d of inputs) {
        const data = {
          propertyId: d.propertyRef ? properties.get(d.propertyRef)! : null,
          kind: d.kind,
          title: d.title,
          body: d.body,
          updatedAt: now,
        };
        const before = existing.get(d.key);
        if (!before) {
          const row = await documents.create(tenant.id, d.key, data, tx);
          changed.push(row);
          result.added++;
          result.documents.push({ id: row.id, key: d.key, outcome: 'added' });
        } else if (
          before.deletedAt === null &&
          before.propertyId === data.propertyId &&
          before.kind === data.kind &&
          before.title === data.title &&
          before.body === data.body
        ) {
          result.unchanged++;
          result.documents.push({ id: before.id, key: d.key, outcome: 'unchanged' });
        } else {
          changed.push(await documents.update(tenant.id, before.id, data, tx));
          result.updated++;
          result.documents.push({ id: before.id, key: d.key, outcome: 'updated' });
        }
      }
      if (changed.length)
        await recordEvents(tx, tenant.id, [knowledgeChangedEvent(slug, changed, now)], clock);
      return result;
    });
  }

  async function current(tenantId: number, ref: DocumentRef, tx: Tx | Db) {
    const row =
      'id' in ref
        ? await documents.findById(tenantId, ref.id, tx)
        : await documents.findByKey(tenantId, ref.key, tx);
    if (!row || row.deletedAt) {
      throw new NotFound('knowledge-document-not-found', `The tenant has no document with ${refWords(ref)}.`);
    }
    return row;
  }

  return {
    /** A new document; its key must not name one that exists (a removed one's key may be used again). */
    add: (slug: string, input: KnowledgeInput) => upsert(slug, [input], { refuseExisting: true }),

    /** Adds or updates documents by key in one transaction (the import). */
    upsert,

    /** Changes the fields given of an existing document. */
    async edit(
      slug: string,
      ref: DocumentRef,
      patch: Partial<Omit<KnowledgeInput, 'key'>>,
    ): Promise<KnowledgeWriteResult> {
      const tenant = await tenantBySlug(slug);
      const row = await current(tenant.id, ref, db);
      const property = row.propertyId
        ? await db.property.findFirst({
            where: { tenantId: tenant.id, id: row.propertyId },
            select: { ref: true },
          })
        : null;
      return upsert(slug, [
        {
          key: row.key,
          propertyRef: patch.propertyRef !== undefined ? patch.propertyRef : (property?.ref ?? null),
          kind: patch.kind ?? row.kind,
          title: patch.title ?? row.title,
          body: patch.body ?? row.body,
        },
      ]);
    },

    /** Removes a document, leaving a tombstone for the copies to apply. */
    async remove(slug: string, ref: DocumentRef) {
      return db.$transaction(async (tx) => {
        const tenant = await tenantBySlug(slug, tx);
        const row = await current(tenant.id, ref, tx);
        const now = clock.now();
        await documents.markDeleted(tenant.id, row.id, now, tx);
        await recordEvents(tx, tenant.id, [knowledgeChangedEvent(slug, [row], now)], clock);
        return { id: row.id, key: row.key, title: row.title, deleted_at: now.toISOString() };
      });
    },

    async list(slug: string, o: { includeDeleted?: boolean } = {}): Promise<KnowledgeListing[]> {
      const tenant = await tenantBySlug(slug);
      const rows = await documents.list(tenant.id, { includeDeleted: o.includeDeleted ?? false });
      return rows.map((r) => ({
        id: r.id,
        key: r.key,
        property_ref: r.property?.ref ?? null,
        kind: r.kind,
        title: r.title,
        body_chars: r.body.length,
        updated_at: r.updatedAt.toISOString(),
        deleted_at: r.deletedAt?.toISOString() ?? null,
      }));
    },
  };
}
export type KnowledgeAdminService = ReturnType<typeof createKnowledgeAdminService>;
