import type { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../lib/db.ts';

/** A mailbox as the sync takes it under its lease: what it needs to log in and to go on from where it stopped. */
export type LeasedMailbox = {
  id: string;
  worker_id: string;
  address: string;
  address_key: string;
  host: string;
  port: number;
  secure: boolean;
  username: string;
  password_ciphertext: Uint8Array;
  uid_validity: bigint | null;
  last_uid: bigint;
  failures: number;
};

// The mailbox syncer's reads and writes. Like the pollers' (channels/polling/polling-channels.ts), it works across
// workers: one process syncs every worker's mailboxes, addressing each by its id; the API's reads and writes,
// which take the worker first, are in mailboxes-repository.ts.
export function createMailboxSyncRepository(db: Db) {
  const release = { syncLockedUntil: null };
  return {
    /** The mailbox under a lease of `leaseMs`, or undefined when it is stopped or another sync holds it. */
    lease: async (id: string, leaseMs: number): Promise<LeasedMailbox | undefined> =>
      (
        await db.$queryRaw<LeasedMailbox[]>`
          UPDATE mailboxes SET sync_locked_until = now() + make_interval(secs => ${leaseMs / 1000})
           WHERE id = ${id}::uuid AND status <> 'stopped'
             AND (sync_locked_until IS NULL OR sync_locked_until < now())
          RETURNING id::text, worker_id::text, address, address_key, host, port, secure, username,
                    password_ciphertext, uid_validity, last_uid, failures`
      )[0],

    /**
     * A failed sync, in words, and when to try again; releases the lease. A mailbox stopped while the sync ran
     * keeps its status and reason.
     */
    recordFailure: async (id: string, error: string, failures: number, nextSyncAt: Date) => {
      const { count } = await db.mailbox.updateMany({
        where: { id, status: { not: 'stopped' } },
        data: { status: 'error', lastError: error, failures, nextSyncAt, ...release },
      });
      if (count === 0) await db.mailbox.updateMany({ where: { id }, data: release });
    },

    /** The platform reads the address now: the mailbox is stopped, with the reason; releases the lease. */
    stop: async (id: string, reason: string) => {
      await db.mailbox.update({ where: { id }, data: { status: 'stopped', lastError: reason, ...release } });
    },

    /**
     * The new messages (a UID seen before is skipped) and the position reached, in one transaction, so that a
     * restart fetches nothing twice; releases the lease.
     */
    storeSync: (
      id: string,
      messages: Prisma.EmailMessageCreateManyInput[],
      position: { uidValidity: bigint; lastUid: bigint },
    ) =>
      db.$transaction(async (tx) => {
        if (messages.length) await tx.emailMessage.createMany({ data: messages, skipDuplicates: true });
        const messagesStored = await tx.emailMessage.count({ where: { mailboxId: id } });
        const synced = {
          ...position,
          messagesStored,
          lastSyncAt: new Date(),
          failures: 0,
          nextSyncAt: null,
          ...release,
        };
        // A mailbox stopped while this sync ran (the platform took its address over) stays stopped, with its reason:
        // only a mailbox that is not stopped becomes active again.
        const { count } = await tx.mailbox.updateMany({
          where: { id, status: { not: 'stopped' } },
          data: { ...synced, lastError: null, status: 'active' },
        });
        if (count === 0) await tx.mailbox.update({ where: { id }, data: synced });
      }),

    /** The mailboxes due for a sync (not stopped, past their backoff), the longest unsynced first. */
    due: async (now: Date) =>
      (
        await db.mailbox.findMany({
          where: { status: { not: 'stopped' }, OR: [{ nextSyncAt: null }, { nextSyncAt: { lte: now } }] },
          select: { id: true },
          orderBy: { lastSyncAt: { sort: 'asc', nulls: 'first' } },
        })
      ).map((m) => m.id),

    /** The healthy mailboxes, with what an IDLE connection needs to log in. */
    watchable: () =>
      db.mailbox.findMany({
        where: { status: 'active' },
        select: { id: true, host: true, port: true, secure: true, username: true, passwordCiphertext: true },
      }),
  };
}
export type MailboxSyncRepository = ReturnType<typeof createMailboxSyncRepository>;
