import type { Db, Tx } from '../../lib/db.ts';

export interface BindingData {
  tenantSlug: string;
  keyCiphertext: Uint8Array<ArrayBuffer>;
  keyPreview: string;
  propertiesTotal: number;
  boundAt: Date;
  /** a new bind is accepted by the smoke test: null */
  keyRefusedAt: Date | null;
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

    /**
     * Marks the binding's key refused by the platform, unless it already is or the worker was bound again since
     * the key was read (`boundAt` names the bind). Called from a worker's bridge calls, by the worker alone as
     * findForTurn; whether a row changed.
     */
    markKeyRefused: async (workerId: string, boundAt: Date, at: Date, tx: Tx | Db = db) =>
      (
        await tx.platformBinding.updateMany({
          where: { workerId, boundAt, keyRefusedAt: null },
          data: { keyRefusedAt: at },
        })
      ).count > 0,

    /** Clears the mark after a call the same key passed again; whether a row changed. */
    clearKeyRefused: async (workerId: string, boundAt: Date, tx: Tx | Db = db) =>
      (
        await tx.platformBinding.updateMany({
          where: { workerId, boundAt, keyRefusedAt: { not: null } },
          data: { keyRefusedAt: null },
        })
      ).count > 0,
  };
}
export type BindingRepository = ReturnType<typeof createBindingRepository>;
