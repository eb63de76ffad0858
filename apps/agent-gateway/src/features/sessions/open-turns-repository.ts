import type { Db } from '../../lib/db.ts';

// The turns a stopped process left without a reply (see open-turn-sweeper.ts for the rule).
export function createOpenTurnsRepository(db: Db) {
  return {
    /**
     * Marks `interrupted` every user turn created before `before` that has no reply, in sessions active since
     * `activeSince` (a session's last_active_at is bumped when a turn begins, so it is never older than its open
     * turn; the bound keeps each periodic sweep to recently active sessions, through their index). Returns how many.
     */
    close(opts: { before: Date; activeSince?: Date | undefined }): Promise<number> {
      const since = opts.activeSince ?? new Date(0);
      return db.$executeRaw`
    UPDATE turns u
    SET status = 'interrupted', error = 'The gateway stopped before this turn was answered.'
    FROM chat_sessions s
    WHERE s.id = u.session_id
      AND s.last_active_at >= ${since}
      AND u.role = 'user'
      AND u.status = 'complete'
      AND u.created_at < ${opts.before}
      AND CASE
        WHEN u.request_id IS NOT NULL THEN NOT EXISTS (
          SELECT 1 FROM turns a
          WHERE a.session_id = u.session_id AND a.request_id = u.request_id AND a.role = 'assistant')
        ELSE (SELECT n.role FROM turns n
              WHERE n.session_id = u.session_id AND n.seq > u.seq
              ORDER BY n.seq LIMIT 1) IS DISTINCT FROM 'assistant'
      END`;
    },
  };
}
export type OpenTurnsRepository = ReturnType<typeof createOpenTurnsRepository>;
