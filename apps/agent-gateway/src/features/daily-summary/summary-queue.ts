import { ServiceUnavailable } from '@pa/http-kit';
import { bullmqTelemetry } from '@pa/telemetry';
import { type JobSchedulerJson, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';

// The daily-summary queue (docs/daily-summary.md) and its job schedulers: one per enabled, bound worker, with the id
// `summary:<workerId>`, so that upserting is idempotent however many processes do it. The database is the source
// of truth; reconcile() makes Redis agree with it.
//
// The facts shared with the processor (summary-processor.ts): the queue's and the job's name, the job's data and
// its retry options.

export const SUMMARY_QUEUE_NAME = 'daily-summary';
export const SUMMARY_JOB_NAME = 'daily-summary';
/** Attempts of one run: a bridge or channel failure is retried with exponential backoff, then the run fails. */
export const SUMMARY_ATTEMPTS = 3;
export const SUMMARY_BACKOFF_MS = 30_000;
const SCHEDULER_PREFIX = 'summary:';

export interface SummaryJobData {
  workerId: string;
  /** run-now only: the queued run this job carries out (a scheduled job carries the worker alone) */
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

export const schedulerIdOf = (workerId: string) => `${SCHEDULER_PREFIX}${workerId}`;

/** What a worker's scheduler is made of: its row in summary_configs. */
export interface WorkerSchedule {
  workerId: string;
  schedule: string;
  timezone: string;
}

export interface ReconcileReport {
  created: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
}

export interface SummaryQueue {
  readonly queue: Queue<SummaryJobData>;
  readonly prefix: string;
  /** whether the queue's Redis connection is up (a call now has a chance) */
  ready(): boolean;
  /** Waits up to `ms` for the connection; whether it is up. */
  whenReady(ms: number): Promise<boolean>;
  /** Creates or changes the worker's scheduler. */
  schedule(s: WorkerSchedule): Promise<void>;
  /** Removes the worker's scheduler (and its next delayed job); whether there was one. */
  unschedule(workerId: string): Promise<boolean>;
  /** The summary schedulers in Redis, by worker id. */
  schedulers(): Promise<Map<string, JobSchedulerJson<SummaryJobData>>>;
  /** Creates the missing schedulers, updates the changed ones, removes the ones the database does not want. */
  reconcile(wanted: readonly WorkerSchedule[]): Promise<ReconcileReport>;
  /** Adds a one-off job (run-now) under its own id. */
  add(data: SummaryJobData, jobId: string): Promise<void>;
  /** Calls fn whenever the connection becomes ready: first connected, or back after it was lost. */
  onReady(fn: () => void): void;
  close(): Promise<void>;
}

/** 503 `redis-unavailable`: the schedules live in Redis, so a change that cannot reach it is refused. */
export const redisUnavailable = () =>
  new ServiceUnavailable(
    'redis-unavailable',
    'The daily summary’s schedules are kept in Redis, which cannot be reached just now; nothing was changed. Try again shortly.',
    5,
  );

// ioredis' and BullMQ's ways of saying the connection is gone (as opposed to a bug, which stays a 500)
const CONNECTION_FAILURE =
  /Connection is closed|Stream isn't writeable|Command timed out|max retries per request|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|did not answer in time/i;

function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return (
    err.name === 'MaxRetriesPerRequestError' ||
    (typeof code === 'string' && /^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT)$/.test(code)) ||
    CONNECTION_FAILURE.test(err.message)
  );
}

const sameTemplate = (s: JobSchedulerJson<SummaryJobData>, backoffMs: number) => {
  const opts = s.template?.opts as { attempts?: number; backoff?: { delay?: number } } | undefined;
  return opts?.attempts === SUMMARY_ATTEMPTS && opts.backoff?.delay === backoffMs;
};

/**
 * The queue on a Redis connection of its own (REDIS_URL, keys under SUMMARY_QUEUE_PREFIX). The connection fails a
 * command at once while Redis is away (no offline queue, one retry, a command deadline) instead of holding an HTTP
 * request, and reconnects in the background; every call made while it is down throws 503 `redis-unavailable`.
 */
/** The queue as the configuration asks for it: null while the daily summary is turned off. */
export function summaryQueueFromConfig(
  config: Pick<
    Config,
    'ASSISTANT_DAILY_SUMMARY_ENABLED' | 'REDIS_URL' | 'SUMMARY_QUEUE_PREFIX' | 'SUMMARY_RETRY_BACKOFF_MS'
  >,
  logger: Logger,
): SummaryQueue | null {
  if (!config.ASSISTANT_DAILY_SUMMARY_ENABLED) return null;
  return openSummaryQueue({
    url: config.REDIS_URL,
    prefix: config.SUMMARY_QUEUE_PREFIX,
    backoffMs: config.SUMMARY_RETRY_BACKOFF_MS,
    logger,
  });
}

export function openSummaryQueue(opts: {
  url: string;
  prefix: string;
  logger: Logger;
  /** the first retry's delay; the exponential backoff doubles it */
  backoffMs?: number;
  /** how long one Redis call may take */
  commandTimeoutMs?: number;
}): SummaryQueue {
  const backoffMs = opts.backoffMs ?? SUMMARY_BACKOFF_MS;
  const timeoutMs = opts.commandTimeoutMs ?? 3_000;
  const connection = new Redis(opts.url, {
    connectTimeout: 1_500,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // without listeners, ioredis prints every failed reconnect and BullMQ's emitter throws
  connection.on('error', () => {});
  // with tracing on, each job added carries its producer's trace context to the worker (bullmq-otel)
  const queue = new Queue<SummaryJobData>(SUMMARY_QUEUE_NAME, {
    connection,
    prefix: opts.prefix,
    telemetry: bullmqTelemetry(),
  });
  queue.on('error', () => {});

  // logged once per loss (ioredis reports every failed reconnect), and not for a Redis that was never up
  let up = false;
  let lost = false;
  const readyListeners: Array<() => void> = [];
  connection.on('close', () => {
    if (!up) return;
    up = false;
    lost = true;
    opts.logger.warn("the daily summary queue's Redis connection was lost; reconnecting");
  });
  connection.on('ready', () => {
    if (lost) opts.logger.info("the daily summary queue's Redis connection is back");
    up = true;
    lost = false;
    for (const fn of readyListeners) fn();
  });

  async function guarded<T>(op: () => Promise<T>): Promise<T> {
    if (connection.status !== 'ready') throw redisUnavailable();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis did not answer in time')), timeoutMs);
    });
    try {
      return await Promise.race([op(), deadline]);
    } catch (err) {
      if (isConnectionFailure(err) || connection.status !== 'ready') throw redisUnavailable();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  const upsert = (s: WorkerSchedule) =>
    queue.upsertJobScheduler(
      schedulerIdOf(s.workerId),
      { pattern: s.schedule, tz: s.timezone },
      { name: SUMMARY_JOB_NAME, data: { workerId: s.workerId }, opts: summaryJobOptions(backoffMs) },
    );

  async function schedulers() {
    const all = await queue.getJobSchedulers(0, -1);
    const ours = new Map<string, JobSchedulerJson<SummaryJobData>>();
    for (const s of all) {
      if (s.key.startsWith(SCHEDULER_PREFIX)) ours.set(s.key.slice(SCHEDULER_PREFIX.length), s);
    }
    return ours;
  }

  return {
    queue,
    prefix: opts.prefix,
    ready: () => connection.status === 'ready',
    whenReady: (ms) =>
      new Promise<boolean>((resolve) => {
        if (connection.status === 'ready') return resolve(true);
        const done = (up: boolean) => {
          clearTimeout(timer);
          connection.off('ready', onReady);
          resolve(up);
        };
        const onReady = () => done(true);
        const timer = setTimeout(() => done(false), ms);
        connection.once('ready', onReady);
      }),
    schedule: (s) =>
      guarded(async () => {
        await upsert(s);
      }),
    unschedule: (workerId) => guarded(() => queue.removeJobScheduler(schedulerIdOf(workerId))),
    schedulers: () => guarded(schedulers),
    // Each Redis call has its own deadline: a thousand workers take longer than one call may.
    async reconcile(wanted) {
      const report: ReconcileReport = { created: [], updated: [], removed: [], unchanged: 0 };
      const existing = await guarded(schedulers);
      const wantedIds = new Set<string>();
      for (const w of wanted) {
        wantedIds.add(w.workerId);
        const found = existing.get(w.workerId);
        if (!found) {
          await guarded(() => upsert(w));
          report.created.push(w.workerId);
        } else if (
          found.pattern !== w.schedule ||
          found.tz !== w.timezone ||
          !sameTemplate(found, backoffMs)
        ) {
          await guarded(() => upsert(w));
          report.updated.push(w.workerId);
        } else {
          report.unchanged += 1;
        }
      }
      for (const workerId of existing.keys()) {
        if (wantedIds.has(workerId)) continue;
        await guarded(() => queue.removeJobScheduler(schedulerIdOf(workerId)));
        report.removed.push(workerId);
      }
      return report;
    },
    add: (data, jobId) =>
      guarded(async () => {
        await queue.add(SUMMARY_JOB_NAME, data, { ...summaryJobOptions(backoffMs), jobId });
      }),
    onReady: (fn) => {
      readyListeners.push(fn);
    },
    async close() {
      await queue.close().catch(() => {});
      connection.disconnect();
    },
  };
}
