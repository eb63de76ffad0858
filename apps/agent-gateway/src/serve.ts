import type { Server } from 'node:http';
import os from 'node:os';
import { createLogger, listen, loadOrExit, stopOnSignals } from '@pa/http-kit';
import { metricsWhere } from '@pa/telemetry';
import { stopTracing } from '@pa/telemetry/tracing';
import { createApp } from './app.ts';
import { composeGateway } from './compose/gateway.ts';
import { openRuntime } from './compose/open-runtime.ts';
import { startWorkerProcess } from './compose/worker-process.ts';
import { configWarnings, loadConfig, withStartEnv } from './config.ts';
import { startChannelUpdateSweeper } from './features/channels/channel-update-sweeper.ts';
import { startReceiptSweeper } from './features/platform-events/receipt-sweeper.ts';
import { startOpenTurnSweeper } from './features/sessions/open-turn-sweeper.ts';
import { startSessionSweeper } from './features/sessions/session-sweeper.ts';

// The agent-gateway process, started by main.ts once tracing is (or is not) on: reads config, opens the database
// (applying migrations) and Redis if reachable, listens, runs the worker process (pollers, summary queue) here too
// unless RUN_WORKER_IN_PROCESS=false, and shuts down cleanly on SIGINT/SIGTERM.
export async function serve(): Promise<void> {
  const config = loadOrExit(() => loadConfig(withStartEnv()));
  const logger = createLogger('agent-gateway', config.LOG_LEVEL);
  for (const warning of configWarnings(config)) logger.warn(warning);

  const runtime = await openRuntime(config, logger);
  const { redis, providers } = runtime;
  // every repository and service built once: the app and the in-process worker share them
  const gateway = composeGateway(runtime);
  const { repositories } = gateway;
  // recorded before the first turn; named once listening, which closes at once what a killed predecessor on this
  // address left open
  const lease = await gateway.startInstanceLease();
  const app = createApp(gateway);
  const server: Server = await listen(app, config.port, config.HOST);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  await lease?.claimName(`${os.hostname()} ${config.HOST}:${port}`);
  // turns a stopped (killed) process left without a reply are closed as interrupted
  const openTurns = startOpenTurnSweeper({ openTurns: repositories.openTurns, logger });
  const stopSweeper = startSessionSweeper({
    sessions: repositories.sessions,
    ttlDays: config.SESSION_TTL_DAYS,
    logger,
  });
  const stopUpdateSweeper = startChannelUpdateSweeper({
    updates: repositories.channelUpdates,
    logger,
  });
  const stopReceiptSweeper = config.PLATFORM_EVENT_WEBHOOKS
    ? startReceiptSweeper({ events: repositories.platformEvents, logger })
    : () => {};
  // the daily summary's schedulers made to match the database (worker.ts does the same: it is idempotent)
  const summaryReconciler = gateway.startSummaryReconciler();
  // METRICS_PORT: /metrics without a token on a listener of its own (METRICS_HOST, loopback by default)
  const metricsListener = await gateway.metrics.listen(config.METRICS_HOST, config.METRICS_PORT, (err) =>
    logger.error({ err }, 'metrics scrape failed'),
  );

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
      metrics: metricsWhere(metricsListener, {
        enabled: config.METRICS_ENABLED,
        token: config.METRICS_TOKEN,
      }),
    },
    config.WEB_ENABLED
      ? `agent-gateway listening on http://${config.HOST}:${port} (chat UI at /)`
      : `agent-gateway listening on http://${config.HOST}:${port} (WEB_ENABLED=false: no web UI or web chat routes)`,
  );

  // the pollers and the summary queue's worker in this process, as `npm start` runs it
  const worker = config.RUN_WORKER_IN_PROCESS ? startWorkerProcess(gateway) : null;

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
      await metricsListener?.close();
      await lease?.stop();
      await runtime.close();
      // last: the spans of the shutdown itself are sent too
      await stopTracing();
    },
  });
}
