import { textTable } from '@pa/http-kit';
import { Queue } from 'bullmq';
import type { Config } from '../config.ts';
import { SUMMARY_QUEUE_NAME } from '../features/daily-summary/summary-queue.ts';
import { connectRedis, redactRedisUrl } from '../lib/redis.ts';

// `queues list | failed | retry` (docs/operations.md, "Queues"): the gateway's BullMQ queues as Redis holds them,
// under SUMMARY_QUEUE_PREFIX. Redis is all they need, never the database, so they work beside a running gateway
// (`npm start`, whose settings the CLI reads from the data directory, or docker compose) without touching it.

/** Every BullMQ queue of the gateway. */
export const QUEUE_NAMES: readonly string[] = [SUMMARY_QUEUE_NAME];

export const JOB_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

export interface QueueCounts {
  name: string;
  prefix: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
  paused: boolean;
}

export interface FailedJob {
  id: string;
  name: string;
  failedReason: string;
  attemptsMade: number;
  /** when the job was added */
  timestamp: string;
  /** when its last attempt failed */
  finishedOn: string | null;
}

type Values = Record<string, string | boolean | undefined>;

const iso = (ms: number | undefined | null) => (ms ? new Date(ms).toISOString() : null);

/** Runs `queues <sub>` and returns what to print. */
export async function runQueuesCommand(
  config: Pick<Config, 'REDIS_URL' | 'SUMMARY_QUEUE_PREFIX'>,
  sub: string,
  values: Values,
  limit: number,
): Promise<string> {
  const redis = await connectRedis(config.REDIS_URL, { timeoutMs: 3_000 });
  if (!redis) {
    throw new Error(
      `Redis is unreachable at ${redactRedisUrl(config.REDIS_URL)} (REDIS_URL): the queues are kept there.`,
    );
  }
  const queues = new Map(
    QUEUE_NAMES.map((name) => [
      name,
      new Queue(name, { connection: redis, prefix: config.SUMMARY_QUEUE_PREFIX }),
    ]),
  );
  for (const q of queues.values()) q.on('error', () => {});
  const json = values.json === true;
  try {
    if (sub === 'list') {
      const counts = await Promise.all(
        [...queues.values()].map(async (q): Promise<QueueCounts> => {
          const [c, paused] = await Promise.all([q.getJobCounts(...JOB_STATES), q.isPaused()]);
          return {
            name: q.name,
            prefix: config.SUMMARY_QUEUE_PREFIX,
            waiting: c.waiting ?? 0,
            active: c.active ?? 0,
            delayed: c.delayed ?? 0,
            failed: c.failed ?? 0,
            completed: c.completed ?? 0,
            paused,
          };
        }),
      );
      return json ? JSON.stringify({ queues: counts }) : formatCounts(counts);
    }
    const queue = queues.get(String(values.queue))!;
    if (sub === 'failed') {
      const jobs = (await queue.getFailed(0, limit - 1)).map((j): FailedJob => ({
        id: String(j.id),
        name: j.name,
        failedReason: j.failedReason ?? '',
        attemptsMade: j.attemptsMade,
        timestamp: iso(j.timestamp) ?? '',
        finishedOn: iso(j.finishedOn),
      }));
      return json ? JSON.stringify({ queue: queue.name, jobs }) : formatFailed(queue.name, jobs);
    }
    // retry
    if (values['all-failed'] === true) {
      const failed = await queue.getJobCountByTypes('failed');
      await queue.retryJobs({ state: 'failed' });
      return json
        ? JSON.stringify({ queue: queue.name, retried: failed })
        : `${failed} failed job(s) of ${queue.name} moved back to waiting.`;
    }
    const id = String(values.job);
    const job = await queue.getJob(id);
    if (!job) throw new Error(`no job ${id} in ${queue.name}`);
    const state = await job.getState();
    if (state !== 'failed')
      throw new Error(`job ${id} of ${queue.name} is ${state}, not failed: only failed jobs are retried`);
    await job.retry('failed');
    return json
      ? JSON.stringify({ queue: queue.name, retried: 1, job: id })
      : `Job ${id} of ${queue.name} moved back to waiting.`;
  } finally {
    await Promise.all([...queues.values()].map((q) => q.close().catch(() => {})));
    redis.disconnect();
  }
}

export function formatCounts(counts: QueueCounts[]): string {
  return textTable(
    ['queue', ...JOB_STATES, 'paused'],
    counts.map((c) => [c.name, ...JOB_STATES.map((s) => String(c[s])), c.paused ? 'yes' : 'no']),
  );
}

export function formatFailed(queue: string, jobs: FailedJob[]): string {
  if (jobs.length === 0) return `(no failed jobs in ${queue})`;
  return textTable(
    ['id', 'name', 'attempts', 'failed at (UTC)', 'reason'],
    jobs.map((j) => [
      j.id,
      j.name,
      String(j.attemptsMade),
      (j.finishedOn ?? j.timestamp).slice(0, 19).replace('T', ' '),
      // one line of it: a reason may carry a stack's worth of lines
      (j.failedReason.split('\n')[0] ?? '').slice(0, 200),
    ]),
  );
}
