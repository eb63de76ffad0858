import { z } from 'zod';
import { Cursor } from './bridge.ts';
import { IsoDateTime, PositiveId, PositiveIdValue } from './params.ts';
import { intField, optionalField, queryFields } from './query-fields.ts';
import { text } from './text.ts';

// The tenant's knowledge corpus as the platform publishes it for syncing: what a letting agent knows about a
// property (stopcock, boiler, access, the landlord's limits, licence conditions) and the agency's own
// procedures. The gateway copies it by following `next_cursor`; deletions arrive as tombstones so that a copy
// can drop what the platform no longer holds. snake_case like every platform payload.

export const KNOWLEDGE_KINDS = [
  'property_note',
  'landlord_instruction',
  'procedure',
  'licence_condition',
  'contractor',
  'local_rule',
] as const;
export const KnowledgeKind = z.enum(KNOWLEDGE_KINDS);

/** Characters (UTF-16 code units, as JavaScript counts them). */
export const KNOWLEDGE_TITLE_MAX = 200;
export const KNOWLEDGE_BODY_MAX = 20_000;

export const KnowledgeTitle = text().min(1, 'must not be empty').max(KNOWLEDGE_TITLE_MAX);
export const KnowledgeBody = text()
  .min(1, 'must not be empty')
  .max(KNOWLEDGE_BODY_MAX)
  .describe('plain text or Markdown');

export const KnowledgeDocument = z.strictObject({
  id: PositiveIdValue,
  property_id: PositiveIdValue.nullable().describe('null: the document is about the whole agency'),
  property_ref: text().nullable().describe("the property's reference (e.g. MAN-003); null with property_id"),
  kind: KnowledgeKind,
  title: KnowledgeTitle,
  body: KnowledgeBody,
  updated_at: IsoDateTime,
  deleted: z.literal(false),
});

export const KnowledgeTombstone = z.strictObject({
  id: PositiveIdValue,
  deleted: z.literal(true),
  updated_at: IsoDateTime.describe('when the document was removed'),
});

export const KnowledgeChange = z.discriminatedUnion('deleted', [KnowledgeDocument, KnowledgeTombstone]);

const knowledgeChangesFields = queryFields({
  limit: intField({ min: 1, max: 500, default: 200, description: 'changes per page' }),
  cursor: optionalField(
    Cursor,
    '`next_cursor` from the previous read; omit to read the corpus from the start',
  ),
});
export const KnowledgeChangesQuery = knowledgeChangesFields.query;
/** The changes query as typed arguments (the gateway's client); the bridge's defaults apply. */
export const KnowledgeChangesArgs = knowledgeChangesFields.args;

export const KnowledgeChangesResponse = z.strictObject({
  as_of: IsoDateTime,
  changes: z
    .array(KnowledgeChange)
    .describe(
      'each document at most once, in its latest state, in a stable order (the order of the commits)',
    ),
  next_cursor: text().describe(
    'always returned: pass it back as `cursor` next time, even when `changes` is empty',
  ),
  has_more: z.boolean().describe('true: more changes are ready now, read again at once'),
});

// ---- search ---------------------------------------------------------------------------------------------------

/** a question longer than this is refused: websearch_to_tsquery ANDs every word, so more words only find less */
export const KNOWLEDGE_QUERY_MAX = 500;

const question = text()
  .trim()
  .min(1, 'must not be empty')
  .max(KNOWLEDGE_QUERY_MAX, `must be at most ${KNOWLEDGE_QUERY_MAX} characters`)
  .describe('the question in words; "quoted phrases", `or` and `-word` work as in a web search');
const propertyScope =
  "a property's id: that property's documents first, then the agency-wide ones (other properties' are left out); omit to search every document";

const knowledgeSearchFields = queryFields({
  q: { query: question, arg: question },
  property: {
    query: PositiveId.optional().describe(propertyScope),
    arg: PositiveIdValue.optional().describe(propertyScope),
  },
  limit: intField({ min: 1, max: 50, default: 10, description: 'results' }),
});
export const KnowledgeSearchQuery = knowledgeSearchFields.query;
export const KnowledgeSearchArgs = knowledgeSearchFields.args;

export const KnowledgeSearchHit = z.strictObject({
  id: PositiveIdValue,
  property_id: PositiveIdValue.nullable().describe('null: the document is about the whole agency'),
  property_ref: text().nullable(),
  kind: KnowledgeKind,
  title: text(),
  snippet: text().describe('a few words of the body around the matches, marked «like this»'),
  updated_at: IsoDateTime,
  rank: z.number().min(0).describe('relevance within this answer; only the order means anything'),
});

export const KnowledgeSearchResponse = z.strictObject({
  results: z
    .array(KnowledgeSearchHit)
    .describe(
      "best first: with `property`, that property's documents before the agency-wide ones; within each, documents with every word before those with some",
    ),
});

export type KnowledgeKind = z.infer<typeof KnowledgeKind>;
export type KnowledgeDocument = z.infer<typeof KnowledgeDocument>;
export type KnowledgeTombstone = z.infer<typeof KnowledgeTombstone>;
export type KnowledgeChange = z.infer<typeof KnowledgeChange>;
export type KnowledgeChangesArgs = z.input<typeof KnowledgeChangesArgs>;
export type KnowledgeChangesResponse = z.infer<typeof KnowledgeChangesResponse>;
export type KnowledgeSearchArgs = z.input<typeof KnowledgeSearchArgs>;
export type KnowledgeSearchResponse = z.infer<typeof KnowledgeSearchResponse>;
export type KnowledgeSearchHit = z.infer<typeof KnowledgeSearchHit>;
