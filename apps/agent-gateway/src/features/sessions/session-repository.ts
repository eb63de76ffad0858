import type { Db } from '../../lib/db.ts';

export type Channel = 'web' | 'cli' | 'telegram';
export type TurnStatus = 'complete' | 'interrupted' | 'error';

export interface StoredTurn {
  role: 'user' | 'assistant';
  content: string;
  status: TurnStatus;
  createdAt: Date;
  requestId: string | null;
  provider: string | null;
  toolCalls: unknown;
}

/** How many of a session's latest turns form the context of the next one. */
export const CONTEXT_TURNS = 20;

// Sessions and their turns, always addressed by channel + external id or by the internal UUID they map to.
export function createSessionRepository(db: Db) {
  const toTurn = (t: {
    role: string;
    content: string;
    status: string;
    createdAt: Date;
    requestId: string | null;
    provider: string | null;
    toolCalls: unknown;
  }): StoredTurn => ({
    role: t.role as StoredTurn['role'],
    content: t.content,
    status: t.status as TurnStatus,
    createdAt: t.createdAt,
    requestId: t.requestId,
    provider: t.provider,
    toolCalls: t.toolCalls,
  });

  return {
    async resolve(channel: Channel, externalId: string) {
      return db.chatSession.upsert({
        where: { channel_externalId: { channel, externalId } },
        create: { channel, externalId },
        update: { lastActiveAt: new Date() },
      });
    },

    find: (channel: Channel, externalId: string) =>
      db.chatSession.findUnique({ where: { channel_externalId: { channel, externalId } } }),

    async setProvider(sessionId: string, provider: string) {
      await db.chatSession.update({ where: { id: sessionId }, data: { provider } });
    },

    /** The latest turns in the order they happened; failed turns are left out of the context. */
    async context(sessionId: string, limit = CONTEXT_TURNS): Promise<StoredTurn[]> {
      const rows = await db.turn.findMany({
        where: { sessionId, status: { not: 'error' } },
        orderBy: [{ createdAt: 'desc' }, { role: 'asc' }],
        take: limit,
      });
      return rows.reverse().map(toTurn);
    },

    async history(sessionId: string, limit: number): Promise<StoredTurn[]> {
      const rows = await db.turn.findMany({
        where: { sessionId },
        orderBy: [{ createdAt: 'desc' }, { role: 'asc' }],
        take: limit,
      });
      return rows.reverse().map(toTurn);
    },

    async findByRequest(sessionId: string, requestId: string) {
      const rows = await db.turn.findMany({ where: { sessionId, requestId } });
      const user = rows.find((r) => r.role === 'user');
      const assistant = rows.find((r) => r.role === 'assistant');
      return { user: user && toTurn(user), assistant: assistant && toTurn(assistant) };
    },

    async addTurn(
      sessionId: string,
      turn: {
        role: 'user' | 'assistant';
        content: string;
        status: TurnStatus;
        requestId?: string | undefined;
        provider?: string | undefined;
        toolCalls?: unknown;
        error?: string | undefined;
        createdAt?: Date;
      },
    ) {
      await db.turn.create({
        data: {
          sessionId,
          role: turn.role,
          content: turn.content,
          status: turn.status,
          requestId: turn.requestId ?? null,
          provider: turn.provider ?? null,
          toolCalls: turn.toolCalls === undefined ? undefined : (turn.toolCalls as object),
          error: turn.error ?? null,
          ...(turn.createdAt ? { createdAt: turn.createdAt } : {}),
        },
      });
    },

    async clear(channel: Channel, externalId: string): Promise<number> {
      const session = await db.chatSession.findUnique({
        where: { channel_externalId: { channel, externalId } },
      });
      if (!session) return 0;
      const { count } = await db.turn.deleteMany({ where: { sessionId: session.id } });
      return count;
    },

    /** Deletes sessions idle since before `idleBefore`, with their turns. */
    async sweep(idleBefore: Date): Promise<number> {
      const { count } = await db.chatSession.deleteMany({ where: { lastActiveAt: { lt: idleBefore } } });
      return count;
    },
  };
}
export type SessionRepository = ReturnType<typeof createSessionRepository>;
