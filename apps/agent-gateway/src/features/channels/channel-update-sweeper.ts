import type { Logger } from 'pino';
import type { ChannelUpdatesRepository } from './channel-updates-repository.ts';
import { describeError } from './safe-error.ts';

const HOUR = 3_600_000;
/** How long a taken-in update key is remembered: far longer than any platform redelivers an update. */
export const UPDATE_KEYS_KEPT_DAYS = 7;

/** Deletes channel update keys older than a week, now and then every hour. Returns a stop function. */
export function startChannelUpdateSweeper(deps: {
  updates: ChannelUpdatesRepository;
  logger: Logger;
}): () => void {
  const sweep = async () => {
    try {
      const deleted = await deps.updates.sweep(new Date(Date.now() - UPDATE_KEYS_KEPT_DAYS * 24 * HOUR));
      if (deleted) deps.logger.info({ deleted }, 'swept old channel update keys');
    } catch (err) {
      deps.logger.warn({ error: describeError(err) }, 'channel update sweep failed');
    }
  };
  void sweep();
  const timer = setInterval(sweep, HOUR);
  timer.unref();
  return () => clearInterval(timer);
}
