import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { AppDeps } from '../../app.ts';
import { createBindingService } from '../binding/binding-service.ts';
import { createKeyCipher } from '../binding/key-cipher.ts';
import { createChannelSecrets } from '../channels/channel-secrets.ts';
import type { ChannelConnectors } from '../channels/channel-connector.ts';
import { createChannelsRepository } from '../channels/channels-repository.ts';
import { createChannelConnectors } from '../channels/channels.ts';
import { SummaryFailure } from './briefing-source.ts';
import { ownEmailReaders } from '../email/worker-email-activity.ts';
import { createWorkersRepository } from '../workers/workers-repository.ts';
import { createSummaryDelivery } from './summary-delivery.ts';
import { writeSummaryBriefing } from './summary-briefing.ts';
import { SUMMARY_QUEUE_NAME, type SummaryJobData } from './summary-queue.ts';
import { processSummaryJob, type SummaryJobOutcome, type SummaryProcessorDeps } from './summary-processor.ts';
import { createSummaryConfigRepository } from './summary-config-repository.ts';
import { createSummaryRunsRepository } from './summary-runs-repository.ts';

// The daily-summary queue's BullMQ Worker: it hands each job to processSummaryJob. It runs in the worker process
// (src/worker.ts, docker compose's summary-worker) and inside the gateway under `npm start`. BullMQ needs a
// connection of its own that never gives up on a command (maxRetriesPerRequest: null), so it opens one.

export interface SummaryWorkerOptions {
  /** jobs processed at once by this process (the bridge and the channel are the slow parts) */
  concurrency?: number;
  /** how long close() waits for running jobs before it stops waiting (Redis gone, a call hung) */
  closeGraceMs?: number;
}

export interface SummaryWorker {
  worker: Worker<SummaryJobData, SummaryJobOutcome>;
  /** stops taking jobs and lets the running ones finish, then closes its connection */
  close(): Promise<void>;
}

/** The processor's dependencies, built from the app's (the channel connectors as createChannels builds them). */
export function summaryProcessorDeps(deps: AppDeps): SummaryProcessorDeps {
  const { config, db, logger } = deps;
  const connectors: ChannelConnectors = createChannelConnectors(config, logger);
  const binding = createBindingService({
    db,
    workers: createWorkersRepository(db),
    bridge: deps.smokeTest,
    cipher: createKeyCipher(deps.secretKey),
    logger,
  });
  const ownEmail = ownEmailReaders(config.EMAIL_INGESTION_ENABLED, db);
  return {
    runs: createSummaryRunsRepository(db),
    config: createSummaryConfigRepository(db).delivery,
    async bridgeFor(workerId) {
      if (!config.PLATFORM_BRIDGE_ENABLED)
        return { skipped: 'the platform bridge is turned off on this gateway (PLATFORM_BRIDGE_ENABLED).' };
      let credentials;
      try {
        credentials = await binding.credentials(workerId);
      } catch (err) {
        // only a key sealed with another GATEWAY_SECRET_KEY fails to open; a database error fails the query above
        if (!(err instanceof Error && /unable to authenticate|secret format/i.test(err.message))) throw err;
        throw new SummaryFailure(
          'the stored platform key could not be opened (was GATEWAY_SECRET_KEY changed?): bind the assistant again.',
          true,
        );
      }
      if (!credentials) return { skipped: 'the worker is no longer bound to a platform tenant.' };
      return { client: deps.platform.forKey(credentials.apiKey), ownEmail: ownEmail?.(workerId) };
    },
    write: writeSummaryBriefing,
    deliver: createSummaryDelivery({
      channels: createChannelsRepository(db),
      secrets: createChannelSecrets(createKeyCipher(deps.secretKey)),
      connectors,
    }),
    logger,
  };
}

export function startSummaryWorker(deps: AppDeps, opts: SummaryWorkerOptions = {}): SummaryWorker {
  const { config, logger } = deps;
  const processorDeps = summaryProcessorDeps(deps);
  const connection = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
  // ioredis reports a lost connection itself and reconnects; an unhandled 'error' event would crash the process
  connection.on('error', () => {});
  const worker = new Worker<SummaryJobData, SummaryJobOutcome>(
    SUMMARY_QUEUE_NAME,
    (job, _token, signal) => processSummaryJob(job, processorDeps, signal),
    { connection, prefix: config.SUMMARY_QUEUE_PREFIX, concurrency: opts.concurrency ?? 8 },
  );
  // one warning per outage, not one per reconnect attempt
  let down = false;
  worker.on('error', (err) => {
    if (down) return;
    down = true;
    logger.warn(
      { error: err.message },
      'the daily summary worker lost Redis; summaries wait until it is back',
    );
  });
  connection.on('ready', () => {
    if (down) logger.info('the daily summary worker has Redis again');
    down = false;
  });

  let closing: Promise<void> | null = null;
  return {
    worker,
    close() {
      closing ??= (async () => {
        // close() stops taking jobs and waits for the running ones; bounded, so that a process can still end
        let timer: NodeJS.Timeout | undefined;
        const graceOver = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), opts.closeGraceMs ?? 60_000);
        });
        const closed = await Promise.race([worker.close().then(() => 'closed' as const), graceOver]);
        clearTimeout(timer);
        if (closed === 'late') {
          logger.warn('daily summaries still running at shutdown: stopped; their jobs are retried later');
          await worker.close(true).catch(() => {});
        }
        connection.disconnect();
      })();
      return closing;
    },
  };
}
