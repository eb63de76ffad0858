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

    forEvaluation: (
      tenantId: number,
      where: { ids?: number[]; staleBefore?: Date },
      take: number,
      afterId: number,
    ) =>
      db.property.findMany({
        where: {
          tenantId,
          id: { gt: afterId, ...(where.ids ? { in: where.ids } : {}) },
          ...(where.staleBefore
            ? {
                OR: [
                  { complianceRollup: { is: null } },
                  { complianceRollup: { evaluatedOn: { lt: where.staleBefore } } },
                ],
              }
            : {}),
        },
        orderBy: { id: 'asc' },
        take,
        select: {
          id: true,
          lettingStatus: true,
          hasGas: true,
          isHmo: true,
          tenancies: { ...currentTenancy, select: { startDate: true, depositPence: true } },
          complianceItems: true,
        },
      }),
  };
}
export type PropertyRepository = ReturnType<typeof createPropertyRepository>;
