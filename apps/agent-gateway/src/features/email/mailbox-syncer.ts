import type { AppDeps } from '../../app.ts';
import { createBindingRepository } from '../binding/binding-repository.ts';
import { createKeyCipher } from '../binding/key-cipher.ts';
import { createWorkersRepository } from '../workers/workers-repository.ts';
import { type MailboxSyncDeps, syncMailbox } from './mailbox-sync.ts';
import { createMailboxesService } from './mailboxes-service.ts';

// The worker process's email ingestion (EMAIL_INGESTION_ENABLED): every EMAIL_POLL_MS it syncs each mailbox that
// is due (not stopped, and past its backoff), one at a time per process; several processes share the work
// through each mailbox's sync lease. Stopped with the worker process; a running sync finishes first.

/** The sync's dependencies from the app's: the rule's bridge read goes through the worker's own binding. */
export function mailboxSyncDeps(deps: AppDeps): MailboxSyncDeps {
  const cipher = createKeyCipher(deps.secretKey);
  const bindings = createBindingRepository(deps.db);
  const service = createMailboxesService({
    db: deps.db,
    workers: createWorkersRepository(deps.db),
    binding: {
      credentials: async (workerId) => {
        const b = await bindings.findForTurn(workerId);
        return b ? { tenantSlug: b.tenantSlug, apiKey: cipher.decrypt(b.keyCiphertext) } : null;
      },
    },
    platform: deps.platform,
    cipher,
    loginTimeoutMs: deps.config.IMAP_TIMEOUT_MS,
  });
  return {
    db: deps.db,
    cipher,
    platformPolled: service.platformPolled,
    timeoutMs: deps.config.IMAP_TIMEOUT_MS,
    logger: deps.logger,
  };
}

export interface MailboxSyncer {
  /** one pass over the due mailboxes now (also what the timer runs) */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

export function startMailboxSyncer(deps: MailboxSyncDeps, everyMs: number): MailboxSyncer {
  let running: Promise<void> | null = null;
  let stopped = false;

  async function pass() {
    const due = await deps.db.mailbox.findMany({
      where: { status: { not: 'stopped' }, OR: [{ nextSyncAt: null }, { nextSyncAt: { lte: new Date() } }] },
      select: { id: true },
      orderBy: { lastSyncAt: { sort: 'asc', nulls: 'first' } },
    });
    for (const { id } of due) {
      if (stopped) return;
      const result = await syncMailbox(deps, id);
      if (result.outcome === 'failed')
        deps.logger.warn({ mailboxId: id, error: result.error }, 'mailbox sync failed');
      if (result.outcome === 'stopped')
        deps.logger.warn({ mailboxId: id }, 'mailbox now polled by the platform: stopped');
    }
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
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
