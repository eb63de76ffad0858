import type { SessionHistory, SessionSummary } from '@pa/contracts';
import type { StatementRunner } from '../../lib/db.ts';
import {
  type SessionListRow,
  type SessionRow,
  toHistoryTurn,
  toSessionHistory,
  toSessionSummary,
  type TurnRow,
} from './session-mapper.ts';

// Only so much of the first question is read: the title is 80 characters, and whitespace may be collapsed.
const TITLE_SOURCE_CHARS = 400;

// One statement per page: the web session, its first question (the title) and one turn more than the page, which
// says whether an earlier page exists. The turns are read backwards along the (session_id, seq) index.
const HISTORY_PAGE = {
  name: 'gateway_session_history_page',
  text: `
SELECT s.id::text AS id,
  (extract(epoch FROM s.created_at) * 1000)::float8 AS "createdAt",
  (extract(epoch FROM s.last_active_at) * 1000)::float8 AS "lastActiveAt",
  (SELECT left(t.content, ${TITLE_SOURCE_CHARS}) FROM turns t
     WHERE t.session_id = s.id AND t.role = 'user' ORDER BY t.seq LIMIT 1) AS "firstQuestion",
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
SELECT s.external_id AS "sessionId",
  (extract(epoch FROM s.created_at) * 1000)::float8 AS "createdAt",
  (extract(epoch FROM s.last_active_at) * 1000)::float8 AS "lastActiveAt",
  c.n::float8 AS "turnCount",
  (SELECT left(t.content, ${TITLE_SOURCE_CHARS}) FROM turns t
     WHERE t.session_id = s.id AND t.role = 'user' ORDER BY t.seq LIMIT 1) AS "firstQuestion"
FROM chat_sessions s
CROSS JOIN LATERAL (SELECT count(*) AS n FROM turns t WHERE t.session_id = s.id) c
WHERE s.channel = 'web' AND s.owner = $2 AND s.external_id = ANY($1::text[]) AND c.n > 0
ORDER BY s.last_active_at DESC, s.external_id`,
};

/**
 * The web conversation history the UI reads back: pages of a session's turns, and the browser's session list.
 * Always within one owner (a device's workspace, or the operator's): another owner's ids read as unknown.
 */
export function createSessionHistory(statements: StatementRunner) {
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
  };
}
export type SessionHistoryReader = ReturnType<typeof createSessionHistory>;
