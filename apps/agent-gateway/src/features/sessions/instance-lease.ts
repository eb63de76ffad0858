import type { Logger } from 'pino';
import type { OpenTurnsRepository } from './open-turns-repository.ts';

// A chat turn's user message is stored when the turn begins and its reply when it ends, so a process killed in
// between (kill -9, OOM, power) leaves the turn open, and a reconnect with its requestId would wait for a reply
// that never comes. Every process that answers turns holds a lease: it records itself at start, renews the lease
// every few seconds, and stamps the user turns it begins with its id. Then:
//
// - a process that stops cleanly ends its lease at once;
// - every live process, at each renewal, closes as `interrupted` the open turns of processes whose lease ran out
//   (seconds after a kill, not the turn time limit of open-turn-sweeper.ts, which remains for turns stored
//   before leases existed);
// - a process that serves HTTP names itself by host and listening address once it listens: the address was free,
//   so an earlier process of that name is gone, and its turns are closed at once (a restart after kill -9 replays
//   the interrupted turn to the browser's reconnect instead of answering 409 turn-in-progress).

/** How often a process renews its lease (and looks for processes whose lease ran out). */
export const LEASE_RENEW_MS = 5_000;
/** A lease not renewed for this long belongs to a process that is gone. */
export const LEASE_MS = 20_000;

export interface InstanceLease {
  /** Names the process once it listens, closing the open turns of the previous process of that name. */
  claimName(name: string): Promise<void>;
  /** Stops renewing and ends the lease (a clean stop). */
  stop(): Promise<void>;
}

/** Records the process's lease (before it answers any turn) and renews it until stopped. */
export async function startInstanceLease(deps: {
  id: string;
  openTurns: OpenTurnsRepository;
  logger: Logger;
  /** for tests: the defaults are LEASE_RENEW_MS and LEASE_MS */
  renewMs?: number;
  leaseMs?: number;
}): Promise<InstanceLease> {
  const { id, openTurns, logger } = deps;
  const leaseMs = deps.leaseMs ?? LEASE_MS;
  await openTurns.renew(id);
  const beat = async () => {
    try {
      await openTurns.renew(id);
      const closed = await openTurns.takeOverExpired(leaseMs);
      if (closed) logger.warn({ closed }, 'closed chat turns left unanswered by a stopped process');
    } catch (err) {
      // the database is away: the lease is renewed at the next beat (other processes wait LEASE_MS first)
      logger.warn({ error: (err as Error).message }, 'renewing the instance lease failed');
    }
  };
  // one beat at a time (a slow one is not queued behind), and stop() waits for the last: a renewal after the
  // lease ended would revive it
  let running: Promise<void> | null = null;
  const tick = () => {
    running ??= beat().finally(() => {
      running = null;
    });
  };
  tick();
  const timer = setInterval(tick, deps.renewMs ?? LEASE_RENEW_MS);
  timer.unref();
  return {
    async claimName(name) {
      const closed = await openTurns.claimName(id, name);
      if (closed) {
        logger.warn(
          { closed, name },
          'closed chat turns the previous process at this address left unanswered',
        );
      }
    },
    async stop() {
      clearInterval(timer);
      await running;
      await openTurns.expire(id).catch(() => {});
    },
  };
}
