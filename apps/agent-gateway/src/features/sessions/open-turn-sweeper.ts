import type { Logger } from 'pino';
import type { OpenTurnsRepository } from './open-turns-repository.ts';

// A chat turn is two rows: the user's message, stored when the turn begins, and the reply, stored when it ends
// (complete, interrupted or error). A process killed in between (kill -9, OOM, power) leaves the user's turn
// open: no reply, and a reconnect with its requestId would wait for one forever. This closes such turns by
// marking the user's turn `interrupted` (no row is added, so the session's order is untouched, and a repeated
// requestId then replays an empty reply instead of waiting).
//
// Turns stamped with their process's lease are closed within seconds of its death (instance-lease.ts). This sweep is
// the backstop for the rest: turns stored before leases were recorded, or by a process composed without one.
//
// The rule, which must never close a turn another running instance is still answering: every turn is cut off
// after TURN_TIME_LIMIT_MS (chat-service aborts it and stores its reply as `interrupted`), so a user turn older
// than that limit plus OPEN_TURN_GRACE_MS (time to store the reply, and clock skew between instances) with no
// reply can only belong to a process that is gone. Its "reply" is the assistant turn with the same requestId,
// or, for turns without one, the turn right after it in the session's order.

/** The longest a chat turn may run: then it is aborted and stored as interrupted. */
export const TURN_TIME_LIMIT_MS = 10 * 60_000;
/** How much older than the limit an unanswered turn must be before it is deemed abandoned. */
export const OPEN_TURN_GRACE_MS = 60_000;
const SWEEP_EVERY_MS = 60_000;

/**
 * At start, closes every abandoned turn; then, every minute, those that have since aged past the limit (a
 * process killed just before this one started leaves turns that are still too young at start).
 */
export function startOpenTurnSweeper(deps: {
  openTurns: OpenTurnsRepository;
  logger: Logger;
  /** for tests; the default is the turn time limit plus the grace */
  abandonAfterMs?: number;
  everyMs?: number;
}): { stop(): void; done: Promise<void> } {
  const age = deps.abandonAfterMs ?? TURN_TIME_LIMIT_MS + OPEN_TURN_GRACE_MS;
  const every = deps.everyMs ?? SWEEP_EVERY_MS;
  let activeSince: Date | undefined;
  const sweep = async () => {
    const before = new Date(Date.now() - age);
    try {
      const closed = await deps.openTurns.close({ before, activeSince });
      // the next sweep looks at sessions active since this cutoff (with a margin for slow statements)
      activeSince = new Date(before.getTime() - every);
      if (closed) deps.logger.warn({ closed }, 'closed chat turns left unanswered by a stopped process');
    } catch (err) {
      deps.logger.warn({ error: (err as Error).message }, 'open turn sweep failed');
    }
  };
  const done = sweep();
  const timer = setInterval(() => void sweep(), every);
  timer.unref();
  return { stop: () => clearInterval(timer), done };
}
