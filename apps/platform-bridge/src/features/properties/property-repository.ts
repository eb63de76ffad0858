import type { Db, Tx } from '../../lib/db.ts';

// The current tenancy is the newest one that has not ended.
export const currentTenancy = {
  where: { status: { not: 'ended' } },
  orderBy: [{ startDate: 'desc' as const }, { id: 'desc' as const }],
  take: 1,
};

export function createPropertyRepository(db: Db) {
  return {
    findWithCompliance: (tenantId: number, id: number, tx: Tx | Db = db) =>
      tx.property.findFirst({
        where: { tenantId, id },
        include: { tenancies: currentTenancy, complianceItems: { orderBy: { type: 'asc' } } },
      }),
  };
}
export type PropertyRepository = ReturnType<typeof createPropertyRepository>;
