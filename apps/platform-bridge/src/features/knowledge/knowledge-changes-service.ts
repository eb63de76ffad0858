import type { KnowledgeChange, KnowledgeChangesResponse, KnowledgeKind } from '@pa/contracts';
import type { Clock } from '../../lib/clock.ts';
import type { KnowledgeChangeRow, KnowledgeChangesRepository } from './knowledge-changes-repository.ts';
import { decodeKnowledgeCursor, encodeKnowledgeCursor } from './knowledge-cursor.ts';

function toChange(row: KnowledgeChangeRow): KnowledgeChange {
  if (row.deleted_at) return { id: row.id, deleted: true, updated_at: row.deleted_at.toISOString() };
  return {
    id: row.id,
    property_id: row.property_id,
    property_ref: row.property_ref,
    // only the contract's kinds are written (knowledge-admin-service.ts)
    kind: row.kind as KnowledgeKind,
    title: row.title,
    body: row.body,
    updated_at: row.updated_at.toISOString(),
    deleted: false,
  };
}

export function createKnowledgeChangesService(deps: { changes: KnowledgeChangesRepository; clock: Clock }) {
  return {
    async listChanges(
      tenantId: number,
      query: { limit: number; cursor?: string | undefined },
    ): Promise<KnowledgeChangesResponse> {
      const after = decodeKnowledgeCursor(query.cursor);
      const asOf = deps.clock.now();
      const rows = await deps.changes.changesAfter(tenantId, after, query.limit + 1);
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return {
        as_of: asOf.toISOString(),
        changes: page.map(toChange),
        // always a cursor: with no changes, the one given (or the start), so the caller keeps its place
        next_cursor: encodeKnowledgeCursor(last ? { seq: last.change_seq, id: last.id } : after),
        has_more: rows.length > query.limit,
      };
    },
  };
}
export type KnowledgeChangesService = ReturnType<typeof createKnowledgeChangesService>;
