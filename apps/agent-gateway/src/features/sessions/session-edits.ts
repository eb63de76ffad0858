import type { SessionSummary } from '@pa/contracts';
import type { StatementRunner } from '../../lib/db.ts';
import { type SessionListRow, toSessionSummary } from './session-mapper.ts';
import type { SessionScope } from './session-owner.ts';
import { SUMMARY_COLUMNS } from './session-history.ts';

// Which of the scope's web sessions a caller may change: a device its own and those no device has claimed (started
// before devices were recorded, and still in its browser's list); the operator every one of its owner. Another
// device's or owner's conversation is not found, as an unknown id is.
const MINE = `s.channel = 'web' AND s.owner = $1 AND s.external_id = $2
  AND ($3::uuid IS NULL OR s.device_id IS NULL OR s.device_id = $3::uuid)`;

const RENAME = {
  name: 'gateway_session_rename',
  text: `
WITH renamed AS (
  UPDATE chat_sessions s SET title = $4::text WHERE ${MINE}
  RETURNING s.id, s.external_id, s.created_at, s.last_active_at, s.title
)
SELECT ${SUMMARY_COLUMNS}
FROM renamed s
CROSS JOIN LATERAL (SELECT count(*) AS n FROM turns t WHERE t.session_id = s.id) c`,
};

// The turns go with their session (ON DELETE CASCADE).
const DELETE = {
  name: 'gateway_session_delete',
  text: `DELETE FROM chat_sessions s WHERE ${MINE} RETURNING s.id::text AS id`,
};

/** Renaming and deleting the caller's web conversations (the history list's menu). */
export function createSessionEdits(deps: {
  statements: StatementRunner;
  /** drops a deleted session's cached context (session-repository.ts) */
  forgetContext: (sessionId: string) => void;
}) {
  const { statements } = deps;
  return {
    /** Sets the title (null: back to the first question); null when the scope has no such conversation. */
    async rename(
      scope: SessionScope,
      sessionId: string,
      title: string | null,
    ): Promise<SessionSummary | null> {
      const [row] = await statements<SessionListRow>(RENAME, [scope.owner, sessionId, scope.deviceId, title]);
      return row ? toSessionSummary(row) : null;
    },

    /** Deletes the conversation and its turns; false when the scope has no such conversation. */
    async remove(scope: SessionScope, sessionId: string): Promise<boolean> {
      const rows = await statements<{ id: string }>(DELETE, [scope.owner, sessionId, scope.deviceId]);
      for (const r of rows) deps.forgetContext(r.id);
      return rows.length > 0;
    },
  };
}
export type SessionEdits = ReturnType<typeof createSessionEdits>;
