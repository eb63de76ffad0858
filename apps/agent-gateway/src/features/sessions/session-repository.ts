import { randomUUID } from 'node:crypto';
import { type Db, type StatementRunner, statementRunner } from '../../lib/db.ts';
import { groupCommit } from '../../lib/group-commit.ts';
import { type ContextTurn, createContextCache } from './context-cache.ts';

export type Channel = 'web' | 'cli' | 'telegram' | 'whatsapp';
export type TurnStatus = 'complete' | 'interrupted' | 'error';

/** The operator's (and the messaging channels') sessions: owned by no workspace. */
export const OPERATOR_OWNER = '';

/**
 * A session as its callers name it: the channel, the owner (a paired device's workspace, or OPERATOR_OWNER) and
 * the external id the client holds. The owner is part of the key, so an id names nothing outside its workspace.
 */
export interface SessionKey {
  channel: Channel;
  owner: string;
  externalId: string;
}

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

/** The start of a turn: the user's message, on the session it belongs to. */
export interface TurnStart extends SessionKey {
  /** set as the session's provider; the stored one is kept when absent */
  provider?: string | undefined;
  /** the paired device asking: recorded on a session it starts (or one no device has yet) */
  deviceId?: string | null | undefined;
  message: string;
  requestId?: string | undefined;
  createdAt: Date;
}

export interface BegunTurn {
  session: { id: string; provider: string | null };
  /** false when the session already holds this requestId's user turn: the exchange is a repeat */
  stored: boolean;
  /** the session's latest non-failed turns before this one, oldest first (shared: not to be changed) */
  context: readonly ContextTurn[];
}

export interface NewTurn {
  role: 'user' | 'assistant';
  content: string;
  status: TurnStatus;
  requestId?: string | undefined;
  provider?: string | undefined;
  toolCalls?: unknown;
  error?: string | undefined;
  createdAt?: Date;
}

// One statement for a batch of turn starts (group-commit.ts): upsert each session (bumping last_active_at,
// setting the provider when one is given), store each user turn unless its requestId is already stored, and
// read each session's context. The data-modifying CTEs and the final SELECT share one snapshot, so the context
// is the session as it was before this statement: it never contains the turn being started. The context's turns
// are sent only when their numbers differ from what this process has cached (`known`, context-cache.ts).
const BEGIN_TURNS = {
  name: 'gateway_begin_turns',
  text: `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::uuid[], $6::text[], $7::text[],
                       $8::timestamptz[], $10::text[], $11::text[], $13::uuid[]) WITH ORDINALITY
    AS i(channel, external_id, provider, new_session_id, turn_id, content, request_id, created_at, owner, known,
         device_id, n)
),
sessions AS (
  INSERT INTO chat_sessions AS s (id, channel, owner, external_id, provider, device_id)
  SELECT new_session_id, channel, owner, external_id, provider, device_id FROM input
  ORDER BY channel, owner, external_id
  ON CONFLICT (channel, owner, external_id) DO UPDATE
    SET last_active_at = CURRENT_TIMESTAMP, provider = COALESCE(EXCLUDED.provider, s.provider),
        device_id = COALESCE(s.device_id, EXCLUDED.device_id)
  RETURNING s.id, s.channel, s.owner, s.external_id, s.provider
),
stored AS (
  INSERT INTO turns (id, session_id, role, content, status, request_id, created_at, instance_id)
  SELECT i.turn_id, s.id, 'user', i.content, 'complete', i.request_id, i.created_at, $12::uuid
  FROM input i JOIN sessions s ON s.channel = i.channel AND s.owner = i.owner AND s.external_id = i.external_id
  ON CONFLICT (session_id, request_id, role) DO NOTHING
  RETURNING id, seq
)
SELECT s.id::text AS "sessionId", s.provider,
  (SELECT stored.seq::text FROM stored WHERE stored.id = i.turn_id) AS "storedSeq",
  w.seqs,
  CASE WHEN w.seqs IS DISTINCT FROM i.known THEN
    (SELECT COALESCE(json_agg(json_build_array(c.role, c.content) ORDER BY c.seq), '[]')
       FROM (SELECT t.role, t.content, t.seq FROM turns t
             WHERE t.session_id = s.id AND t.status <> 'error'
             ORDER BY t.seq DESC LIMIT $9) c)::text
  END AS context
FROM input i JOIN sessions s ON s.channel = i.channel AND s.owner = i.owner AND s.external_id = i.external_id
CROSS JOIN LATERAL (
  SELECT COALESCE(string_agg(c.seq::text, ',' ORDER BY c.seq), '') AS seqs
  FROM (SELECT t.seq FROM turns t
        WHERE t.session_id = s.id AND t.status <> 'error'
        ORDER BY t.seq DESC LIMIT $9) c
) w
ORDER BY i.n`,
};

const INSERT_TURNS = {
  name: 'gateway_insert_turns',
  text: `
INSERT INTO turns (id, session_id, role, content, status, request_id, provider, tool_calls, error, created_at)
SELECT id, session_id, role, content, status, request_id, provider, tool_calls::jsonb, error,
       COALESCE(created_at, CURRENT_TIMESTAMP)
FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
            $9::text[], $10::timestamptz[])
  AS i(id, session_id, role, content, status, request_id, provider, tool_calls, error, created_at)
RETURNING id::text, seq::text`,
};

const keyOf = (k: SessionKey) => `${k.channel}\u0000${k.owner}\u0000${k.externalId}`;
const withoutNul = (s: string) => s.replaceAll('\u0000', '\uFFFD');

// Sessions and their turns, always addressed by channel + external id or by the internal UUID they map to.
// A chat turn's two writes (begin, then the reply) are group-committed with concurrent turns' and sent through
// `statements` (named prepared statements on PostgreSQL); everything else goes through Prisma.
export function createSessionRepository(
  db: Db,
  statements: StatementRunner = statementRunner(db),
  /** the process answering the turns it begins (instance-lease.ts); null: closed by the turn time limit only */
  instanceId: string | null = null,
) {
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

  const contexts = createContextCache({ window: CONTEXT_TURNS });

  const beginBatch = groupCommit<TurnStart, BegunTurn>({
    key: keyOf,
    async run(items) {
      const known = items.map((t) => contexts.lookup(keyOf(t)));
      const rows = await statements<{
        sessionId: string;
        provider: string | null;
        storedSeq: string | null;
        seqs: string;
        context: string | null;
      }>(BEGIN_TURNS, [
        items.map((t) => t.channel),
        items.map((t) => t.externalId),
        items.map((t) => t.provider ?? null),
        items.map(() => randomUUID()),
        items.map(() => randomUUID()),
        items.map((t) => t.message),
        items.map((t) => t.requestId ?? null),
        items.map((t) => t.createdAt.toISOString()),
        CONTEXT_TURNS,
        items.map((t) => t.owner),
        known.map((k) => k?.fingerprint ?? null),
        instanceId,
        items.map((t) => t.deviceId ?? null),
      ]);
      return rows.map((r, i) => {
        const item = items[i]!;
        // no turns sent: the window is the one this process held when the statement went out
        let context = r.context === null ? known[i]?.turns : undefined;
        if (!context) {
          const parsed = (JSON.parse(r.context ?? '[]') as [ContextTurn['role'], string][]).map(
            ([role, content]) => ({ role, content }),
          );
          contexts.set(keyOf(item), r.sessionId, r.seqs ? r.seqs.split(',') : [], parsed);
          context = parsed;
        }
        if (r.storedSeq !== null) {
          contexts.append(r.sessionId, r.storedSeq, { role: 'user', content: item.message });
        }
        return { session: { id: r.sessionId, provider: r.provider }, stored: r.storedSeq !== null, context };
      });
    },
  });

  const insertBatch = groupCommit<{ sessionId: string; turn: NewTurn }, void>({
    async run(items) {
      const turns = items.map((i) => i.turn);
      const ids = items.map(() => randomUUID());
      // A reply is stored as it came: only U+0000, which PostgreSQL's text and jsonb cannot hold, is replaced.
      // (Messages are refused with it at the door; replies and tool results come from outside.)
      const contents = turns.map((t) => withoutNul(t.content));
      const rows = await statements<{ id: string; seq: string }>(INSERT_TURNS, [
        ids,
        items.map((i) => i.sessionId),
        turns.map((t) => t.role),
        contents,
        turns.map((t) => t.status),
        turns.map((t) => t.requestId ?? null),
        turns.map((t) => t.provider ?? null),
        turns.map((t) =>
          t.toolCalls === undefined
            ? null
            : JSON.stringify(t.toolCalls, (_k, v: unknown) => (typeof v === 'string' ? withoutNul(v) : v)),
        ),
        turns.map((t) => (t.error === undefined ? null : withoutNul(t.error))),
        turns.map((t) => t.createdAt?.toISOString() ?? null),
      ]);
      // the turns that are part of a context join their sessions' cached windows
      const seqOf = new Map(rows.map((r) => [r.id, r.seq]));
      items.forEach(({ sessionId, turn }, i) => {
        const seq = seqOf.get(ids[i]!);
        // a failed turn is no part of any context: the window stays as it was
        if (turn.status === 'error') return;
        if (seq === undefined) return contexts.forget(sessionId);
        contexts.append(sessionId, seq, { role: turn.role, content: contents[i]! });
      });
      return items.map(() => undefined);
    },
  });

  return {
    /**
     * Starts a turn in one round trip shared with concurrent turns: the session (created on first use), the
     * user's message stored, and the context the reply is to be based on.
     */
    begin: (start: TurnStart): Promise<BegunTurn> => beginBatch(start),

    /** Stores a turn; concurrent calls share one INSERT. */
    addTurn: (sessionId: string, turn: NewTurn): Promise<void> => insertBatch({ sessionId, turn }),

    find: (key: SessionKey) => db.chatSession.findUnique({ where: { channel_owner_externalId: key } }),
    /**
     * The operator's recall (the CLI): the sessions with this external id whatever their owner, on one channel or
     * every channel, the most recently active first.
     */
    findEverywhere: (externalId: string, channel?: Channel) =>
      db.chatSession.findMany({
        where: { externalId, ...(channel ? { channel } : {}) },
        orderBy: { lastActiveAt: 'desc' },
      }),

    async history(sessionId: string, limit: number): Promise<StoredTurn[]> {
      const rows = await db.turn.findMany({
        where: { sessionId },
        orderBy: { seq: 'desc' },
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

    /** Drops what this process caches of a session's context (it was deleted). */
    forgetContext: (sessionId: string) => contexts.forget(sessionId),

    async clear(key: SessionKey): Promise<number> {
      const session = await db.chatSession.findUnique({ where: { channel_owner_externalId: key } });
      if (!session) return 0;
      contexts.forget(session.id);
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
