import type { Db, Tx } from '../../lib/db.ts';
import { currentTenancy } from '../compliance/current-tenancy.ts';
import { arrearsDaysAgo } from './arrears-history.ts';

export function createPropertyRepository(db: Db) {
  return {
    findWithCompliance: (tenantId: number, id: number, tx: Tx | Db = db) =>
      tx.property.findFirst({
        where: { tenantId, id },
        include: { tenancies: currentTenancy, complianceItems: { orderBy: { type: 'asc' } } },
      }),
    /** The property's arrears `ARREARS_LOOKBACK_DAYS` before `today`, null when not known. */
    arrearsBefore: (tenantId: number, id: number, today: string, tx: Tx | Db = db) =>
      arrearsDaysAgo(tx, tenantId, id, today),
  };
}
export type PropertyRepository = ReturnType<typeof createPropertyRepository>;
