import type { KnowledgeKind } from '@pa/contracts';

/**
 * One search hit from a worker's copy of its tenant's knowledge corpus: the document it comes from (id, property,
 * kind, title, when the platform last changed it) and a snippet of its body around the matched words, plain text
 * with the matches marked «…» (none when the match is in the title only). `rank` is ts_rank_cd: higher is better,
 * comparable only within one search.
 */
export interface KnowledgePassage {
  documentId: number;
  propertyId: number | null;
  propertyRef: string | null;
  kind: KnowledgeKind;
  title: string;
  /** ISO 8601 */
  updatedAt: string;
  snippet: string;
  rank: number;
}

/** What a worker's copy holds and how its sync is going (the Settings line). */
export interface KnowledgeStatus {
  documents: number;
  lastSyncedAt: Date | null;
  lastError: string | null;
}
