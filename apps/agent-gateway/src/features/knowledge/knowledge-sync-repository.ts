import type { KnowledgeChange, KnowledgeDocument } from '@pa/contracts';
import type { Db } from '../../lib/db.ts';

/** A binding's sync as a sync takes it under its lock: whose corpus, and where the last sync stopped. */
export interface LeasedSync {
  workerId: string;
  tenantSlug: string;
  cursor: string | null;
  token: string;
  failures: number;
}

/** The sync no longer holds its lock (it ran out and another took it, or the binding was removed or moved). */
export class KnowledgeLeaseLost extends Error {
  constructor(workerId: string) {
    super(`The knowledge sync of worker ${workerId} lost its lock; nothing of its page was kept.`);
    this.name = 'KnowledgeLeaseLost';
  }
}

// The knowledge sync's reads and writes, across workers (the syncer addresses each binding by its worker id). Every
// write of a sync names its lock token and the tenant it read for: once the lock is lost, or the binding is gone or
// moved, the write changes nothing, so a sync that overran its lock, or read the old tenant's corpus, cannot put
// rows into a copy that is no longer its own.
export function createKnowledgeSyncRepository(db: Db) {
  return {
    /**
     * Every binding gets its sync row (a new one syncs in full at the next pass), and a row left for another tenant
     * than the binding's now (a rebind the binding service did not see) is dropped with its copy.
     */
    async reconcile(): Promise<void> {
      await db.$executeRaw`
        DELETE FROM knowledge_sync_states s USING platform_bindings b
         WHERE b.worker_id = s.worker_id AND b.tenant_slug <> s.tenant_slug`;
      await db.$executeRaw`
        INSERT INTO knowledge_sync_states (worker_id, tenant_slug)
        SELECT worker_id, tenant_slug FROM platform_bindings ON CONFLICT (worker_id) DO NOTHING`;
    },

    /**
     * The bindings whose sync is due: asked for (an event), never finished, or last finished `everyMs` ago; none
     * locked, none waiting out a failure's backoff. Asked-for and longest-unsynced first.
     */
    due: async (everyMs: number): Promise<string[]> =>
      (
        await db.$queryRaw<{ worker_id: string }[]>`
          SELECT worker_id::text FROM knowledge_sync_states
           WHERE (locked_until IS NULL OR locked_until < now())
             AND (next_sync_at IS NULL OR next_sync_at <= now() OR requested_at IS NOT NULL)
             AND (requested_at IS NOT NULL OR last_synced_at IS NULL
                  OR last_synced_at < now() - make_interval(secs => ${everyMs / 1000}))
           ORDER BY requested_at NULLS LAST, last_synced_at NULLS FIRST`
      ).map((r) => r.worker_id),

    /**
     * Asks for a sync of these workers' copies now (a `knowledge.changed` event). A sync running meanwhile leaves the
     * request standing, so the change it may have missed is read by one more pass.
     */
    async request(workerIds: readonly string[]): Promise<void> {
      if (workerIds.length === 0) return;
      await db.$executeRaw`
        INSERT INTO knowledge_sync_states (worker_id, tenant_slug, requested_at)
        SELECT worker_id, tenant_slug, now() FROM platform_bindings WHERE worker_id = ANY(${[...workerIds]}::uuid[])
        ON CONFLICT (worker_id) DO UPDATE SET requested_at = now()`;
    },

    /**
     * The binding's sync under a lock of `leaseMs` (its request, if any, now being served), or undefined while
     * another sync holds it or the worker is not bound.
     */
    lease: async (workerId: string, leaseMs: number): Promise<LeasedSync | undefined> => {
      await db.$executeRaw`
        INSERT INTO knowledge_sync_states (worker_id, tenant_slug)
        SELECT worker_id, tenant_slug FROM platform_bindings WHERE worker_id = ${workerId}::uuid
        ON CONFLICT (worker_id) DO NOTHING`;
      const rows = await db.$queryRaw<
        { tenant_slug: string; cursor: string | null; token: string; failures: number }[]
      >`
        UPDATE knowledge_sync_states
           SET locked_until = now() + make_interval(secs => ${leaseMs / 1000}),
               lock_token = gen_random_uuid(), requested_at = NULL
         WHERE worker_id = ${workerId}::uuid AND (locked_until IS NULL OR locked_until < now())
        RETURNING tenant_slug, cursor, lock_token::text AS token, failures`;
      const row = rows[0];
      return (
        row && {
          workerId,
          tenantSlug: row.tenant_slug,
          cursor: row.cursor,
          token: row.token,
          failures: row.failures,
        }
      );
    },

    /**
     * One page of changes and the cursor after it, in one transaction (a crash keeps both or neither, so the next
     * sync reads on from the last page kept); the lock is renewed for `leaseMs`. `done`: the last page of this sync,
     * which also records it as finished. Throws KnowledgeLeaseLost, keeping nothing, once the lock is not this sync's.
     */
    applyPage: async (
      lease: LeasedSync,
      changes: readonly KnowledgeChange[],
      nextCursor: string,
      opts: { done: boolean; leaseMs: number },
    ): Promise<void> => {
      await db.$transaction(async (tx) => {
        // first, so that the row stays locked (a drop waits) until the page is in
        const kept = await tx.$executeRaw`
          UPDATE knowledge_sync_states
             SET cursor = ${nextCursor},
                 locked_until = now() + make_interval(secs => ${opts.leaseMs / 1000})
           WHERE worker_id = ${lease.workerId}::uuid AND lock_token = ${lease.token}::uuid
             AND tenant_slug = ${lease.tenantSlug}`;
        if (kept === 0) throw new KnowledgeLeaseLost(lease.workerId);
        const gone = changes.filter((c) => c.deleted).map((c) => c.id);
        const docs = changes.filter((c): c is KnowledgeDocument => !c.deleted);
        if (gone.length > 0) {
          await tx.$executeRaw`
            DELETE FROM knowledge_documents
             WHERE worker_id = ${lease.workerId}::uuid AND document_id = ANY(${gone}::int[])`;
        }
        if (docs.length > 0) {
          const json = JSON.stringify(
            docs.map((d) => ({
              id: d.id,
              property_id: d.property_id,
              property_ref: d.property_ref,
              kind: d.kind,
              title: d.title,
              body: d.body,
              updated_at: d.updated_at,
            })),
          );
          await tx.$executeRaw`
            INSERT INTO knowledge_documents
              (worker_id, document_id, property_id, property_ref, kind, title, body, updated_at, search)
            SELECT ${lease.workerId}::uuid, r.id, r.property_id, r.property_ref, r.kind, r.title, r.body, r.updated_at,
                   setweight(to_tsvector('english', r.title), 'A') || setweight(to_tsvector('english', r.body), 'B')
              FROM jsonb_to_recordset(${json}::jsonb) AS r(id int, property_id int, property_ref text, kind text,
                                                          title text, body text, updated_at timestamptz)
            ON CONFLICT (worker_id, document_id) DO UPDATE
               SET property_id = excluded.property_id, property_ref = excluded.property_ref,
                   kind = excluded.kind, title = excluded.title, body = excluded.body,
                   updated_at = excluded.updated_at, search = excluded.search`;
        }
        if (opts.done) {
          await tx.$executeRaw`
            UPDATE knowledge_sync_states
               SET last_synced_at = now(), last_error = NULL, failures = 0, next_sync_at = NULL
             WHERE worker_id = ${lease.workerId}::uuid`;
        }
      });
      // New rows wait in the GIN index's pending list (up to 4 MB) until a vacuum, and every search reads that list
      // through: at 100,000 documents it made a search three times slower. A finished sync merges it into the index.
      if (opts.done && changes.length > 0) {
        await db.$queryRaw`SELECT gin_clean_pending_list('knowledge_documents_search_idx'::regclass)::int AS merged`;
      }
    },

    /** Lets the lock go; whether a sync was asked for while this one ran (then it is due again at once). */
    release: async (lease: LeasedSync): Promise<boolean> => {
      const rows = await db.$queryRaw<{ again: boolean }[]>`
        UPDATE knowledge_sync_states SET locked_until = NULL, lock_token = NULL
         WHERE worker_id = ${lease.workerId}::uuid AND lock_token = ${lease.token}::uuid
        RETURNING requested_at IS NOT NULL AS again`;
      return rows[0]?.again ?? false;
    },

    /** A failed sync, in words, and when the schedule may try again; lets the lock go. */
    async recordFailure(lease: LeasedSync, error: string, nextSyncAt: Date): Promise<void> {
      await db.$executeRaw`
        UPDATE knowledge_sync_states
           SET last_error = ${error}, failures = failures + 1, next_sync_at = ${nextSyncAt},
               locked_until = NULL, lock_token = NULL
         WHERE worker_id = ${lease.workerId}::uuid AND lock_token = ${lease.token}::uuid`;
    },

    /** Drops the worker's copy and its sync (a binding moved to another tenant); the next pass starts afresh. */
    async drop(workerId: string): Promise<void> {
      await db.$executeRaw`DELETE FROM knowledge_sync_states WHERE worker_id = ${workerId}::uuid`;
    },
  };
}
export type KnowledgeSyncRepository = ReturnType<typeof createKnowledgeSyncRepository>;
