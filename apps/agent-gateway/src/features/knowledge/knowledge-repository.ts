import type { KnowledgeKind } from '@pa/contracts';
import { type Db, type NamedStatement, type StatementRunner, statementRunner } from '../../lib/db.ts';
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

// a row as the named statement gives it: updated_at in epoch milliseconds (NamedStatement's rule)
type PassageRow = {
  document_id: number;
  property_id: number | null;
  property_ref: string | null;
  kind: string;
  title: string;
  updated_at: number;
  snippet: string;
  rank: number;
};

/** Which documents a search reads: every one, the agency-wide ones, or a property's then the agency-wide ones. */
type SearchScope = 'all' | 'agency' | 'property';

// One stage: its first CANDIDATES matches (as the index gives them), ranked over any of the words. $2 is the
// worker, $3 the limit, $4 the property.
function stage(n: number, match: string, someWords: boolean): string {
  return `(
    SELECT c.document_id, c.property_id, c.property_ref, c.kind, c.title, c.updated_at, ${n} AS stage,
           ts_rank_cd(c.search, q.any_q)::float8 AS rank
      FROM (SELECT d.document_id, d.property_id, d.property_ref, d.kind, d.title, d.updated_at, d.search
              FROM q CROSS JOIN knowledge_documents d
             WHERE d.worker_id = $2::uuid AND ${match}${someWords ? ' AND q.any_q <> q.all_q' : ''}
             LIMIT ${CANDIDATES}) AS c
      CROSS JOIN q
     ORDER BY rank DESC, c.updated_at DESC, c.document_id
     LIMIT $3)`;
}

// The stages, in the order their passages come: a named property's own documents before the agency-wide ones, and
// within each, documents with every word before those with only some. A question asked in words rarely has all of
// its words in the one document that answers it, hence the second; a query with a -word keeps its AND (OR-ing would
// invert the exclusion).
//
// A later stage runs only while the earlier ones found fewer than the limit (the outer LIMIT stops pulling rows from
// the UNION ALL, which yields its branches in order: each reads the CTE q, so no parallel append can mix them, and
// PostgreSQL never starts the rest), and each ranks at most CANDIDATES matches: ranking reads every candidate's
// vector and costs about 10 µs a document, so a common word in 100,000 documents would cost tens of milliseconds.
// The headline re-parses the body: it is made for the returned rows only.
function searchStatement(scope: SearchScope): NamedStatement {
  const scopes =
    scope === 'all'
      ? ['']
      : scope === 'agency'
        ? [' AND d.property_id IS NULL']
        : [' AND d.property_id = $4::int', ' AND d.property_id IS NULL'];
  const stages = scopes.flatMap((where, i) => [
    stage(2 * i, `d.search @@ q.all_q${where}`, false),
    stage(2 * i + 1, `d.search @@ q.any_q AND NOT d.search @@ q.all_q${where}`, true),
  ]);
  return {
    name: `knowledge-search-${scope}`,
    text: `
      WITH q AS (
        SELECT tsq AS all_q,
               CASE WHEN strpos(tsq::text, '!') > 0 THEN tsq
                    ELSE replace(tsq::text, ' & ', ' | ')::tsquery END AS any_q
          FROM websearch_to_tsquery('english', $1::text) AS tsq
         WHERE EXISTS (
                 SELECT 1 FROM knowledge_sync_states s
                   JOIN platform_bindings b ON b.worker_id = s.worker_id AND b.tenant_slug = s.tenant_slug
                  WHERE s.worker_id = $2::uuid)),
      hits AS (
        SELECT * FROM (${stages.join(' UNION ALL ')}) AS staged LIMIT $3)
      SELECT h.document_id, h.property_id, h.property_ref, h.kind, h.title,
             (extract(epoch FROM h.updated_at) * 1000)::float8 AS updated_at, h.rank,
             ts_headline('english', d.body, q.any_q, '${HEADLINE_OPTIONS}') AS snippet
        FROM hits h
        CROSS JOIN q
        JOIN knowledge_documents d ON d.worker_id = $2::uuid AND d.document_id = h.document_id
       ORDER BY h.stage, h.rank DESC, h.updated_at DESC, h.document_id`,
  };
}

// built once: on PostgreSQL each is parsed and planned once per connection
const SEARCH_STATEMENTS: Record<SearchScope, NamedStatement> = {
  all: searchStatement('all'),
  agency: searchStatement('agency'),
  property: searchStatement('property'),
};

// The worker's copy of its tenant's knowledge corpus, as the assistant reads it: ranked full-text search
// (PostgreSQL's English stemming, title weighted above body, GIN-indexed) and how the copy stands. Reads only the
// copy of the tenant the worker is bound to now: a row the sync has not yet dropped after a rebind is never
// returned. The seam for an embedding model is here: another ranking over the same rows, merged with this one.
// The search is a named statement (statements: statementRunner(db, pool)): a search is the assistant's most
// frequent read, and Prisma's raw query costs more CPU than the statement itself saves in planning.
export function createKnowledgeRepository(db: Db, statements: StatementRunner = statementRunner(db)) {
  return {
    async search(workerId: string, q: KnowledgeSearch): Promise<KnowledgePassage[]> {
      const text = q.query.trim().slice(0, QUERY_MAX_CHARS);
      if (!text) return [];
      const limit = Math.min(Math.max(Math.trunc(q.limit ?? SEARCH_LIMIT_DEFAULT), 1), SEARCH_LIMIT_MAX);
      const rows =
        q.propertyId === undefined
          ? await statements<PassageRow>(SEARCH_STATEMENTS.all, [text, workerId, limit])
          : q.propertyId === null
            ? await statements<PassageRow>(SEARCH_STATEMENTS.agency, [text, workerId, limit])
            : await statements<PassageRow>(SEARCH_STATEMENTS.property, [text, workerId, limit, q.propertyId]);
      return rows.map((r) => ({
        documentId: r.document_id,
        propertyId: r.property_id,
        propertyRef: r.property_ref,
        kind: r.kind as KnowledgeKind,
        title: r.title,
        updatedAt: new Date(r.updated_at).toISOString(),
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
