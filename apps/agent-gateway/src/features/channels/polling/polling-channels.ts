import type { Db } from '../../../lib/db.ts';

// The pollers' reads and writes of the channels table. Finding every channel to poll is the one query across
// workers (a process polls for all of them, as the webhook route looks a channel up by its id); every write names
// the channel's worker too.

export interface PollingChannel {
  id: string;
  workerId: string;
  secretsCiphertext: Uint8Array;
}

export function createPollingChannels(db: Db) {
  return {
    /** Telegram channels in polling mode that can poll: pending pairing or connected, not in error */
    list: (): Promise<PollingChannel[]> =>
      db.channel.findMany({
        where: { type: 'telegram', mode: 'polling', status: { in: ['pending_pairing', 'connected'] } },
        select: { id: true, workerId: true, secretsCiphertext: true },
        orderBy: { createdAt: 'asc' },
      }),
    /** read once the lock is held: the previous poller may have stored a later offset after the scan */
    offset: async (workerId: string, channelId: string): Promise<bigint | null> =>
      (
        await db.channel.findFirst({
          where: { workerId, id: channelId },
          select: { pollOffset: true },
        })
      )?.pollOffset ?? null,
    saveOffset: (workerId: string, channelId: string, offset: bigint) =>
      db.channel.updateMany({ where: { workerId, id: channelId }, data: { pollOffset: offset } }),
    markError: (workerId: string, channelId: string, lastError: string) =>
      db.channel.updateMany({
        where: { workerId, id: channelId },
        data: { status: 'error', lastError },
      }),
  };
}
export type PollingChannels = ReturnType<typeof createPollingChannels>;
