import { bullmqTelemetry } from '@pa/telemetry';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { SUMMARY_QUEUE_NAME, type SummaryJobData } from './summary-queue.ts';
import { processSummaryJob, type SummaryJobOutcome, type SummaryProcessorDeps } from './summary-processor.ts';

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

export function startSummaryWorker(
  deps: {
    config: Pick<Config, 'REDIS_URL' | 'SUMMARY_QUEUE_PREFIX'>;
    logger: Logger;
    processor: SummaryProcessorDeps;
  },
  opts: SummaryWorkerOptions = {},
): SummaryWorker {
  const { config, logger, processor: processorDeps } = deps;
  const connection = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
  // ioredis reports a lost connection itself and reconnects; an unhandled 'error' event would crash the process
  connection.on('error', () => {});
  const worker = new Worker<SummaryJobData, SummaryJobOutcome>(
    SUMMARY_QUEUE_NAME,
    (job, _token, signal) => processSummaryJob(job, processorDeps, signal),
    {
      connection,
      prefix: config.SUMMARY_QUEUE_PREFIX,
      concurrency: opts.concurrency ?? 8,
      // with tracing on, each job runs in a consumer span, a child of the span that added it
      telemetry: bullmqTelemetry(),
    },
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
