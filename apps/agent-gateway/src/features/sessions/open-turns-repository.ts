import { type Db, Prisma } from '../../lib/db.ts';

// The turns a stopped process left without a reply (open-turn-sweeper.ts and instance-lease.ts say when a turn
// counts as left), and the gateway processes' leases.

const INTERRUPTED = 'The gateway stopped before this turn was answered.';

// A user turn `u` with no reply: the assistant turn with the same requestId, or, for turns without one, the turn
// right after it in the session's order.
const UNANSWERED = Prisma.sql`u.role = 'user'
      AND u.status = 'complete'
      AND CASE
        WHEN u.request_id IS NOT NULL THEN NOT EXISTS (
          SELECT 1 FROM turns a
          WHERE a.session_id = u.session_id AND a.request_id = u.request_id AND a.role = 'assistant')
        ELSE (SELECT n.role FROM turns n
              WHERE n.session_id = u.session_id AND n.seq > u.seq
              ORDER BY n.seq LIMIT 1) IS DISTINCT FROM 'assistant'
      END`;

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
    SET status = 'interrupted', error = ${INTERRUPTED}
    FROM chat_sessions s
    WHERE s.id = u.session_id
      AND s.last_active_at >= ${since}
      AND u.created_at < ${opts.before}
      AND ${UNANSWERED}`;
    },

    /**
     * Records or renews a process's lease from now (the database's clock, as every lease comparison); a lease
     * another process already took over is recorded again.
     */
    renew: (id: string) =>
      db.$executeRaw`INSERT INTO gateway_instances (id) VALUES (${id}::uuid)
        ON CONFLICT (id) DO UPDATE SET heartbeat_at = CURRENT_TIMESTAMP`,

    /** A clean stop: the lease is over now, and whatever turn the process left is closed by the next sweep. */
    expire: (id: string) =>
      db.$executeRaw`UPDATE gateway_instances SET heartbeat_at = 'epoch' WHERE id = ${id}::uuid`,

    /**
     * Names the process (its host and listening address) and takes over from its predecessors of the same name:
     * a process that had this address before is gone, whatever its lease says, so its open turns are closed at
     * once. Returns how many turns were closed.
     */
    claimName: (id: string, name: string) =>
      db.$transaction(async (tx) => {
        await tx.$executeRaw`UPDATE gateway_instances SET name = ${name} WHERE id = ${id}::uuid`;
        const gone = await tx.$queryRaw<Array<{ id: string }>>`
          SELECT id::text FROM gateway_instances WHERE name = ${name} AND id <> ${id}::uuid FOR UPDATE`;
        return closeTurnsOf(
          tx,
          gone.map((g) => g.id),
        );
      }),

    /**
     * Closes the open turns of every process whose lease ran out more than `leaseMs` ago, and forgets those
     * processes. Returns how many turns were closed.
     */
    takeOverExpired: (leaseMs: number) =>
      db.$transaction(async (tx) => {
        // SKIP LOCKED: two live processes sweeping at once take each dead one once
        const gone = await tx.$queryRaw<Array<{ id: string }>>`
          SELECT id::text FROM gateway_instances
          WHERE heartbeat_at < CURRENT_TIMESTAMP - make_interval(secs => ${leaseMs / 1000}::float8)
          FOR UPDATE SKIP LOCKED`;
        return closeTurnsOf(
          tx,
          gone.map((g) => g.id),
        );
      }),
  };
}

async function closeTurnsOf(tx: Prisma.TransactionClient, instances: string[]): Promise<number> {
  if (instances.length === 0) return 0;
  const closed = await tx.$executeRaw`
    UPDATE turns u
    SET status = 'interrupted', error = ${INTERRUPTED}
    WHERE u.instance_id = ANY(${instances}::uuid[]) AND ${UNANSWERED}`;
  await tx.$executeRaw`DELETE FROM gateway_instances WHERE id = ANY(${instances}::uuid[])`;
  return closed;
}
export type OpenTurnsRepository = ReturnType<typeof createOpenTurnsRepository>;
