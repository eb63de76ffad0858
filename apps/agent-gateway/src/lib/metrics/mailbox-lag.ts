import type { Db } from '../db.ts';

// How far behind the assistant's own mailboxes are (docs/email.md): the longest time since one that is not
// stopped was last synced (or, never synced, added). One aggregate over every workspace's mailboxes, for the
// operator: it returns a number, never a mailbox, an address or a workspace.
export async function mailboxSyncLag(db: Db): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ lag: number | null }>>`
    SELECT EXTRACT(EPOCH FROM max(now() - COALESCE(last_sync_at, created_at)))::float8 AS lag
      FROM mailboxes
     WHERE status <> 'stopped'`;
  return Math.max(0, row?.lag ?? 0);
}
