import type { SummaryScheduling } from '../daily-summary/summary-scheduling.ts';
import { workerNotFound, type WorkersRepository } from '../workspace/workers-repository.ts';
import { toApiWorker } from './worker-mapper.ts';

export const TEMPLATE_PACKS: Record<string, string[]> = { 'property-manager': ['property-uk'] };

export function createWorkersService(deps: {
  workers: WorkersRepository;
  /** a deleted worker's daily-summary scheduler goes with it (null while the summary is off) */
  summary?: Pick<SummaryScheduling, 'workerDeleted'> | null;
}) {
  const { workers } = deps;
  return {
    async create(
      workspaceId: string,
      input: { name: string; template?: string | undefined; skillPacks?: string[] | undefined },
    ) {
      const packs = new Set([
        ...(input.template ? (TEMPLATE_PACKS[input.template] ?? []) : []),
        ...(input.skillPacks ?? []),
      ]);
      return toApiWorker(
        await workers.create(workspaceId, {
          name: input.name,
          template: input.template ?? null,
          skillPacks: [...packs],
        }),
      );
    },
    list: async (workspaceId: string) => (await workers.list(workspaceId)).map(toApiWorker),
    async get(workspaceId: string, id: string) {
      return toApiWorker(await workers.require(workspaceId, id));
    },
    async remove(workspaceId: string, id: string) {
      if (!(await workers.delete(workspaceId, id))) throw workerNotFound(id);
      await deps.summary?.workerDeleted(id);
    },
  };
}
export type WorkersService = ReturnType<typeof createWorkersService>;
