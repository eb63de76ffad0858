import { type MailboxSyncDeps, syncMailbox } from './mailbox-sync.ts';
import { createMailboxWatchers } from './mailbox-watch.ts';

// The worker process's email ingestion (EMAIL_INGESTION_ENABLED): every EMAIL_POLL_MS it syncs each mailbox that
// is due (not stopped, and past its backoff), one at a time per process; several processes share the work
// through each mailbox's sync lease. Between polls, an IDLE connection per healthy mailbox (mailbox-watch.ts)
// syncs it the moment the server announces new mail. Stopped with the worker process; a running sync finishes
// first.

export interface MailboxSyncer {
  /** one pass over the due mailboxes now (also what the timer runs) */
  tick(): Promise<void>;
  /** the mailboxes whose IDLE connection is open and listening now */
  watching(): string[];
  /** the mailboxes on servers without IDLE, which only the poll syncs */
  withoutIdle(): string[];
  stop(): Promise<void>;
}

export function startMailboxSyncer(deps: MailboxSyncDeps, everyMs: number): MailboxSyncer {
  let running: Promise<void> | null = null;
  let stopped = false;
  // one sync per mailbox at a time in this process; mail announced during a sync gets one more sync after it
  const syncing = new Map<string, Promise<void>>();
  const again = new Set<string>();

  function syncOne(id: string): Promise<void> {
    const current = syncing.get(id);
    if (current) {
      again.add(id);
      return current;
    }
    const run = (async () => {
      do {
        again.delete(id);
        const result = await syncMailbox(deps, id);
        if (result.outcome === 'failed')
          deps.logger.warn({ mailboxId: id, error: result.error }, 'mailbox sync failed');
        if (result.outcome === 'stopped')
          deps.logger.warn({ mailboxId: id }, 'mailbox now polled by the platform: stopped');
      } while (again.has(id) && !stopped);
    })()
      .catch((err: unknown) => deps.logger.error({ err, mailboxId: id }, 'mailbox sync crashed'))
      .finally(() => syncing.delete(id));
    syncing.set(id, run);
    return run;
  }

  const { mailboxes } = deps;
  const watchers = createMailboxWatchers({
    cipher: deps.cipher,
    imap: deps.imap,
    logger: deps.logger,
    onNewMail: (id) => {
      if (!stopped) void syncOne(id);
    },
  });

  async function pass() {
    for (const id of await mailboxes.due(new Date())) {
      if (stopped) return;
      await syncOne(id);
    }
    // healthy mailboxes are watched; failing ones wait for their backoff, stopped ones are the platform's
    if (!stopped) watchers.watch(await mailboxes.watchable());
  }

  const tick = () => {
    running ??= pass()
      .catch((err: unknown) => deps.logger.error({ err }, 'mailbox sync pass failed'))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  void tick();
  return {
    tick,
    watching: () => watchers.watching(),
    withoutIdle: () => watchers.withoutIdle(),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await watchers.close();
      await running;
      await Promise.all(syncing.values());
    },
  };
}
