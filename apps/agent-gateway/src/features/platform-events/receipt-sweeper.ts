import type { Logger } from 'pino';
import type { PlatformEventsRepository } from './platform-events-repository.ts';

const HOUR = 3_600_000;
/** How long a `webhook-id` is remembered: longer than the platform's last retry (about 2 days after the first). */
export const RECEIPT_DAYS = 7;

/** Forgets event receipts older than 7 days, now and then every hour. Returns a stop function. */
export function startReceiptSweeper(deps: { events: PlatformEventsRepository; logger: Logger }): () => void {
  const sweep = async () => {
    try {
      const deleted = await deps.events.sweepReceipts(new Date(Date.now() - RECEIPT_DAYS * 24 * HOUR));
      if (deleted) deps.logger.info({ deleted }, 'swept old platform event receipts');
    } catch (err) {
      deps.logger.warn({ err }, 'platform event receipt sweep failed');
    }
  };
  void sweep();
  const timer = setInterval(sweep, HOUR);
  timer.unref();
  return () => clearInterval(timer);
}
