// The proposed fixes for the chat turn's database work, measured without touching the app: a Prisma client
// extension around the gateway's client answers the session repository's four hot calls itself.
//
// - `raw-sql`: the same four statements per turn (upsert the session, read the context, insert the user turn,
//   insert the assistant turn), sent with `pg` on the same pool instead of through Prisma's query engine —
//   what moving session-repository.ts's hot path to `$queryRaw`/TypedSQL or to `pg` would save.
// - `two-statements`: `raw-sql` with two round trips per turn instead of four: the session upsert and the
//   context read in one statement (a CTE), and both turns stored in one INSERT when the reply is done. (The
//   fix proposed for the app stores the user turn inside the first statement instead, so that it still precedes
//   the reply; the cost is the same two round trips. This what-if defers it because the extension cannot see the
//   message at upsert time.)
// - `no-database`: not a fix but the lower bound: the four calls answered from memory (a new session, an
//   empty context, nothing stored), so that what remains is the gateway's HTTP stack (helmet, CORS, JSON,
//   request id and log, the Redis rate limiter, validation) and the provider.
//
// The statements go to `pg` directly on the gateway's pool (BENCH_GW_WHATIF_VIA=pg, PostgreSQL only) or through
// Prisma's `$queryRawUnsafe` (=prisma: the driver adapter, so also what the embedded PGlite mode could use).
// Anything else (another shape of call, other models) goes to Prisma as usual.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Db } from '../../apps/agent-gateway/src/lib/db.ts';

export const WHAT_IFS = ['raw-sql', 'two-statements', 'no-database'] as const;
export type WhatIf = (typeof WHAT_IFS)[number];

interface TurnRow {
  id: string;
  sessionId: string;
  role: string;
  content: string;
  status: string;
  requestId: string | null;
  provider: string | null;
  toolCalls: unknown;
  error: string | null;
  createdAt: Date;
}

const TURN_COLUMNS = `id, session_id AS "sessionId", role, content, status, request_id AS "requestId",
  provider, tool_calls AS "toolCalls", error, created_at AS "createdAt"`;
const SESSION_COLUMNS = `id, channel, external_id AS "externalId", provider, created_at AS "createdAt",
  last_active_at AS "lastActiveAt"`;

type Args = Record<string, unknown>;
type Hook = (params: { args: Args; query: (args: Args) => Promise<unknown> }) => Promise<unknown>;

export function withWhatIf(db: Db, pool: pg.Pool, whatIf: WhatIf, via: 'pg' | 'prisma' = 'pg'): Db {
  const two = whatIf === 'two-statements';
  // the statements go to pg directly, or through Prisma's $queryRawUnsafe (the same driver adapter and pool)
  const sql = async <T extends object>(text: string, values: unknown[]): Promise<{ rows: T[] }> =>
    via === 'pg'
      ? { rows: (await pool.query(text, values)).rows as T[] }
      : { rows: await db.$queryRawUnsafe<T[]>(text, ...values) };
  // two-statements: the context read with the upsert, waiting for findMany; user turns waiting for the reply
  const contexts = new Map<string, TurnRow[][]>();
  const pendingUser = new Map<string, Record<string, unknown>[]>();
  const push = <T>(map: Map<string, T[]>, key: string, v: T) => {
    const list = map.get(key);
    if (list) list.push(v);
    else map.set(key, [v]);
  };
  const shift = <T>(map: Map<string, T[]>, key: string): T | undefined => {
    const list = map.get(key);
    const v = list?.shift();
    if (list && list.length === 0) map.delete(key);
    return v;
  };

  const upsert: Hook = async ({ args, query }) => {
    const where = (args.where as { channel_externalId?: { channel: string; externalId: string } })
      .channel_externalId;
    if (!where) return query(args);
    if (whatIf === 'no-database') {
      const now = new Date();
      return { id: randomUUID(), ...where, provider: null, createdAt: now, lastActiveAt: now };
    }
    const values = [randomUUID(), where.channel, where.externalId];
    if (!two) {
      const { rows } = await sql<Record<string, unknown>>(
        `INSERT INTO chat_sessions (id, channel, external_id) VALUES ($1, $2, $3)
         ON CONFLICT (channel, external_id) DO UPDATE SET last_active_at = now()
         RETURNING ${SESSION_COLUMNS}`,
        values,
      );
      return rows[0];
    }
    // one row per context turn (or one row with null turn columns), each repeating the session
    const { rows } = await sql<Record<string, unknown>>(
      `WITH s AS (
         INSERT INTO chat_sessions (id, channel, external_id) VALUES ($1, $2, $3)
         ON CONFLICT (channel, external_id) DO UPDATE SET last_active_at = now()
         RETURNING ${SESSION_COLUMNS})
       SELECT s.*, t.id AS t_id, t.role AS t_role, t.content AS t_content, t.status AS t_status,
              t.request_id AS t_request_id, t.provider AS t_provider, t.tool_calls AS t_tool_calls,
              t.error AS t_error, t.created_at AS t_created_at
         FROM s LEFT JOIN LATERAL (
           SELECT * FROM turns WHERE session_id = s.id AND status <> 'error'
            ORDER BY created_at DESC, role ASC LIMIT 20) t ON true
        ORDER BY t.created_at DESC, t.role ASC`,
      values,
    );
    const first = rows[0]!;
    const turns: TurnRow[] = rows
      .filter((r) => r.t_id !== null)
      .map((r) => ({
        id: String(r.t_id),
        sessionId: String(first.id),
        role: String(r.t_role),
        content: String(r.t_content),
        status: String(r.t_status),
        requestId: r.t_request_id as string | null,
        provider: r.t_provider as string | null,
        toolCalls: r.t_tool_calls,
        error: r.t_error as string | null,
        createdAt: r.t_created_at as Date,
      }));
    push(contexts, String(first.id), turns);
    return {
      id: first.id,
      channel: first.channel,
      externalId: first.externalId,
      provider: first.provider,
      createdAt: first.createdAt,
      lastActiveAt: first.lastActiveAt,
    };
  };

  const findMany: Hook = async ({ args, query }) => {
    const where = args.where as { sessionId?: string; status?: { not?: string } };
    if (!where.sessionId || where.status?.not !== 'error' || Object.keys(where).length !== 2)
      return query(args);
    if (whatIf === 'no-database') return [];
    if (two) {
      const cached = shift(contexts, where.sessionId);
      if (cached) return cached.slice(0, Number(args.take ?? 20));
    }
    const { rows } = await sql<TurnRow>(
      `SELECT ${TURN_COLUMNS} FROM turns WHERE session_id = $1 AND status <> 'error'
        ORDER BY created_at DESC, role ASC LIMIT $2`,
      [where.sessionId, Number(args.take ?? 20)],
    );
    return rows;
  };

  const insertTurns = async (turns: Record<string, unknown>[]) => {
    const values: unknown[] = [];
    const tuples = turns.map((d) => {
      const row = [
        randomUUID(),
        d.sessionId,
        d.role,
        d.content,
        d.status,
        d.requestId ?? null,
        d.provider ?? null,
        d.toolCalls === undefined ? null : JSON.stringify(d.toolCalls),
        d.error ?? null,
        d.createdAt ?? new Date(),
      ];
      const at = values.length;
      values.push(...row);
      return `(${row.map((_, i) => `$${at + i + 1}`).join(', ')})`;
    });
    const { rows } = await sql<TurnRow>(
      `INSERT INTO turns (id, session_id, role, content, status, request_id, provider, tool_calls, error, created_at)
       VALUES ${tuples.join(', ')} RETURNING ${TURN_COLUMNS}`,
      values,
    );
    return rows[rows.length - 1];
  };

  const create: Hook = async ({ args }) => {
    const data = args.data as Record<string, unknown>;
    if (whatIf === 'no-database') return { ...data, id: randomUUID() };
    if (two && data.role === 'user') {
      push(pendingUser, String(data.sessionId), data);
      return { ...data, id: randomUUID() };
    }
    const user = two ? shift(pendingUser, String(data.sessionId)) : undefined;
    return insertTurns(user ? [user, data] : [data]);
  };

  return db.$extends({
    query: {
      chatSession: { upsert: upsert as never },
      turn: { findMany: findMany as never, create: create as never },
    },
  }) as unknown as Db;
}
