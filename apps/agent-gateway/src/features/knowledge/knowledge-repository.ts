import type { KnowledgeKind } from '@pa/contracts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../lib/db.ts';
import type { KnowledgePassage, KnowledgeStatus } from './knowledge-passage.ts';

export const SEARCH_LIMIT_DEFAULT = 5;
export const SEARCH_LIMIT_MAX = 20;
/** a question longer than this is cut: websearch_to_tsquery ANDs every word, so more words only find less */
const QUERY_MAX_CHARS = 500;
/**
 * How many matches each stage ranks at most: enough that a tenant's corpus (tens to a few thousand documents) is
 * ranked whole for any real question; a bound on the work when a common word matches thousands.
 */
const CANDIDATES = 100;

// ts_headline's options: a few short fragments of the body around the matches, marked «…» (plain text, which every
// channel shows as it is); a body without a match gives its opening words, unmarked.
const HEADLINE_OPTIONS =
  'StartSel=«, StopSel=», MaxWords=30, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "';

export interface KnowledgeSearch {
  /** the question as a person typed it (websearch syntax: "quoted phrases", or, -not) */
  query: string;
  /**
   * A property's id: that property's documents first, then the agency-wide ones (a council's scheme, a procedure);
   * null: the agency-wide documents only; left out: every document.
   */
  propertyId?: number | null;
  /** 1–20, default 5 */
  limit?: number;
}

type PassageRow = {
  document_id: number;
  property_id: number | null;
  property_ref: string | null;
  kind: string;
  title: string;
  updated_at: Date;
  snippet: string;
  rank: number;
};

// The worker's copy of its tenant's knowledge corpus, as the assistant reads it: ranked full-text search
// (PostgreSQL's English stemming, title weighted above body, GIN-indexed) and how the copy stands. Reads only the
// copy of the tenant the worker is bound to now: a row the sync has not yet dropped after a rebind is never
// returned. The seam for an embedding model is here: another ranking over the same rows, merged with this one.
export function createKnowledgeRepository(db: Db) {
  return {
    async search(workerId: string, q: KnowledgeSearch): Promise<KnowledgePassage[]> {
      const text = q.query.trim().slice(0, QUERY_MAX_CHARS);
      if (!text) return [];
      const limit = Math.min(Math.max(Math.trunc(q.limit ?? SEARCH_LIMIT_DEFAULT), 1), SEARCH_LIMIT_MAX);
      // The stages, in the order their passages come: a named property's own documents before the agency-wide ones
      // (null: the agency-wide ones only; left out: every document), and within each, documents with every word
      // before those with only some. A question asked in words rarely has all of its words in the one document that
      // answers it, hence the second; a query with a -word keeps its AND (OR-ing would invert the exclusion).
      const scopes =
        q.propertyId === undefined
          ? [Prisma.empty]
          : q.propertyId === null
            ? [Prisma.sql`AND d.property_id IS NULL`]
            : [Prisma.sql`AND d.property_id = ${q.propertyId}`, Prisma.sql`AND d.property_id IS NULL`];
      const stages = scopes.flatMap((scope, i) => [
        stage(2 * i, Prisma.sql`d.search @@ q.all_q ${scope}`),
        stage(2 * i + 1, Prisma.sql`d.search @@ q.any_q AND NOT d.search @@ q.all_q ${scope}`, true),
      ]);
      // A later stage runs only while the earlier ones found fewer than `limit` (the outer LIMIT stops pulling rows
      // from the UNION ALL, which yields its branches in order: each reads the CTE q, so no parallel append can mix
      // them, and PostgreSQL never starts the rest), and each ranks at most CANDIDATES matches: ranking
      // reads every candidate's vector and costs about 10 µs a document, so a common word in 100,000 documents would
      // cost tens of milliseconds. The headline re-parses the body: it is made for the returned rows only.
      const rows = await db.$queryRaw<PassageRow[]>`
        WITH q AS (
          SELECT tsq AS all_q,
                 CASE WHEN strpos(tsq::text, '!') > 0 THEN tsq
                      ELSE replace(tsq::text, ' & ', ' | ')::tsquery END AS any_q
            FROM websearch_to_tsquery('english', ${text}) AS tsq
           WHERE EXISTS (
                   SELECT 1 FROM knowledge_sync_states s
                     JOIN platform_bindings b ON b.worker_id = s.worker_id AND b.tenant_slug = s.tenant_slug
                    WHERE s.worker_id = ${workerId}::uuid)),
        hits AS (
          SELECT * FROM (${Prisma.join(stages, ' UNION ALL ')}) AS staged LIMIT ${limit})
        SELECT h.document_id, h.property_id, h.property_ref, h.kind, h.title, h.updated_at, h.rank,
               ts_headline('english', d.body, q.any_q, ${HEADLINE_OPTIONS}) AS snippet
          FROM hits h
          CROSS JOIN q
          JOIN knowledge_documents d ON d.worker_id = ${workerId}::uuid AND d.document_id = h.document_id
         ORDER BY h.stage, h.rank DESC, h.updated_at DESC, h.document_id`;

      // One stage: its first CANDIDATES matches (as the index gives them), ranked over any of the words.
      function stage(n: number, match: Prisma.Sql, someWords = false): Prisma.Sql {
        return Prisma.sql`(
          SELECT c.document_id, c.property_id, c.property_ref, c.kind, c.title, c.updated_at, ${n}::int AS stage,
                 ts_rank_cd(c.search, q.any_q)::float8 AS rank
            FROM (SELECT d.document_id, d.property_id, d.property_ref, d.kind, d.title, d.updated_at, d.search
                    FROM q CROSS JOIN knowledge_documents d
                   WHERE d.worker_id = ${workerId}::uuid AND ${match}
                         ${someWords ? Prisma.sql`AND q.any_q <> q.all_q` : Prisma.empty}
                   LIMIT ${CANDIDATES}) AS c
            CROSS JOIN q
           ORDER BY rank DESC, c.updated_at DESC, c.document_id
           LIMIT ${limit})`;
      }
      return rows.map((r) => ({
        documentId: r.document_id,
        propertyId: r.property_id,
        propertyRef: r.property_ref,
        kind: r.kind as KnowledgeKind,
        title: r.title,
        updatedAt: r.updated_at.toISOString(),
        snippet: r.snippet.replace(/\s+/g, ' ').trim(),
        rank: Number(r.rank),
      }));
    },

    /** How many documents the worker's copy holds, when its sync last finished and why it last failed. */
    async status(workerId: string): Promise<KnowledgeStatus> {
      const state = await db.knowledgeSyncState.findUnique({
        where: { workerId },
        select: {
          lastSyncedAt: true,
          lastError: true,
          tenantSlug: true,
          binding: { select: { tenantSlug: true } },
        },
      });
      if (!state || state.binding.tenantSlug !== state.tenantSlug) {
        return { documents: 0, lastSyncedAt: null, lastError: null };
      }
      const documents = await db.knowledgeDocument.count({ where: { workerId } });
      return { documents, lastSyncedAt: state.lastSyncedAt, lastError: state.lastError };
    },
  };
}
export type KnowledgeRepository = ReturnType<typeof createKnowledgeRepository>;
