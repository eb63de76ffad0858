import type { Db } from '../../lib/db.ts';

export interface KnowledgeHitRow {
  id: number;
  property_id: number | null;
  property_ref: string | null;
  kind: string;
  title: string;
  updated_at: Date;
  snippet: string;
  rank: number;
}

// ts_headline's options: a few short fragments of the body around the matches, marked «…» (plain text, which every
// client shows as it is); a body without a match gives its opening words, unmarked. As the gateway's copy does.
const HEADLINE_OPTIONS =
  'StartSel=«, StopSel=», MaxWords=30, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "';
/**
 * How many matches are ranked at most: a tenant's corpus (tens to a few thousand documents) is ranked whole for any
 * real question; a bound on the work when a common word matches thousands.
 */
const CANDIDATES = 200;

// The document's vector, written exactly as the migration's GIN index writes it so that the planner uses the index.
const VECTOR = `(setweight(to_tsvector('english'::regconfig, d.title), 'A') || setweight(to_tsvector('english'::regconfig, d.body), 'B'))`;

// One statement. `all_q` is the question as websearch_to_tsquery reads it (every word); `any_q` the same words OR-ed,
// since a question asked in words rarely has all of them in the one document that answers it (a query with a -word
// keeps its AND: OR-ing would invert the exclusion). Candidates match any word, among the tenant's live documents
// (and, with a property, that property's and the agency-wide ones); they are ordered by scope (the property's own
// first), then documents with every word, then rank. The headline re-parses the body: made for the returned rows only.
const SEARCH_SQL = `
WITH q AS (
  SELECT tsq AS all_q,
         CASE WHEN strpos(tsq::text, '!') > 0 THEN tsq
              ELSE replace(tsq::text, ' & ', ' | ')::tsquery END AS any_q
    FROM websearch_to_tsquery('english'::regconfig, $2) AS tsq
), candidates AS (
  SELECT d.id, d.property_id, d.kind, d.title, d.body, d.updated_at, ${VECTOR} AS search
    FROM knowledge_documents d, q
   WHERE d.tenant_id = $1
     AND d.deleted_at IS NULL
     AND ${VECTOR} @@ q.any_q
     AND ($3::int IS NULL OR d.property_id = $3::int OR d.property_id IS NULL)
   LIMIT ${CANDIDATES}
), ranked AS (
  SELECT c.*, (c.property_id IS NULL) AS agency_wide, (c.search @@ q.all_q) AS every_word,
         ts_rank_cd(c.search, q.any_q)::float8 AS rank
    FROM candidates c, q
   ORDER BY ($3::int IS NOT NULL AND c.property_id IS NULL), every_word DESC, rank DESC, c.updated_at DESC, c.id
   LIMIT $4
)
SELECT r.id, r.property_id, p.ref AS property_ref, r.kind, r.title, r.updated_at, r.rank,
       ts_headline('english'::regconfig, r.body, q.any_q, '${HEADLINE_OPTIONS}') AS snippet
  FROM ranked r
 CROSS JOIN q
  LEFT JOIN properties p ON p.tenant_id = $1 AND p.id = r.property_id
 ORDER BY ($3::int IS NOT NULL AND r.property_id IS NULL), r.every_word DESC, r.rank DESC, r.updated_at DESC, r.id`;

// The tenant's knowledge corpus as a question reads it; the tenant id comes first and is in the `where`.
export function createKnowledgeSearchRepository(db: Db) {
  return {
    /** Up to `limit` live documents of the tenant matching `question`, best first. */
    search: (tenantId: number, question: string, propertyId: number | null, limit: number) =>
      db.$queryRawUnsafe<KnowledgeHitRow[]>(SEARCH_SQL, tenantId, question, propertyId, limit),
  };
}
export type KnowledgeSearchRepository = ReturnType<typeof createKnowledgeSearchRepository>;
