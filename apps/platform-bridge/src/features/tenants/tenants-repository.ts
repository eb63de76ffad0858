import type { Db, Tx } from '../../lib/db.ts';

// Tenants and their flags. The directory lookups (by slug, all tenants, creating one) are how a tenant is
// found in the first place, so they cannot be scoped by it; everything about one tenant takes its id first
// and puts it in the `where`.
export function createTenantsRepository(db: Db) {
  return {
    findBySlug: (slug: string, tx: Tx | Db = db) => tx.tenant.findUnique({ where: { slug } }),

    /** All tenants in id order, for operators and jobs that visit each one. */
    list: (tx: Tx | Db = db) => tx.tenant.findMany({ orderBy: { id: 'asc' } }),

    count: (tx: Tx | Db = db) => tx.tenant.count(),

    create: (data: { slug: string; name: string }, tx: Tx | Db = db) => tx.tenant.create({ data }),

    setFlag: (tenantId: number, flag: string, enabled: boolean, tx: Tx | Db = db) =>
      tx.tenantFlag.upsert({
        where: { tenantId_flag: { tenantId, flag } },
        create: { tenantId, flag, enabled },
        update: { enabled },
      }),

    listFlags: (tenantId: number, tx: Tx | Db = db) => tx.tenantFlag.findMany({ where: { tenantId } }),

    /**
     * Locks the tenant's row until `tx` ends. Changes that read the tenant's state before writing (a flag's value
     * before its switch, the endpoint count before an add) take it first, so that two at once run one after the
     * other and each reads what the other committed.
     */
    lock: async (tenantId: number, tx: Tx): Promise<void> => {
      await tx.$queryRawUnsafe('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', tenantId);
    },
  };
}
export type TenantsRepository = ReturnType<typeof createTenantsRepository>;
