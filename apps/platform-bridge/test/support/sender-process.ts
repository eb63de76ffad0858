// A platform process's sender on its own, for the tests that kill one (kill -9) or run two side by side:
// started as `node --import tsx sender-process.ts` with the database URL and the secret key in the environment.
import { openAppDatabase } from '@pa/db-tools';
import { createLogger } from '@pa/http-kit';
import { postgresWakeups } from '../../src/features/webhooks/delivery-wakeups.ts';
import { startWebhookSender } from '../../src/features/webhooks/webhook-sender.ts';
import { createPrismaClient, statementRunner } from '../../src/lib/db.ts';

const url = process.env.SENDER_DATABASE_URL!;
const logger = createLogger('platform-bridge', 'silent');
const opened = await openAppDatabase({ name: 'platform', url, poolMax: 4 });
const db = createPrismaClient(opened.adapter);
const sender = await startWebhookSender({
  statements: statementRunner(db, opened.pool),
  secretKey: Buffer.from(process.env.SENDER_SECRET_KEY!, 'hex'),
  policy: { allowHttpLoopback: true },
  logger,
  wakeups: postgresWakeups(url, logger),
  timeoutMs: Number(process.env.SENDER_TIMEOUT_MS ?? 2_000),
  leaseMs: Number(process.env.SENDER_LEASE_MS ?? 4_000),
  concurrency: Number(process.env.SENDER_CONCURRENCY ?? 8),
  pollMs: 500,
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void sender.stop().then(async () => {
    process.stdout.write(`${JSON.stringify(sender.stats())}\n`);
    await db.$disconnect();
    await opened.close();
    process.exit(0);
  });
});
