import { z } from 'zod';
import { text } from './text.ts';

// What a worker's copy of its tenant's knowledge corpus holds and how its sync went, for the Settings line
// ("42 documents synced, last at 14:05"). camelCase like every gateway payload.

export const KnowledgeStatusResponse = z.strictObject({
  workerId: z.uuid(),
  documents: z.number().int().min(0).describe('documents in the worker’s synced copy'),
  lastSyncedAt: z.iso.datetime().nullable().describe('when a sync last completed; null before the first one'),
  lastError: text()
    .nullable()
    .describe('why the last sync failed, in words; null when it succeeded (never holds the key)'),
});
export type KnowledgeStatusResponse = z.infer<typeof KnowledgeStatusResponse>;
