import { NotFound } from '@pa/http-kit';
import type { Db } from '../../lib/db.ts';

/** The answer for a worker that is not in the caller's workspace (another workspace's does not exist for it). */
export const workerNotFound = (id: string) =>
  new NotFound('worker-not-found', `No worker ${id} in this workspace.`);

/** What every worker read includes: whether the worker is bound (the binding's key stays out). */
export const WORKER_WITH_BINDING = { binding: { select: { workerId: true } } } as const;

// Workers are always looked up inside a workspace: another workspace's worker does not exist for the caller.
// (The exceptions: the web chat's configured default worker, in default-worker.ts, and the operator's CLI, in
// operator-workers.ts.)
export function createWorkersRepository(db: Db) {
  const find = (workspaceId: string, id: string) =>
    db.worker.findFirst({ where: { workspaceId, id }, include: WORKER_WITH_BINDING });
  return {
    create: (workspaceId: string, data: { name: string; template: string | null; skillPacks: string[] }) =>
      db.worker.create({ data: { workspaceId, ...data }, include: WORKER_WITH_BINDING }),
    list: (workspaceId: string) =>
      db.worker.findMany({
        where: { workspaceId },
        orderBy: { createdAt: 'asc' },
        include: WORKER_WITH_BINDING,
      }),
    find,
    /** find, or 404 worker-not-found */
    require: async (workspaceId: string, id: string) => {
      const worker = await find(workspaceId, id);
      if (!worker) throw workerNotFound(id);
      return worker;
    },
    /** the workspace's oldest worker: who answers a chat that names the workspace but no worker */
    first: (workspaceId: string) =>
      db.worker.findFirst({
        where: { workspaceId },
        orderBy: { createdAt: 'asc' },
        include: WORKER_WITH_BINDING,
      }),
    delete: async (workspaceId: string, id: string) =>
      (await db.worker.deleteMany({ where: { workspaceId, id } })).count > 0,
  };
}
export type WorkersRepository = ReturnType<typeof createWorkersRepository>;
