import type { OpenedDatabase } from '@pa/db-tools';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';
import type { StatementRunner } from '../../lib/db.ts';
import type { AddressPolicy } from './endpoint-address.ts';
import { pgliteWakeups, postgresWakeups } from './delivery-wakeups.ts';
import { startWebhookSender, type WebhookSender, type WebhookSenderOptions } from './webhook-sender.ts';

/**
 * The sender as the platform process runs it: woken by LISTEN/NOTIFY on a dedicated connection (PostgreSQL) or
 * by PGlite's own listen (the embedded database), with the slow safety poll behind either.
 */
export function startPlatformWebhookDelivery(opts: {
  opened: OpenedDatabase;
  url: string | undefined;
  statements: StatementRunner;
  secretKey: Buffer;
  policy: AddressPolicy;
  logger: Logger;
  clock: Clock;
  timeoutMs: number;
  concurrency: number;
  /** overrides the poll chosen below (tests) */
  pollMs?: number;
  /** told how each attempt ended (the metrics) */
  onAttempt?: WebhookSenderOptions['onAttempt'];
}): Promise<WebhookSender> {
  const wakeups =
    opts.opened.kind === 'postgres' && opts.url
      ? postgresWakeups(opts.url, opts.logger)
      : opts.opened.pglite
        ? pgliteWakeups(opts.opened.pglite)
        : undefined;
  return startWebhookSender({
    statements: opts.statements,
    secretKey: opts.secretKey,
    policy: opts.policy,
    logger: opts.logger,
    clock: opts.clock,
    wakeups,
    timeoutMs: opts.timeoutMs,
    concurrency: opts.concurrency,
    onAttempt: opts.onAttempt,
    // PostgreSQL: every commit notifies, so the poll is only a safety net. Embedded: PGlite's listen hears the
    // app's own commits, but not those a CLI makes through the app's socket (measured: `webhooks redeliver`),
    // which wait for this shorter poll.
    pollMs: opts.pollMs ?? (opts.opened.kind === 'postgres' ? 30_000 : 5_000),
  });
}
