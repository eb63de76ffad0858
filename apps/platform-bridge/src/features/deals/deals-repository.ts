import type { Db, Tx } from '../../lib/db.ts';

export type DealStatusFilter = 'open' | 'won' | 'lost' | 'all';

// Deals of one tenant: the tenant id comes first and is in every `where`.
export function createDealsRepository(db: Db) {
  return {
    /** One page in id order after `afterId`; `take` is the page size plus one to tell whether more follow. */
    listPage: (
      tenantId: number,
      page: { status: DealStatusFilter; afterId: number; take: number },
      tx: Tx | Db = db,
    ) =>
      tx.deal.findMany({
        where: {
          tenantId,
          id: { gt: page.afterId },
          ...(page.status === 'all' ? {} : { status: page.status }),
        },
        orderBy: { id: 'asc' },
        take: page.take,
      }),
  };
}
export type DealsRepository = ReturnType<typeof createDealsRepository>;
