import type { Db } from '../../lib/db.ts';

export interface NewChannel {
  type: string;
  mode: string;
  externalId: string;
  botUsername: string | null;
  secretsCiphertext: Uint8Array<ArrayBuffer>;
  webhookSecretHash: Uint8Array<ArrayBuffer> | null;
  pairingCodeHash: Uint8Array<ArrayBuffer>;
  pairingExpiresAt: Date;
}

/** What a channel read carries of its worker: the name the bot greets with, and its workspace for chat turns. */
const WITH_WORKER = { worker: { select: { name: true, workspaceId: true } } } as const;

// A worker's channels. Every query takes the worker id first and puts it in its `where` (the caller has checked
// that the worker is in the caller's workspace); the exception is findForWebhook, where Telegram or Meta names
// only the channel and the webhook secret then decides. The updates channels take in: channel-updates-repository.ts.
export function createChannelsRepository(db: Db) {
  return {
    /**
     * Creates the channel, replacing the worker's own channel for the same bot or number (connecting a bot again
     * is how a user changes its mode or token). The same bot on another worker breaks the unique (type,
     * external_id) index: the caller turns that into a 409.
     */
    replace: (workerId: string, id: string, data: NewChannel) =>
      db.$transaction(async (tx) => {
        await tx.channel.deleteMany({ where: { workerId, type: data.type, externalId: data.externalId } });
        return tx.channel.create({ data: { id, workerId, ...data }, include: WITH_WORKER });
      }),

    list: (workerId: string) =>
      db.channel.findMany({ where: { workerId }, orderBy: { createdAt: 'asc' }, include: WITH_WORKER }),

    find: (workerId: string, id: string) =>
      db.channel.findFirst({ where: { workerId, id }, include: WITH_WORKER }),

    delete: async (workerId: string, id: string) =>
      (await db.channel.deleteMany({ where: { workerId, id } })).count > 0,

    /** The webhook's lookup: by the channel id in the URL alone (see above). */
    findForWebhook: (id: string, type: string) =>
      db.channel.findFirst({ where: { id, type }, include: WITH_WORKER }),

    /** A new pairing code; the previous one stops working. Whether the channel still exists. */
    setPairingCode: async (
      workerId: string,
      id: string,
      codeHash: Uint8Array<ArrayBuffer>,
      expiresAt: Date,
    ) =>
      (
        await db.channel.updateMany({
          where: { workerId, id },
          data: { pairingCodeHash: codeHash, pairingExpiresAt: expiresAt },
        })
      ).count > 0,

    /**
     * Pairs `chatId` if `codeHash` is the channel's current, unexpired code, and uses the code up, in one
     * statement: two chats racing with the same code cannot both win.
     */
    pair: async (
      workerId: string,
      id: string,
      codeHash: Uint8Array<ArrayBuffer>,
      chat: { id: string; title: string | null },
      now: Date,
    ) =>
      (
        await db.channel.updateMany({
          where: { workerId, id, pairingCodeHash: codeHash, pairingExpiresAt: { gt: now } },
          data: {
            chatId: chat.id,
            chatTitle: chat.title,
            status: 'connected',
            connectedAt: now,
            lastError: null,
            pairingCodeHash: null,
            pairingExpiresAt: null,
          },
        })
      ).count > 0,

    setError: (workerId: string, id: string, lastError: string | null) =>
      db.channel.updateMany({ where: { workerId, id }, data: { lastError } }),
  };
}
export type ChannelsRepository = ReturnType<typeof createChannelsRepository>;
export type ChannelRow = NonNullable<Awaited<ReturnType<ChannelsRepository['list']>>[number]>;
