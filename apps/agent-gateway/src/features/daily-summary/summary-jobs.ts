import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

// The daily-summary queue's shared facts: what the schedulers (summary-queue.ts) put on the queue and what the
// processor (summary-processor.ts) takes off it. A scheduled job carries `{ workerId }`; a run-now job also
// carries the id of the run row the route already created.

export const SUMMARY_QUEUE_NAME = 'daily-summary';
export const SUMMARY_JOB_NAME = 'daily-summary';
/** Attempts of one run: a bridge or channel failure is retried with exponential backoff, then the run fails. */
export const SUMMARY_ATTEMPTS = 3;
export const SUMMARY_BACKOFF_MS = 30_000;

export interface SummaryJobData {
  workerId: string;
  /** run-now only: the queued run this job carries out */
  runId?: string;
}

export function summaryJobOptions(backoffMs: number = SUMMARY_BACKOFF_MS) {
  return {
    attempts: SUMMARY_ATTEMPTS,
    backoff: { type: 'exponential' as const, delay: backoffMs },
    // a finished job's outcome lives in summary_runs; Redis keeps only a short tail for inspection
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 500 },
  };
}

/** Puts a run-now job on the queue; rejects when Redis cannot take it. */
export type EnqueueRun = (data: Required<SummaryJobData>) => Promise<void>;

/**
 * Run-now's producer, on the app's shared Redis connection (it fails fast while Redis is down instead of
 * queueing commands) and the queue prefix of SUMMARY_QUEUE_PREFIX. The Queue is opened on first use.
 */
export function createRunEnqueuer(redis: Redis, prefix: string, timeoutMs = 3_000): EnqueueRun {
  let queue: Queue<SummaryJobData> | null = null;
  return async (data) => {
    if (redis.status !== 'ready') throw new Error('Redis is not connected.');
    if (!queue) {
      queue = new Queue<SummaryJobData>(SUMMARY_QUEUE_NAME, { connection: redis, prefix });
      // a lost connection is reported by the app's own Redis watch; an 'error' without a listener would throw
      queue.on('error', () => {});
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis did not answer in time.')), timeoutMs);
    });
    try {
      await Promise.race([
        queue.add(SUMMARY_JOB_NAME, data, { ...summaryJobOptions(), jobId: `manual-${data.runId}` }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
}
