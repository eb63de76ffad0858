import type { Db } from '../../lib/db.ts';

// The worker's own mailboxes, always read through the worker (whose workspace the caller has checked).

export function createMailboxesRepository(db: Db) {
  return {
    list: (workerId: string) => db.mailbox.findMany({ where: { workerId }, orderBy: { createdAt: 'asc' } }),
    byKey: (addressKey: string) => db.mailbox.findUnique({ where: { addressKey } }),
    create: (data: {
      workerId: string;
      address: string;
      addressKey: string;
      host: string;
      port: number;
      secure: boolean;
      username: string;
      passwordCiphertext: Uint8Array<ArrayBuffer>;
    }) => db.mailbox.create({ data }),
    /**
     * The worker's own messages received since `since`, newest first, from the mailboxes it still reads: a
     * mailbox the platform took over (`stopped`) is read through the bridge instead, so its old copies are left out.
     */
    recentMessages: (workerId: string, since: Date, take: number) =>
      db.emailMessage.findMany({
        where: { receivedAt: { gte: since }, mailbox: { workerId, status: { not: 'stopped' } } },
        orderBy: [{ receivedAt: 'desc' }, { uid: 'desc' }],
        take,
        include: { mailbox: { select: { address: true, addressKey: true } } },
      }),
    /** Deletes the worker's mailbox and its messages; false when it has no such mailbox. */
    delete: async (workerId: string, id: string) =>
      (await db.mailbox.deleteMany({ where: { workerId, id } })).count > 0,
  };
}
export type MailboxesRepository = ReturnType<typeof createMailboxesRepository>;
