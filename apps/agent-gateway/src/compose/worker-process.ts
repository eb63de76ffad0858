import { startChannelPollers, type ChannelPollers } from '../features/channels/polling/channel-pollers.ts';
import { createLocalPollLocks, createRedisPollLocks } from '../features/channels/polling/poll-locks.ts';
import { SUMMARY_QUEUE_NAME } from '../features/daily-summary/summary-queue.ts';
import { type SummaryWorker, startSummaryWorker } from '../features/daily-summary/summary-worker.ts';
import { type MailboxSyncer, startMailboxSyncer } from '../features/email/mailbox-syncer.ts';
import type { Gateway } from './gateway.ts';

// The worker process's work: the Telegram pollers, the answering of channel messages whose process
// stopped before answering them, the daily-summary queue's worker, the mailboxes' and the knowledge corpus's syncs. worker.ts runs
// it alone; main.ts runs it inside the gateway (RUN_WORKER_IN_PROCESS), over the same composed parts as the app,
// so a channel's turns go through the same chat service, tools and memory as the web chat.

export interface WorkerProcessOptions {
  /** how often channels connected, deleted or released elsewhere are picked up */
  scanMs?: number;
  /** how long a running turn may take to finish on stop */
  turnGraceMs?: number;
  /** how often messages whose process stopped before answering them are looked for (30 s) */
  recoverMs?: number;
  /** daily-summary jobs processed at once by this process */
  summaryConcurrency?: number;
  /** how often each bound worker's knowledge copy is synced when nothing asks sooner (5 minutes) */
  knowledgeEveryMs?: number;
  /** how often the bindings due a knowledge sync (new bindings, events another process took in) are looked for (5 s) */
  knowledgeScanMs?: number;
}

export interface WorkerProcess {
  pollers: ChannelPollers;
  /** the daily-summary queue's worker; null with ASSISTANT_DAILY_SUMMARY_ENABLED off */
  summary: SummaryWorker | null;
  /** aborts the long polls, lets running turns and summary jobs finish (turns within the grace period), releases the locks */
  stop(): Promise<void>;
}

export function startWorkerProcess(gateway: Gateway, opts: WorkerProcessOptions = {}): WorkerProcess {
  const { config, logger, redis } = gateway.deps;
  if (!redis) {
    logger.warn(
      'Redis is unreachable: Telegram channels are polled by this process alone; run no other gateway or worker process',
    );
  }
  const updates = gateway.updateHandler();
  const pollers = startChannelPollers({
    channels: gateway.repositories.pollingChannels,
    locks: redis
      ? createRedisPollLocks({ redis, prefix: config.REDIS_PREFIX, logger })
      : createLocalPollLocks(),
    tokenOf: updates.tokenOf,
    handle: updates.handle,
    apiRoot: config.TELEGRAM_API_BASE_URL,
    logger,
    scanMs: opts.scanMs,
  });
  const recovery = updates.startRecovery(opts.recoverMs ?? 30_000);
  // Started with Redis away too: its own connection keeps trying, and jobs are taken once Redis is back.
  const summary: SummaryWorker | null = config.ASSISTANT_DAILY_SUMMARY_ENABLED
    ? startSummaryWorker(
        { config, logger, processor: gateway.summaryProcessor },
        { concurrency: opts.summaryConcurrency },
      )
    : null;
  // the jobs' durations by outcome are counted where they run (lib/metrics)
  if (summary) gateway.metrics.watchWorker(SUMMARY_QUEUE_NAME, summary.worker);
  // the assistant's own mailboxes (docs/email.md)
  const mail: MailboxSyncer | null = config.EMAIL_INGESTION_ENABLED
    ? startMailboxSyncer(gateway.mailboxSync, config.EMAIL_POLL_MS)
    : null;
  // the workers' copies of their tenants' knowledge corpus (docs/knowledge.md), while the bridge is on
  const knowledge = config.PLATFORM_BRIDGE_ENABLED ? gateway.knowledgeSyncer : null;
  knowledge?.start({
    everyMs: opts.knowledgeEveryMs ?? 5 * 60_000,
    scanMs: opts.knowledgeScanMs ?? 5_000,
  });
  let stopping: Promise<void> | null = null;
  return {
    pollers,
    summary,
    stop() {
      stopping ??= (async () => {
        // a running summary finishes (BullMQ's close waits for it); no new job is taken meanwhile
        await Promise.all([
          summary?.close(),
          mail?.stop(),
          knowledge?.stop(),
          (async () => {
            await recovery.stop();
            await pollers.stop();
            await updates.drain(opts.turnGraceMs ?? 10_000);
          })(),
        ]);
      })();
      return stopping;
    },
  };
}
