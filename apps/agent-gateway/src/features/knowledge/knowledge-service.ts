import type { KnowledgePassage, KnowledgeStatus } from './knowledge-passage.ts';
import type { KnowledgeRepository, KnowledgeSearch } from './knowledge-repository.ts';
import type { KnowledgeSyncer } from './knowledge-syncer.ts';

export type { KnowledgePassage, KnowledgeSearch, KnowledgeStatus };

// The worker's knowledge as the rest of the gateway uses it (`gateway.knowledge`): the assistant's search, the
// Settings status, and a sync at once for whoever must not wait for the schedule. Callers have admitted the worker
// (its workspace) already; a worker that is not bound has no copy, so it finds nothing.
export function createKnowledgeService(deps: { repository: KnowledgeRepository; syncer: KnowledgeSyncer }) {
  return {
    search: (workerId: string, q: KnowledgeSearch): Promise<KnowledgePassage[]> =>
      deps.repository.search(workerId, q),
    status: (workerId: string): Promise<KnowledgeStatus> => deps.repository.status(workerId),
    syncNow: (workerId: string) => deps.syncer.syncNow(workerId),
  };
}
export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
