import type { Db, Tx } from '../../lib/db.ts';

export interface KnowledgeWrite {
  propertyId: number | null;
  kind: string;
  title: string;
  body: string;
  updatedAt: Date;
}

// The operator's side of one tenant's corpus: the tenant id comes first and is in every `where`. Writes go
// through the caller's transaction so that the outbox event is written with them; the migration's trigger stamps
// each write's transaction id for the changes read.
export function createKnowledgeDocumentsRepository(db: Db) {
  return {
    findByKeys: (tenantId: number, keys: string[], tx: Tx | Db = db) =>
      tx.knowledgeDocument.findMany({ where: { tenantId, key: { in: keys } } }),

    findByKey: (tenantId: number, key: string, tx: Tx | Db = db) =>
      tx.knowledgeDocument.findUnique({ where: { tenantId_key: { tenantId, key } } }),

    findById: (tenantId: number, id: number, tx: Tx | Db = db) =>
      tx.knowledgeDocument.findFirst({ where: { tenantId, id } }),

    create: (tenantId: number, key: string, data: KnowledgeWrite, tx: Tx | Db = db) =>
      tx.knowledgeDocument.create({ data: { tenantId, key, ...data } }),

    /** Writes the document's new state; a removed one comes back (deleted_at cleared). */
    update: (tenantId: number, id: number, data: KnowledgeWrite, tx: Tx | Db = db) =>
      tx.knowledgeDocument.update({ where: { id, tenantId }, data: { ...data, deletedAt: null } }),

    /** Leaves a tombstone: the row stays so that the changes read can publish the removal. */
    markDeleted: (tenantId: number, id: number, at: Date, tx: Tx | Db = db) =>
      tx.knowledgeDocument.update({ where: { id, tenantId }, data: { deletedAt: at, updatedAt: at } }),

    list: (tenantId: number, o: { includeDeleted: boolean }, tx: Tx | Db = db) =>
      tx.knowledgeDocument.findMany({
        where: { tenantId, ...(o.includeDeleted ? {} : { deletedAt: null }) },
        include: { property: { select: { ref: true } } },
        orderBy: [{ key: 'asc' }],
      }),

    propertiesByRef: (tenantId: number, refs: string[], tx: Tx | Db = db) =>
      tx.property.findMany({ where: { tenantId, ref: { in: refs } }, select: { id: true, ref: true } }),
  };
}
export type KnowledgeDocumentsRepository = ReturnType<typeof createKnowledgeDocumentsRepository>;
