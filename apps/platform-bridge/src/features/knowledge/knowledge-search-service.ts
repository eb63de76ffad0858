import type { KnowledgeKind, KnowledgeSearchResponse } from '@pa/contracts';
import type { KnowledgeSearchRepository } from './knowledge-search-repository.ts';

export function createKnowledgeSearchService(deps: { search: KnowledgeSearchRepository }) {
  return {
    /** GET /knowledge/search: the tenant's live documents matching `q`, best first. */
    async search(
      tenantId: number,
      query: { q: string; property?: number | undefined; limit: number },
    ): Promise<KnowledgeSearchResponse> {
      const rows = await deps.search.search(tenantId, query.q, query.property ?? null, query.limit);
      return {
        results: rows.map((r) => ({
          id: r.id,
          property_id: r.property_id,
          property_ref: r.property_ref,
          // only the contract's kinds are written (knowledge-admin-service.ts)
          kind: r.kind as KnowledgeKind,
          title: r.title,
          snippet: r.snippet.replace(/\s+/g, ' ').trim(),
          updated_at: r.updated_at.toISOString(),
          rank: Number(r.rank),
        })),
      };
    },
  };
}
export type KnowledgeSearchService = ReturnType<typeof createKnowledgeSearchService>;
