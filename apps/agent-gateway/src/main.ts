import type { Server } from 'node:http';
import { createLogger, listen, loadOrExit, stopOnSignals } from '@pa/http-kit';
import { createApp } from './app.ts';
import { configWarnings, loadConfig, withStartEnv } from './config.ts';
import { createChannelUpdatesRepository } from './features/channels/channel-updates-repository.ts';
import { startChannelUpdateSweeper } from './features/channels/channel-update-sweeper.ts';
import { startSummaryReconcilerOf } from './features/daily-summary/summary-scheduling.ts';
import { createSessionRepository } from './features/sessions/session-repository.ts';
import { createPlatformEventsRepository } from './features/platform-events/platform-events-repository.ts';
import { startReceiptSweeper } from './features/platform-events/receipt-sweeper.ts';
import { startOpenTurnSweeper } from './features/sessions/open-turn-sweeper.ts';
import { startSessionSweeper } from './features/sessions/session-sweeper.ts';
import { openRuntime } from './open-runtime.ts';
import { startWorkerProcess } from './worker-process.ts';

// Reads config, opens the database (applying migrations) and Redis if reachable, listens, runs the worker
// process (pollers, summary queue) here too unless RUN_WORKER_IN_PROCESS=false, and shuts down cleanly on SIGINT/SIGTERM.
async function main(): Promise<void> {
  const config = loadOrExit(() => loadConfig(withStartEnv()));
  const logger = createLogger('agent-gateway', config.LOG_LEVEL);
  for (const warning of configWarnings(config)) logger.warn(warning);

  const runtime = await openRuntime(config, logger);
  const { db, redis, providers } = runtime;
  const app = createApp(runtime);
  const server: Server = await listen(app, config.port, config.HOST);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // turns a stopped (killed) process left without a reply are closed as interrupted
  const openTurns = startOpenTurnSweeper({ db, logger });
  const stopSweeper = startSessionSweeper({
    sessions: createSessionRepository(db),
    ttlDays: config.SESSION_TTL_DAYS,
    logger,
  });
  const stopUpdateSweeper = startChannelUpdateSweeper({
    updates: createChannelUpdatesRepository(db),
    logger,
  });
  const stopReceiptSweeper = config.PLATFORM_EVENT_WEBHOOKS
    ? startReceiptSweeper({ events: createPlatformEventsRepository(db), logger })
    : () => {};
  // the daily summary's schedulers made to match the database (worker.ts does the same: it is idempotent)
  const summaryReconciler = startSummaryReconcilerOf(runtime);

  logger.info(
    {
      url: `http://${config.HOST}:${port}`,
      database: runtime.databaseDescription,
      worker_in_process: config.RUN_WORKER_IN_PROCESS,
      redis: redis ? 'connected' : 'unavailable',
      providers: providers.names(),
      default_provider: providers.defaultName,
      web: config.WEB_ENABLED,
      flags: {
        AI_WORKERS_ENABLED: config.AI_WORKERS_ENABLED,
        PLATFORM_BRIDGE_ENABLED: config.PLATFORM_BRIDGE_ENABLED,
        PLATFORM_BRIDGE_WRITES: config.PLATFORM_BRIDGE_WRITES,
        ASSISTANT_DAILY_SUMMARY_ENABLED: config.ASSISTANT_DAILY_SUMMARY_ENABLED,
        PLATFORM_EVENT_WEBHOOKS: config.PLATFORM_EVENT_WEBHOOKS,
        EMAIL_INGESTION_ENABLED: config.EMAIL_INGESTION_ENABLED,
      },
      access: config.GATEWAY_AUTH,
      platform: config.PLATFORM_BASE_URL,
      telegram: config.TELEGRAM_API_BASE_URL,
      public_url: config.PUBLIC_BASE_URL ?? null,
    },
    config.WEB_ENABLED
      ? `agent-gateway listening on http://${config.HOST}:${port} (chat UI at /)`
      : `agent-gateway listening on http://${config.HOST}:${port} (WEB_ENABLED=false: no web UI or web chat routes)`,
  );

  // the pollers and the summary queue's worker in this process, as `npm start` runs it
  const worker = config.RUN_WORKER_IN_PROCESS ? startWorkerProcess(runtime) : null;

  // Open event streams would keep the server from closing: they get 5 s, then they are cut.
  stopOnSignals({
    server,
    logger,
    graceMs: 5_000,
    cleanup: async () => {
      stopSweeper();
      stopUpdateSweeper();
      stopReceiptSweeper();
      openTurns.stop();
      summaryReconciler?.stop();
      await worker?.stop();
      await runtime.close();
    },
  });
}

main().catch((err: unknown) => {
  console.error('agent-gateway failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
