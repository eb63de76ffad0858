import type { Db } from '../../lib/db.ts';

// Workers are always looked up inside a workspace: another workspace's worker does not exist for the caller.
export function createWorkersRepository(db: Db) {
  return {
    create: (workspaceId: string, data: { name: string; template: string | null; skillPacks: string[] }) =>
      db.worker.create({
        data: { workspaceId, ...data },
        include: { binding: { select: { workerId: true } } },
      }),
    list: (workspaceId: string) =>
      db.worker.findMany({
        where: { workspaceId },
        orderBy: { createdAt: 'asc' },
        include: { binding: { select: { workerId: true } } },
      }),
    find: (workspaceId: string, id: string) =>
      db.worker.findFirst({
        where: { workspaceId, id },
        include: { binding: { select: { workerId: true } } },
      }),
    findAnywhere: (id: string) =>
      db.worker.findUnique({ where: { id }, include: { binding: { select: { workerId: true } } } }),
    firstInWorkspaceNamed: (name: string) =>
      db.worker.findFirst({
        where: { workspace: { name } },
        orderBy: [{ workspace: { createdAt: 'asc' } }, { createdAt: 'asc' }],
        include: { binding: { select: { workerId: true } } },
      }),
    oldest: () =>
      db.worker.findFirst({
        orderBy: { createdAt: 'asc' },
        include: { binding: { select: { workerId: true } } },
      }),
    delete: async (workspaceId: string, id: string) =>
      (await db.worker.deleteMany({ where: { workspaceId, id } })).count > 0,
  };
}
export type WorkersRepository = ReturnType<typeof createWorkersRepository>;
