import { Gauge, Histogram, type Registry } from '@pa/telemetry';
import type { Job, Queue, Worker } from 'bullmq';

// The BullMQ queues seen from Prometheus: each queue's jobs by state, counted by Redis when scraped (one
// getJobCounts per queue, skipped while its connection is down rather than holding the scrape), and the jobs'
// durations by outcome, from the worker's own events in the process that runs it.

/** A queue as the gauge reads it (the daily summary's SummaryQueue is one). */
export interface MetricsQueue {
  readonly queue: Pick<Queue, 'name' | 'getJobCounts'>;
  /** whether its Redis connection is up */
  ready(): boolean;
}

export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;
const COUNT_TIMEOUT_MS = 1_000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('Redis did not answer in time')), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export function queueMetrics(registry: Registry, queues: ReadonlyArray<MetricsQueue | null | undefined>) {
  const watched = queues.filter((q): q is MetricsQueue => Boolean(q));
  new Gauge({
    name: 'pa_queue_jobs',
    help: 'BullMQ jobs by queue and state, as Redis counts them at scrape time.',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      // a queue that cannot be counted now is left out, not reported with its last counts
      this.reset();
      await Promise.all(
        watched.map(async (q) => {
          if (!q.ready()) return;
          const counts = await within(q.queue.getJobCounts(...QUEUE_STATES), COUNT_TIMEOUT_MS).catch(
            () => null,
          );
          if (!counts) return;
          for (const state of QUEUE_STATES) this.set({ queue: q.queue.name, state }, counts[state] ?? 0);
        }),
      );
    },
  });
  const duration = new Histogram({
    name: 'pa_queue_job_duration_seconds',
    help: 'A BullMQ job’s run, by queue and outcome (completed; failed for good; retried: failed, tried again).',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });

  const seconds = (job: Pick<Job, 'processedOn' | 'finishedOn'>) =>
    Math.max(0, ((job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now())) / 1000);

  return {
    watchWorker(queue: string, worker: Pick<Worker, 'on'>): void {
      worker.on('completed', (job) => duration.observe({ queue, outcome: 'completed' }, seconds(job)));
      worker.on('failed', (job) => {
        if (!job) return;
        // BullMQ stamps finishedOn only on the last attempt: without it the job is tried again
        duration.observe({ queue, outcome: job.finishedOn ? 'failed' : 'retried' }, seconds(job));
      });
    },
  };
}
