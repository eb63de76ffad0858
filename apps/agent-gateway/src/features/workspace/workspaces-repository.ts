import type { Db, Tx } from '../../lib/db.ts';

// Workspaces are the gateway's scope: every worker, binding and worker route belongs to one. Creating and listing
// them are the operator's directory, the only queries that cannot be scoped by a workspace.
export function createWorkspacesRepository(db: Db) {
  return {
    exists: async (workspaceId: string, tx: Tx | Db = db) =>
      (await tx.workspace.count({ where: { id: workspaceId } })) > 0,

    create: (name: string, tx: Tx | Db = db) => tx.workspace.create({ data: { name } }),

    /** The oldest first. */
    list: (tx: Tx | Db = db) => tx.workspace.findMany({ orderBy: { createdAt: 'asc' } }),
  };
}
export type WorkspacesRepository = ReturnType<typeof createWorkspacesRepository>;
