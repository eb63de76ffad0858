import type { Db } from '../../lib/db.ts';
import { groupCommit } from '../../lib/group-commit.ts';

/** The message an update carried: kept with the update until it has been handled. */
export interface UpdateMessage {
  chatId: string;
  chatTitle: string | null;
  text: string;
}

/** An update whose process stopped holding it before it was handled, now claimed by this one. */
export interface OrphanUpdate extends UpdateMessage {
  channel: { id: string; workerId: string; type: string };
  updateKey: string;
  receivedAt: Date;
  /** how many processes have taken it on, this one included */
  attempts: number;
}

export interface UpdateKey {
  channelId: string;
  updateKey: string;
}

/** One string for an update's key, for maps and batches. */
export const updateKeyId = (k: UpdateKey) => `${k.channelId}\n${k.updateKey}`;

// The updates channels have taken in (channel_updates): each is recorded before anything else, so that a repeated
// delivery is handled once, and a message is kept with a claim (claimed_until) that the process holding it renews
// until it has been handled. An unhandled update whose claim has run out belongs to a process that stopped: another
// claims it (claimOrphans) and answers it. Queries name the channel (the update's own key); claimOrphans and the
// sweep are maintenance across channels.
export function createChannelUpdatesRepository(db: Db) {
  // Every message taken in is marked handled once answered: the marks of concurrent chats share one statement.
  const markHandled = groupCommit<UpdateKey & { at: Date }, void>({
    run: async (items) => {
      await db.$executeRaw`
        UPDATE channel_updates u
           SET handled_at = h.at, claimed_until = NULL, chat_title = NULL, text = NULL
          FROM unnest(${items.map((i) => i.channelId)}::uuid[], ${items.map((i) => i.updateKey)}::text[],
                      ${items.map((i) => i.at)}::timestamptz[]) AS h(channel_id, update_key, at)
         WHERE u.channel_id = h.channel_id AND u.update_key = h.update_key`;
      return items.map(() => undefined);
    },
    key: updateKeyId,
  });

  return {
    /**
     * Takes an update in: true the first time `updateKey` is seen for the channel, false for a repeat (a webhook
     * retry, or a poll repeated after a restart) or when the channel has just been deleted (its key would have
     * nothing to refer to). With `claim`, the message is kept, unhandled, claimed until `claim.until`; without,
     * the key is a marker, handled at once.
     */
    record: async (
      channelId: string,
      updateKey: string,
      claim?: { message: UpdateMessage; until: Date },
    ): Promise<boolean> => {
      const m = claim?.message;
      // one statement on every update (raw: no query planning in the process); a deleted channel's key is not
      // inserted (no foreign-key error to catch), a repeated one neither
      const inserted = await db.$executeRaw`
        INSERT INTO channel_updates (channel_id, update_key, chat_id, chat_title, text, claimed_until, handled_at)
        SELECT c.id, ${updateKey}, ${m?.chatId ?? null}, ${m?.chatTitle ?? null}, ${m?.text ?? null},
               ${claim?.until ?? null}::timestamptz(3), ${claim ? null : new Date()}::timestamptz(3)
          FROM channels c
         WHERE c.id = ${channelId}::uuid
        ON CONFLICT DO NOTHING`;
      return inserted === 1;
    },

    /** Handled: the claim ends and the message is forgotten (the session keeps what the conversation needs). */
    markHandled: (key: UpdateKey, at: Date): Promise<void> => markHandled({ ...key, at }),

    /** Extends the claims of the unhandled updates this process holds. */
    renewClaims: async (keys: UpdateKey[], until: Date) => {
      if (!keys.length) return 0;
      return (
        await db.channelUpdate.updateMany({
          where: { OR: keys, handledAt: null },
          data: { claimedUntil: until },
        })
      ).count;
    },

    /**
     * Claims, until `until`, at most `limit` unhandled updates whose claim ran out before `now`, oldest first.
     * Several processes may run this at once: SKIP LOCKED and the claim's own check give each update to one.
     */
    claimOrphans: async (now: Date, until: Date, limit: number): Promise<OrphanUpdate[]> => {
      const rows = await db.$queryRaw<
        {
          channel_id: string;
          update_key: string;
          chat_id: string | null;
          chat_title: string | null;
          text: string | null;
          attempts: number;
          received_at: Date;
          worker_id: string;
          type: string;
        }[]
      >`
        UPDATE channel_updates u
           SET claimed_until = ${until}, attempts = u.attempts + 1
          FROM (SELECT channel_id, update_key FROM channel_updates
                 WHERE claimed_until < ${now}
                 ORDER BY received_at
                 LIMIT ${limit}
                   FOR UPDATE SKIP LOCKED) AS o,
               channels c
         WHERE u.channel_id = o.channel_id AND u.update_key = o.update_key AND c.id = u.channel_id
           AND u.claimed_until < ${now}
        RETURNING u.channel_id, u.update_key, u.chat_id, u.chat_title, u.text, u.attempts, u.received_at,
                  c.worker_id, c.type`;
      return rows
        .map((r) => ({
          channel: { id: r.channel_id, workerId: r.worker_id, type: r.type },
          updateKey: r.update_key,
          chatId: r.chat_id ?? '',
          chatTitle: r.chat_title,
          text: r.text ?? '',
          attempts: r.attempts,
          receivedAt: r.received_at,
        }))
        .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
    },

    /**
     * The keys of the chat's messages that a live process holds: unhandled, their claim running (a message of a
     * process that stopped has a claim that has run out).
     */
    heldInChat: async (channelId: string, chatId: string, now: Date): Promise<string[]> =>
      (
        await db.channelUpdate.findMany({
          where: { channelId, chatId, claimedUntil: { gt: now } },
          select: { updateKey: true },
        })
      ).map((u) => u.updateKey),

    /** Forgets update keys taken in before `before` (Telegram keeps an update for 24 hours at most). */
    sweep: async (before: Date) =>
      (await db.channelUpdate.deleteMany({ where: { receivedAt: { lt: before } } })).count,
  };
}
export type ChannelUpdatesRepository = ReturnType<typeof createChannelUpdatesRepository>;
