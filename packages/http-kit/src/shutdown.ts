import type { Server } from 'node:http';
import type { Logger } from 'pino';

/**
 * Stops on SIGINT/SIGTERM, once: no new connections, idle ones closed, busy ones (e.g. open event streams) cut
 * after `graceMs`, then `cleanup` (clients, pools, the embedded database), then exit.
 */
export function stopOnSignals(opts: {
  server: Server;
  logger: Logger;
  graceMs: number;
  cleanup: () => Promise<void>;
}) {
  const { server, logger } = opts;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => server.closeAllConnections(), opts.graceMs).unref();
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    clearTimeout(force);
    await opts.cleanup();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
