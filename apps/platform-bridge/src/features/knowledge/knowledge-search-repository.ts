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
 * How many matches each stage ranks at most: a tenant's corpus (tens to a few thousand documents) is ranked whole
 * for any real question; a bound on the work when a common word matches thousands.
 */
const CANDIDATES = 200;

// The document's vector, written exactly as the migration's GIN index writes it so that the planner uses the index
// (the bridge stores no vector: each candidate's is computed again, which is why the stages are bounded).
const VECTOR = `(setweight(to_tsvector('english'::regconfig, d.title), 'A') || setweight(to_tsvector('english'::regconfig, d.body), 'B'))`;

// The question as websearch_to_tsquery reads it (every word), and the same words OR-ed, since a question asked in
// words rarely has all of them in the one document that answers it (a query with a -word keeps its AND: OR-ing would
// invert the exclusion). The CTE q holds both for the rank, the headline and the every-word test; the index
// conditions write them out instead: a raw query is planned with its parameters' values, so the planner then sees
// the words themselves and weighs the GIN index against the tenant's btree with the index's own statistics (a
// value read from q is unknown at planning, and a guess that picks the tenant's btree parses every document of the
// tenant in the every-word stage).
const ALL_Q = `websearch_to_tsquery('english'::regconfig, $2)`;
const ANY_Q = `(CASE WHEN strpos(${ALL_Q}::text, '!') > 0 THEN ${ALL_Q}
              ELSE replace(${ALL_Q}::text, ' & ', ' | ')::tsquery END)`;

/** Which documents a search reads: every one, or a property's then the agency-wide ones. */
type SearchScope = 'all' | 'property';

// One stage: its first CANDIDATES matches (as the index gives them) among the tenant's live documents in `scope`,
// ranked over any of the words; $1 is the tenant, $2 the question, $3 the limit, $4 the property. Every stage filters
// on the tenant and on deleted_at (the index is partial on it) itself. The some-words stage matches any of the words
// and then leaves out the documents with every word (the previous stage's): its OFFSET 0 keeps the vector computed
// once per row, for that test and the rank, where the planner would otherwise write the expression out again and
// parse the body again for each use; the index condition stays inside. It reads no row when the words are ANDed
// anyway (a single word, a -word): any_q is then all_q.
function stage(n: number, scope: string, someWords: boolean): string {
  const matches = (tsq: string) => `SELECT d.id, d.property_id, d.updated_at, ${VECTOR} AS search
              FROM q CROSS JOIN knowledge_documents d
             WHERE d.tenant_id = $1 AND d.deleted_at IS NULL AND ${VECTOR} @@ ${tsq}${scope}`;
  const candidates = someWords
    ? `SELECT m.* FROM (${matches(ANY_Q)} AND q.any_q <> q.all_q OFFSET 0) AS m CROSS JOIN q
             WHERE NOT m.search @@ q.all_q`
    : matches(ALL_Q);
  return `(
    SELECT c.id, c.property_id, c.updated_at, ${n} AS stage, ts_rank_cd(c.search, q.any_q)::float8 AS rank
      FROM (${candidates} LIMIT ${CANDIDATES}) AS c
      CROSS JOIN q
     ORDER BY rank DESC, c.updated_at DESC, c.id
     LIMIT $3)`;
}

// One statement per scope. The stages, in the order their hits come: with a property, its own documents before the
// agency-wide ones (no property: every document in one scope); within each, documents with every word before those
// with only some. Each stage ranks at most CANDIDATES of its own matches, so the document with every word, or the
// property's own, is never crowded out by a common word's hundreds of partial matches (one bound over all of them
// left it out). A later stage runs only while the earlier ones found fewer than the limit: the outer LIMIT stops
// pulling rows from the UNION ALL, which yields its branches in order (each reads the CTE q, so no parallel append
// can mix them). As the gateway's copy does (agent-gateway knowledge-repository.ts). The headline re-parses the
// body: it is made for the returned rows only.
function searchSql(scope: SearchScope): string {
  const scopes = scope === 'all' ? [''] : [' AND d.property_id = $4::int', ' AND d.property_id IS NULL'];
  const stages = scopes.flatMap((where, i) => [stage(2 * i, where, false), stage(2 * i + 1, where, true)]);
  return `
WITH q AS (
  SELECT ${ALL_Q} AS all_q, ${ANY_Q} AS any_q
), hits AS (
  SELECT * FROM (${stages.join(' UNION ALL ')}) AS staged LIMIT $3
)
SELECT h.id, h.property_id, p.ref AS property_ref, d.kind, d.title, h.updated_at, h.rank,
       ts_headline('english'::regconfig, d.body, q.any_q, '${HEADLINE_OPTIONS}') AS snippet
  FROM hits h
 CROSS JOIN q
  JOIN knowledge_documents d ON d.tenant_id = $1 AND d.id = h.id
  LEFT JOIN properties p ON p.tenant_id = $1 AND p.id = h.property_id
 ORDER BY h.stage, h.rank DESC, h.updated_at DESC, h.id`;
}

const SEARCH_SQL: Record<SearchScope, string> = { all: searchSql('all'), property: searchSql('property') };

// The tenant's knowledge corpus as a question reads it; the tenant id comes first and is in every stage's `where`.
export function createKnowledgeSearchRepository(db: Db) {
  return {
    /**
     * Up to `limit` live documents of the tenant matching `question`, best first. `propertyId`: that property's
     * documents first, then the agency-wide ones; null: every document.
     */
    search: (tenantId: number, question: string, propertyId: number | null, limit: number) =>
      propertyId === null
        ? db.$queryRawUnsafe<KnowledgeHitRow[]>(SEARCH_SQL.all, tenantId, question, limit)
        : db.$queryRawUnsafe<KnowledgeHitRow[]>(SEARCH_SQL.property, tenantId, question, limit, propertyId),
  };
}
export type KnowledgeSearchRepository = ReturnType<typeof createKnowledgeSearchRepository>;
