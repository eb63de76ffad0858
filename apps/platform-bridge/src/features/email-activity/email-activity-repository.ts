import type { Db, Tx } from '../../lib/db.ts';

// A tenant's email activity and the mailboxes the platform polls for it: the tenant id comes first and is in
// every `where`.
export function createEmailActivityRepository(db: Db) {
  return {
    /** The newest first, received at or after `since`. */
    listSince: (tenantId: number, since: Date, take: number, tx: Tx | Db = db) =>
      tx.emailActivity.findMany({
        where: { tenantId, receivedAt: { gte: since } },
        orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
        take,
      }),

    listMailboxes: (tenantId: number, tx: Tx | Db = db) =>
      tx.mailbox.findMany({ where: { tenantId }, orderBy: { address: 'asc' } }),

    /** Registers a mailbox once; adding it again changes nothing. */
    addMailbox: (tenantId: number, address: string, tx: Tx | Db = db) =>
      tx.mailbox.upsert({
        where: { tenantId_address: { tenantId, address } },
        create: { tenantId, address },
        update: {},
      }),
  };
}
export type EmailActivityRepository = ReturnType<typeof createEmailActivityRepository>;
