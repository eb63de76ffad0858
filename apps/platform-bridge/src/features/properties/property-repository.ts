import type { Db, Tx } from '../../lib/db.ts';
import { currentTenancy } from '../compliance/current-tenancy.ts';

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
