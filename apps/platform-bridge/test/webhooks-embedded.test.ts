import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyMigrations, openAppDatabase, openCliDatabase, type OpenedDatabase } from '@pa/db-tools';
import { createLogger } from '@pa/http-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../src/config.ts';
import { recordEvents } from '../src/features/webhooks/record-events.ts';
import { startPlatformWebhookDelivery } from '../src/features/webhooks/start-delivery.ts';
import { createWebhookAdminService } from '../src/features/webhooks/webhook-admin-service.ts';
import type { WebhookSender } from '../src/features/webhooks/webhook-sender.ts';
import { createTenantAdminService } from '../src/features/tenants/tenant-admin-service.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createPrismaClient, type Db, statementRunner } from '../src/lib/db.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';
import { approvedEvent, TEST_SECRET_KEY } from './support/webhooks.ts';
import { scaled } from '@pa/http-kit/testing';

// The embedded database (PGlite) as `npm start` runs it without a URL: the sender is woken by PGlite's own
// LISTEN for commits made in the app; a CLI's commits through the app's socket wait for the 5 s poll.

let dir: string;
let opened: OpenedDatabase;
let db: Db;
let receiver: WebhookReceiver;
let sender: WebhookSender;
let secret = '';
let tenantId: number;
const slug = 'embedded-events';
const POLICY = { allowHttpLoopback: true };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'platform-webhooks-'));
  opened = await openAppDatabase({ name: 'platform', dataDir: path.join(dir, 'platform') });
  await applyMigrations(opened.sql, MIGRATIONS_DIR);
  db = createPrismaClient(opened.adapter);
  receiver = await startWebhookReceiver(() => secret);
  const tenants = createTenantAdminService({ db });
  tenantId = (await tenants.createTenant(slug, 'Embedded Events')).id;
  await tenants.setFlag(slug, 'platform_event_webhooks', true);
  secret = (
    await createWebhookAdminService({ db, secretKey: TEST_SECRET_KEY, policy: POLICY }).addEndpoint(
      slug,
      receiver.url,
    )
  ).secret;
  sender = await startDelivery(60_000);
  // let the start-up look finish, so that only a notification can wake it from here on
  await sender.drain();
}, scaled(60_000));

function startDelivery(pollMs?: number) {
  return startPlatformWebhookDelivery({
    opened,
    url: undefined,
    statements: statementRunner(db, opened.pool),
    secretKey: TEST_SECRET_KEY,
    policy: POLICY,
    logger: createLogger('platform-bridge', 'silent'),
    clock: systemClock,
    timeoutMs: 5_000,
    concurrency: 4,
    pollMs,
  });
}

afterAll(async () => {
  await sender?.stop();
  await receiver?.close();
  await db?.$disconnect();
  await opened?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('embedded database', { timeout: scaled(30_000) }, () => {
  it('a commit in the app wakes the sender at once (PGlite LISTEN)', async () => {
    const started = Date.now();
    await db.$transaction((tx) => recordEvents(tx, tenantId, [approvedEvent(slug)]));
    await receiver.waitFor(() => receiver.received.length === 1, 10_000);
    // the poll here is a minute: only the notification explains a delivery within a second
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(receiver.rejected).toBe(0);
  });

  // PGlite's listen does not hear commits made through the socket (the notification goes to the socket client's
  // stream): the embedded sender's 5 s poll picks them up.
  it('a commit by a CLI through the app’s socket is delivered by the embedded poll', async () => {
    // the embedded default poll (5 s)
    await sender.stop();
    sender = await startDelivery();
    await sender.drain();
    const cli = await openCliDatabase({ name: 'platform', dataDir: path.join(dir, 'platform') });
    expect(cli.kind).toBe('embedded-remote');
    const cliDb = createPrismaClient(cli.adapter);
    try {
      const started = Date.now();
      await cliDb.$transaction((tx) => recordEvents(tx, tenantId, [approvedEvent(slug)]));
      await receiver.waitFor(() => receiver.received.length === 2, 15_000);
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      await cliDb.$disconnect();
      await cli.close();
    }
  });
});
