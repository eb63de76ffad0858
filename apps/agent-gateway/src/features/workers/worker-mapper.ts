import type { Worker as ApiWorker } from '@pa/contracts';
import type { WorkersRepository } from '../workspace/workers-repository.ts';

type Row = NonNullable<Awaited<ReturnType<WorkersRepository['find']>>>;

/** A stored worker as the API answers it: bound or not, never its binding's key. */
export function toApiWorker(w: Row): ApiWorker {
  return {
    id: w.id,
    workspaceId: w.workspaceId,
    name: w.name,
    template: w.template as ApiWorker['template'],
    skillPacks: w.skillPacks as ApiWorker['skillPacks'],
    bound: w.binding !== null,
    createdAt: w.createdAt.toISOString(),
  };
}
