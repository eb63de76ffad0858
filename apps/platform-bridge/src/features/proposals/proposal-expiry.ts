import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';
import type { Db } from '../../lib/db.ts';
import { type PeriodicTask, startPeriodicTask } from '@pa/http-kit';
import { createProposalEvents } from './proposal-events.ts';
import { expiredNote, IDEMPOTENCY_TTL_HOURS, SYSTEM_ACTOR } from './proposal-rules.ts';
import { createProposalsRepository } from './proposals-repository.ts';

/** How often the sweep runs. */
const SWEEP_EVERY_MS = 60_000;
/** Rows per statement: each batch is its own short transaction, so a large backlog never holds many locks. */
const BATCH = 500;

export interface SweepResult {
  expired: number;
  idempotencyKeysDeleted: number;
}

/**
 * One sweep at the clock's time: pending proposals past `expires_at` become `expired` (decided by `system`, with
 * an audit entry), and Idempotency-Key records older than 24 h are deleted. Safe to run in several processes at
 * once: due rows are taken with FOR UPDATE SKIP LOCKED, so no proposal is expired twice.
 */
export async function sweepProposals(deps: {
  db: Db;
  clock: Clock;
  ttlDays: number;
  batch?: number;
}): Promise<SweepResult> {
  const repo = createProposalsRepository(deps.db);
  const events = createProposalEvents({ proposals: repo, clock: deps.clock });
  const batch = deps.batch ?? BATCH;
  const now = deps.clock.now();
  const note = expiredNote(deps.ttlDays);
  let expired = 0;
  for (;;) {
    // the batch and its `proposal.expired` events commit together
    const n = await deps.db.$transaction(async (tx) => {
      const due = await repo.expireDue(now, note, SYSTEM_ACTOR, batch, tx);
      await events.recordDecisions(tx, due);
      return due.length;
    });
    expired += n;
    if (n < batch) break;
  }
  const before = new Date(now.getTime() - IDEMPOTENCY_TTL_HOURS * 3_600_000);
  let idempotencyKeysDeleted = 0;
  for (;;) {
    const n = await repo.deleteIdempotencyKeysBefore(before, batch);
    idempotencyKeysDeleted += n;
    if (n < batch) break;
  }
  return { expired, idempotencyKeysDeleted };
}

// Runs the sweep at start and every minute (like the compliance rollup refresher); main.ts stops it on shutdown.
export function startProposalExpiry(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  ttlDays: number;
  everyMs?: number;
}): PeriodicTask {
  const { logger } = deps;
  return startPeriodicTask({
    everyMs: deps.everyMs ?? SWEEP_EVERY_MS,
    // tried again at the next tick
    onError: (err) => logger.error({ err }, 'proposal sweep failed'),
    run: async () => {
      const r = await sweepProposals(deps);
      if (r.expired || r.idempotencyKeysDeleted) logger.info(r, 'proposal sweep');
    },
  });
}
