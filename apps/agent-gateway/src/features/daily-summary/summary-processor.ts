import type { DeliveryChannel } from '@pa/contracts';
import { UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import { BRIEFING_MAX_CHARS } from '../briefing/index.ts';
import {
  type BriefingData,
  readBriefingData,
  type SummaryBridge,
  SummaryFailure,
} from './briefing-source.ts';
import type { DeliverBriefing } from './summary-delivery.ts';
import type { SummaryJobData } from './summary-queue.ts';
import type { RunRow, SummaryRunsRepository } from './summary-runs-repository.ts';

// One daily-summary job, as a plain function of the job: the BullMQ worker calls it, and so can a
// test without a queue. It claims the run of the job's slot (one per worker and slot, whoever else is handed the
// same job), reads the bridge with the worker's bound key, writes the briefing, delivers it and records the run.
// A bridge or channel failure is thrown so that BullMQ retries it with backoff; the last attempt records `failed`
// with the reason in words.

export const BRIEFING_LIMIT = BRIEFING_MAX_CHARS;

/** What the processor needs of a BullMQ job (a Job is one). */
export interface SummaryJobLike {
  id?: string | undefined;
  data: SummaryJobData;
  /** when the job was added */
  timestamp: number;
  /** attempts that already ended in failure */
  attemptsMade: number;
  /** attempts begun, this one included (BullMQ counts it as the job becomes active) */
  attemptsStarted?: number;
  opts: { attempts?: number; delay?: number; prevMillis?: number; repeatJobKey?: string };
}

/** The worker's bridge client, and its own mailboxes' reader when it reads any (EMAIL_INGESTION_ENABLED). */
export type BridgeAccess = SummaryBridge | { skipped: string };

export interface SummaryProcessorDeps {
  runs: SummaryRunsRepository;
  /** the worker's summary configuration; null when it was never configured (or the worker is gone) */
  config(workerId: string): Promise<{ enabled: boolean; deliveryChannel: string } | null>;
  /** the worker's bridge client over its bound key, or why there is none (the run is then skipped) */
  bridgeFor(workerId: string): Promise<BridgeAccess>;
  /** the briefing module: Markdown facts only, at most BRIEFING_LIMIT characters */
  write(data: BriefingData): string;
  deliver: DeliverBriefing;
  logger: Logger;
  now?: () => Date;
}

export type SummaryJobOutcome =
  | { status: 'delivered'; runId: string; bridgeCalls: number }
  | { status: 'skipped'; runId: string; reason: string }
  /** another process has this attempt, or the run already ended: nothing was done */
  | { status: 'not-claimed'; runId: string }
  /** the worker (and with it the run) no longer exists */
  | { status: 'gone'; runId: null };

/** The slot a job is for: a scheduled job's fire time (BullMQ keeps it as prevMillis), else when it was due. */
export function slotOf(job: SummaryJobLike): Date {
  if (job.opts.prevMillis !== undefined) return new Date(job.opts.prevMillis);
  const fromId = /^repeat:.+:(\d{10,})$/.exec(job.id ?? '')?.[1];
  if (fromId) return new Date(Number(fromId));
  return new Date(job.timestamp + (job.opts.delay ?? 0));
}

export async function processSummaryJob(
  job: SummaryJobLike,
  deps: SummaryProcessorDeps,
  signal: AbortSignal = new AbortController().signal,
): Promise<SummaryJobOutcome> {
  const now = deps.now ?? (() => new Date());
  const { workerId } = job.data;
  const attempt = Math.max(job.attemptsStarted ?? 0, job.attemptsMade + 1);
  const maxAttempts = Math.max(1, job.opts.attempts ?? 1);

  const config = await deps.config(workerId);
  let run: RunRow | null;
  if (job.data.runId) {
    run = await deps.runs.find(job.data.runId);
    if (run && run.workerId !== workerId) run = null;
  } else {
    run = await deps.runs.ensureScheduled(workerId, slotOf(job), config?.deliveryChannel ?? 'web');
  }
  if (!run) return { status: 'gone', runId: null };
  if (!(await deps.runs.claim(run.id, attempt, now()))) return { status: 'not-claimed', runId: run.id };

  const skip = async (reason: string): Promise<SummaryJobOutcome> => {
    await deps.runs.finish(run.id, 'skipped', { error: reason, now: now() });
    deps.logger.info({ worker_id: workerId, run_id: run.id, reason }, 'daily summary skipped');
    return { status: 'skipped', runId: run.id, reason };
  };
  // a scheduler outlived its configuration (turned off while this job waited); run-now runs whatever the schedule
  if (run.trigger === 'schedule' && !config?.enabled)
    return skip('the daily summary was turned off for this worker.');
  try {
    const access = await deps.bridgeFor(workerId);
    if ('skipped' in access) return await skip(access.skipped);
    const { data, bridgeCalls } = await readBriefingData(access, signal);
    const written = deps.write(data);
    const briefing = written.length > BRIEFING_LIMIT ? `${written.slice(0, BRIEFING_LIMIT - 1)}…` : written;
    await deps.deliver(workerId, run.deliveryChannel as DeliveryChannel, briefing);
    await deps.runs.finish(run.id, 'delivered', { briefing, now: now() });
    deps.logger.info(
      { worker_id: workerId, run_id: run.id, channel: run.deliveryChannel, bridge_calls: bridgeCalls },
      'daily summary delivered',
    );
    return { status: 'delivered', runId: run.id, bridgeCalls };
  } catch (err) {
    const known = err instanceof SummaryFailure;
    const reason = known ? err.message : 'an unexpected error occurred while writing the briefing.';
    if (!known) deps.logger.error({ worker_id: workerId, run_id: run.id, err }, 'daily summary crashed');
    const last = (known && err.permanent) || attempt >= maxAttempts;
    if (last) {
      await deps.runs.finish(run.id, 'failed', {
        error: attempt > 1 ? `${reason} (after ${attempt} attempts)` : reason,
        now: now(),
      });
      deps.logger.warn({ worker_id: workerId, run_id: run.id, attempt, reason }, 'daily summary failed');
      // BullMQ need not try again what cannot succeed
      if (known && err.permanent) throw new UnrecoverableError(reason);
    } else {
      await deps.runs.retrying(run.id, `attempt ${attempt} of ${maxAttempts} failed: ${reason}`);
      deps.logger.info({ worker_id: workerId, run_id: run.id, attempt, reason }, 'daily summary will retry');
    }
    throw new Error(reason, { cause: err });
  }
}
