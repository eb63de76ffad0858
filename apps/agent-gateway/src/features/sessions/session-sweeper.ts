import type { Logger } from 'pino';
import type { SessionRepository } from './session-repository.ts';

const HOUR = 3_600_000;

/** Deletes sessions idle for longer than the TTL, now and then every hour. Returns a stop function. */
export function startSessionSweeper(deps: {
  sessions: SessionRepository;
  ttlDays: number;
  logger: Logger;
}): () => void {
  const sweep = async () => {
    try {
      const deleted = await deps.sessions.sweep(new Date(Date.now() - deps.ttlDays * 24 * HOUR));
      if (deleted) deps.logger.info({ deleted }, 'swept idle chat sessions');
    } catch (err) {
      deps.logger.warn({ err }, 'session sweep failed');
    }
  };
  void sweep();
  const timer = setInterval(sweep, HOUR);
  timer.unref();
  return () => clearInterval(timer);
}
