import type { Db } from '../../lib/db.ts';
import type { KnowledgePosition } from './knowledge-cursor.ts';

export interface KnowledgeChangeRow {
  id: number;
  property_id: number | null;
  property_ref: string | null;
  kind: string;
  title: string;
  body: string;
  updated_at: Date;
  deleted_at: Date | null;
  change_seq: string;
}

// Why a plain `change_seq > cursor` is enough: numbers are drawn in transactions that commit in any order, so a
// reader could otherwise pass 11 (committed) while 10 is still in flight and never see 10. The migration's trigger
// takes a per-tenant transaction lock before drawing a number, so a tenant's writers commit in the order of their
// numbers: any snapshot that sees a number sees every smaller one of the tenant. A row written again moves to its
// new number, so a document appears once, in its latest state.
const CHANGES_SQL = `
SELECT d.id, d.property_id, p.ref AS property_ref, d.kind, d.title, d.body, d.updated_at, d.deleted_at,
       d.change_seq::text AS change_seq
FROM knowledge_documents d
LEFT JOIN properties p ON p.tenant_id = d.tenant_id AND p.id = d.property_id
WHERE d.tenant_id = $1
  AND (d.change_seq, d.id) > ($2::bigint, $3::int)
ORDER BY d.change_seq, d.id
LIMIT $4`;

// The changes of one tenant's corpus: the tenant id comes first and is in the `where`.
export function createKnowledgeChangesRepository(db: Db) {
  return {
    /** Up to `take` changes after `after`, in commit-safe order. */
    changesAfter: (tenantId: number, after: KnowledgePosition, take: number) =>
      db.$queryRawUnsafe<KnowledgeChangeRow[]>(CHANGES_SQL, tenantId, after.seq, after.id, take),
  };
}
export type KnowledgeChangesRepository = ReturnType<typeof createKnowledgeChangesRepository>;
