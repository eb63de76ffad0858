import { createLogger, loadOrExit } from '@pa/http-kit';
import { stopTracing } from '@pa/telemetry/tracing';
import { configWarnings, loadConfig, withStartEnv } from './config.ts';
import { composeGateway } from './compose/gateway.ts';
import { openRuntime } from './compose/open-runtime.ts';
import { startWorkerProcess } from './compose/worker-process.ts';

// The worker process on its own (docker compose's summary-worker service): the Telegram channels' pollers and the
// daily-summary queue's worker. It opens what the gateway opens, serves no port, and on SIGTERM/SIGINT stops them
// (the long polls are aborted, a running turn gets a grace period, a running summary finishes, the locks are
// released).
// `npm start` runs the same startWorkerProcess() inside the gateway instead (RUN_WORKER_IN_PROCESS). Started by
// worker.ts once tracing is (or is not) on.
export async function serveWorker(): Promise<void> {
  const config = loadOrExit(() => loadConfig(withStartEnv()));
  const logger = createLogger('agent-gateway-worker', config.LOG_LEVEL);
  for (const warning of configWarnings(config)) logger.warn(warning);
  const runtime = await openRuntime(config, logger);
  const gateway = composeGateway(runtime);
  // before the pollers answer any turn: should this process die mid-turn, others close its turns soon after
  const lease = await gateway.startInstanceLease();
  const worker = startWorkerProcess(gateway);
  // the daily summary's schedulers made to match the database (the gateway does the same: it is idempotent)
  const summaryReconciler = gateway.startSummaryReconciler();
  // METRICS_PORT: this process's metrics (the summary jobs' durations are counted where they run); it serves no
  // other port, so METRICS_TOKEN has no path to guard here
  const metricsListener = await gateway.metrics.listen(config.METRICS_HOST, config.METRICS_PORT, (err) =>
    logger.error({ err }, 'metrics scrape failed'),
  );
  logger.info(
    {
      database: runtime.databaseDescription,
      redis: runtime.redis ? 'connected' : 'unavailable',
      metrics: metricsListener
        ? `${metricsListener.url}/metrics`
        : config.METRICS_ENABLED
          ? 'not served'
          : 'off',
    },
    'agent-gateway worker process running',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    summaryReconciler?.stop();
    await worker.stop();
    await metricsListener?.close();
    await lease?.stop();
    await runtime.close();
    logger.info('stopped');
    await stopTracing();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
