import type { AccessAuditAction } from '@pa/contracts';
import type { Db, Tx } from '../../lib/db.ts';

export interface AccessAuditRecord {
  actor: string;
  action: AccessAuditAction;
  target: string;
}

// The access audit: who changed a tenant's keys, flags and signed-event endpoints. Written in the transaction of
// the change it records (pass its client), so that no change goes unrecorded and no entry outlives a rollback.
export function createAccessAuditRepository(db: Db) {
  return {
    record: async (tenantId: number, entry: AccessAuditRecord, tx: Tx | Db = db): Promise<void> => {
      await tx.accessAuditEntry.create({ data: { tenantId, ...entry } });
    },

    /** Newest first. */
    list: (tenantId: number, limit: number, tx: Tx | Db = db) =>
      tx.accessAuditEntry.findMany({ where: { tenantId }, orderBy: { id: 'desc' }, take: limit }),
  };
}
export type AccessAuditRepository = ReturnType<typeof createAccessAuditRepository>;
