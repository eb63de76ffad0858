import { SESSION_CURSOR, type SessionHistory, type SessionSummary } from '@pa/contracts';
import type { StatementRunner } from '../../lib/db.ts';
import {
  listCursor,
  type SessionListRow,
  type SessionRow,
  toHistoryTurn,
  toSessionHistory,
  toSessionSummary,
  type TurnRow,
} from './session-mapper.ts';
import type { SessionScope } from './session-owner.ts';

// Only so much of the first question is read: the title is 80 characters, and whitespace may be collapsed.
const TITLE_SOURCE_CHARS = 400;

const FIRST_QUESTION = `(SELECT left(t.content, ${TITLE_SOURCE_CHARS}) FROM turns t
     WHERE t.session_id = s.id AND t.role = 'user' ORDER BY t.seq LIMIT 1) AS "firstQuestion"`;

// What a history list says of each session (session-mapper.ts SessionListRow), `c.n` its turn count.
export const SUMMARY_COLUMNS = `s.external_id AS "sessionId",
  (extract(epoch FROM s.created_at) * 1000)::float8 AS "createdAt",
  (extract(epoch FROM s.last_active_at) * 1000)::float8 AS "lastActiveAt",
  c.n::float8 AS "turnCount", s.title,
  ${FIRST_QUESTION}`;

// One statement per page: the web session, its first question (the title) and one turn more than the page, which
// says whether an earlier page exists. The turns are read backwards along the (session_id, seq) index.
const HISTORY_PAGE = {
  name: 'gateway_session_history_page',
  text: `
SELECT s.id::text AS id,
  (extract(epoch FROM s.created_at) * 1000)::float8 AS "createdAt",
  (extract(epoch FROM s.last_active_at) * 1000)::float8 AS "lastActiveAt",
  s.title,
  ${FIRST_QUESTION},
  (SELECT COALESCE(json_agg(json_build_array(p.seq::text, p.role, p.content, p.status,
                                             (extract(epoch FROM p.created_at) * 1000)::float8)
                            ORDER BY p.seq), '[]')
     FROM (SELECT t.seq, t.role, t.content, t.status, t.created_at FROM turns t
           WHERE t.session_id = s.id AND ($2::bigint IS NULL OR t.seq < $2::bigint)
           ORDER BY t.seq DESC LIMIT $3) p)::text AS page
FROM chat_sessions s
WHERE s.channel = 'web' AND s.owner = $4 AND s.external_id = $1`,
};

// One statement for the whole list: each named web session with its turn count and first question, the ones
// without turns (never used, or cleared) left out.
const SESSION_LIST = {
  name: 'gateway_session_list',
  text: `
SELECT ${SUMMARY_COLUMNS}
FROM chat_sessions s
CROSS JOIN LATERAL (SELECT count(*) AS n FROM turns t WHERE t.session_id = s.id) c
WHERE s.channel = 'web' AND s.owner = $2 AND s.external_id = ANY($1::text[]) AND c.n > 0
ORDER BY s.last_active_at DESC, s.external_id`,
};

// One page of a caller's own conversations, newest first: a device's (along the (channel, owner, device_id,
// last_active_at) index), or every one of the operator's owner. The search reads the title and every turn of the
// caller's conversations only, so its cost is bounded by one owner's history; the cursor is the last row's
// (last_active_at, external_id), so a page never repeats or skips a conversation that did not move.
const SESSION_SEARCH = {
  name: 'gateway_session_search',
  text: `
SELECT ${SUMMARY_COLUMNS}
FROM chat_sessions s
CROSS JOIN LATERAL (SELECT count(*) AS n FROM turns t WHERE t.session_id = s.id) c
WHERE s.channel = 'web' AND s.owner = $1
  AND ($2::uuid IS NULL OR s.device_id = $2::uuid)
  AND s.last_active_at >= $3::timestamptz
  AND c.n > 0
  AND ($4::text IS NULL
       OR s.title ILIKE $4::text ESCAPE '\\'
       OR EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND t.content ILIKE $4::text ESCAPE '\\'))
  AND ($5::bigint IS NULL
       OR (s.last_active_at, s.external_id)
          < (timestamptz 'epoch' + $5::bigint * interval '1 millisecond', $6::text))
ORDER BY s.last_active_at DESC, s.external_id DESC
LIMIT $7`,
};

/** A LIKE pattern that matches `q` anywhere, its own `%`, `_` and `\` taken literally. */
const containing = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface SessionSearch {
  q?: string | undefined;
  limit: number;
  /** a cursor from the previous page (SESSION_CURSOR) */
  before?: string | undefined;
}

/**
 * The web conversation history the UI reads back: the caller's conversation list, pages of a session's turns, and
 * the browser's own ids. Always within one owner (a device's workspace, or the operator's): another owner's ids read
 * as unknown. Conversations idle for longer than the retention (`ttlDays`) are about to be swept and not listed.
 */
export function createSessionHistory(statements: StatementRunner, opts: { ttlDays?: number } = {}) {
  const retainedSince = () =>
    opts.ttlDays === undefined ? new Date(0) : new Date(Date.now() - opts.ttlDays * 86_400_000);

  return {
    /** The page of `limit` turns before `before` (the latest when absent); null when no such web session. */
    async page(
      owner: string,
      sessionId: string,
      limit: number,
      before: string | undefined,
    ): Promise<SessionHistory | null> {
      const [row] = await statements<SessionRow & { page: string }>(HISTORY_PAGE, [
        sessionId,
        before ?? null,
        limit + 1,
        owner,
      ]);
      if (!row) return null;
      const rows = JSON.parse(row.page) as TurnRow[];
      // rows are oldest first; the one beyond `limit` is the oldest, and only says that more exist
      const more = rows.length > limit;
      const turns = (more ? rows.slice(1) : rows).map(toHistoryTurn);
      return toSessionHistory(sessionId, row, turns, more ? turns[0]!.id : null);
    },

    /** The named web sessions that hold turns, most recently active first. */
    async list(owner: string, sessionIds: string[]): Promise<SessionSummary[]> {
      const rows = await statements<SessionListRow>(SESSION_LIST, [sessionIds, owner]);
      return rows.map(toSessionSummary);
    },

    /** One page of the scope's conversations that hold turns (and contain `q`), most recently active first. */
    async search(
      scope: SessionScope,
      search: SessionSearch,
    ): Promise<{ sessions: SessionSummary[]; nextBefore: string | null }> {
      const cursor = search.before ? SESSION_CURSOR.exec(search.before) : null;
      const rows = await statements<SessionListRow>(SESSION_SEARCH, [
        scope.owner,
        scope.deviceId,
        retainedSince().toISOString(),
        search.q === undefined ? null : containing(search.q),
        cursor ? cursor[1]! : null,
        cursor ? cursor[2]! : null,
        search.limit + 1,
      ]);
      const page = rows.slice(0, search.limit);
      return {
        sessions: page.map(toSessionSummary),
        nextBefore: rows.length > search.limit ? listCursor(page.at(-1)!) : null,
      };
    },
  };
}
export type SessionHistoryReader = ReturnType<typeof createSessionHistory>;
