import type { Db, Tx } from '../../lib/db.ts';

export interface BindingData {
  tenantSlug: string;
  keyCiphertext: Uint8Array<ArrayBuffer>;
  keyPreview: string;
  propertiesTotal: number;
  boundAt: Date;
}

// A worker's platform binding. A binding has no workspace column of its own; its worker's workspace scopes it, so
// each query takes the workspace id first and reaches it through the worker.
export function createBindingRepository(db: Db) {
  return {
    /** Binds the worker or replaces its binding; the caller has checked that the worker is in the workspace. */
    save: (workspaceId: string, workerId: string, data: BindingData, tx: Tx | Db = db) =>
      tx.platformBinding.upsert({
        where: { workerId, worker: { workspaceId } },
        create: { workerId, ...data },
        update: data,
      }),

    find: (workspaceId: string, workerId: string, tx: Tx | Db = db) =>
      tx.platformBinding.findFirst({ where: { workerId, worker: { workspaceId } } }),

    /** Whether there was a binding to delete. */
    delete: async (workspaceId: string, workerId: string, tx: Tx | Db = db) =>
      (await tx.platformBinding.deleteMany({ where: { workerId, worker: { workspaceId } } })).count > 0,

    listInWorkspace: (workspaceId: string, tx: Tx | Db = db) =>
      tx.platformBinding.findMany({ where: { worker: { workspaceId } } }),

    /**
     * A chat turn's binding. The turn carries the worker that resolveWorker already admitted, not a workspace, so
     * this is looked up by the worker alone.
     */
    findForTurn: (workerId: string, tx: Tx | Db = db) =>
      tx.platformBinding.findUnique({ where: { workerId } }),
  };
}
export type BindingRepository = ReturnType<typeof createBindingRepository>;
