// `npm run bench` (after the proposals benchmark): the platform's signed-event deliveries. Creates a
// throw-away database with one tenant (the events flag on) and one endpoint at a local receiver that verifies every
// request with the `standardwebhooks` package and counts webhook-ids, then runs the platform's own sender (as
// main.ts starts it: LISTEN/NOTIFY on a dedicated connection, named statements on a pool of 10, 32 in flight):
//
// 1. drain: 10,000 events committed first (200 transactions of 50), then the sender is started and times how long
//    the receiver takes to see them all → deliveries/s;
// 2. commit-to-delivery: events committed at a steady pace (10 per transaction, 25 transactions a second, 2,500
//    events) while the sender runs → p50/p99 from the commit's return to the receiver's verified request.
//
// The receiver counts lost (a delivery row whose webhook-id never arrived) and duplicated webhook-ids over both.
// Targets, printed with their figures: ≥ 500 deliveries/s, p50 ≤ 100 ms, 0 lost, 0 duplicated. Results go to
// bench/results/bridge-webhooks-latest.json; exits 0 whatever the verdicts.
//
// Environment: BENCH_WEBHOOK_EVENTS (10000), BENCH_WEBHOOK_CONCURRENCY (32), TEST_DATABASE_URL.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import type { PlatformEvent } from '@pa/contracts';
import { openAppDatabase } from '@pa/db-tools';
import { createTestDatabase } from '@pa/db-tools/testing';
import { createLogger } from '@pa/http-kit';
import { Webhook } from 'standardwebhooks';
import { MIGRATIONS_DIR } from '../../apps/platform-bridge/src/config.ts';
import { postgresWakeups } from '../../apps/platform-bridge/src/features/webhooks/delivery-wakeups.ts';
import { recordEvents } from '../../apps/platform-bridge/src/features/webhooks/record-events.ts';
import { createWebhookAdminService } from '../../apps/platform-bridge/src/features/webhooks/webhook-admin-service.ts';
import { startWebhookSender } from '../../apps/platform-bridge/src/features/webhooks/webhook-sender.ts';
import { createTenantAdminService } from '../../apps/platform-bridge/src/features/tenants/tenant-admin-service.ts';
import { createPrismaClient, statementRunner } from '../../apps/platform-bridge/src/lib/db.ts';
import { createReport, fmt } from '../lib/report.ts';
import { latencyStats } from '../lib/stats.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(HERE, '../results/bridge-webhooks-latest.json');
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 32);
const PACED = { events: 2_500, perTx: 10, txPerSecond: 25 } as const;
const TARGET = { deliveriesPerSecond: 500, p50Ms: 100 } as const;
const SLUG = 'bench-webhooks';

const report = createReport('bench webhooks');

function event(n: number): PlatformEvent {
  return {
    type: 'proposal.approved',
    timestamp: new Date().toISOString(),
    data: {
      tenant_slug: SLUG,
      proposal_id: n,
      kind: 'deal',
      label: `Acquire ${n} Bench Street`,
      status: 'approved',
      decided_at: new Date().toISOString(),
      decision_note: null,
      record: { type: 'deal', id: n },
    },
  };
}

/** The receiver: verifies each request as any Standard Webhooks consumer would; arrival time per proposal_id. */
async function startReceiver(secret: () => string) {
  const seen = new Map<string, number>();
  const arrivedAt = new Map<number, number>();
  let rejected = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = new Webhook(secret()).verify(
          Buffer.concat(chunks).toString('utf8'),
          req.headers as Record<string, string>,
        ) as { data: { proposal_id: number } };
        const id = String(req.headers['webhook-id']);
        seen.set(id, (seen.get(id) ?? 0) + 1);
        if (!arrivedAt.has(body.data.proposal_id)) arrivedAt.set(body.data.proposal_id, performance.now());
        res.statusCode = 204;
      } catch {
        rejected++;
        res.statusCode = 401;
      }
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    seen,
    arrivedAt,
    rejected: () => rejected,
    async waitFor(count: number, timeoutMs: number) {
      const deadline = performance.now() + timeoutMs;
      while (arrivedAt.size < count) {
        if (performance.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 5));
      }
      return true;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function main(): Promise<void> {
  report.log(`${os.cpus().length} CPUs, Node ${process.version}; ${EVENTS} events, ${CONCURRENCY} in flight`);
  const database = await createTestDatabase({ prefix: 'bench_webhooks', migrationsDir: MIGRATIONS_DIR });
  const opened = await openAppDatabase({ name: 'platform', url: database.url, poolMax: 10 });
  const db = createPrismaClient(opened.adapter);
  const logger = createLogger('platform-bridge', 'silent');
  const secretKey = randomBytes(32);
  let secret = '';
  const receiver = await startReceiver(() => secret);
  let sender: Awaited<ReturnType<typeof startWebhookSender>> | undefined;
  try {
    const tenants = createTenantAdminService({ db });
    const tenant = await tenants.createTenant(SLUG, 'Bench Webhooks');
    await tenants.setFlag(SLUG, 'platform_event_webhooks', true);
    const endpoint = await createWebhookAdminService({
      db,
      secretKey,
      policy: { allowHttpLoopback: true },
    }).addEndpoint(SLUG, receiver.url);
    secret = endpoint.secret;
    const start = () =>
      startWebhookSender({
        statements: statementRunner(db, opened.pool),
        secretKey,
        policy: { allowHttpLoopback: true },
        logger,
        wakeups: postgresWakeups(database.url, logger),
        concurrency: CONCURRENCY,
      });

    // 1. drain a backlog
    await report.phase(`committing ${EVENTS} events (transactions of 50)`, async () => {
      for (let i = 0; i < EVENTS; i += 50) {
        const batch = Array.from({ length: Math.min(50, EVENTS - i) }, (_, k) => event(i + k + 1));
        await db.$transaction((tx) => recordEvents(tx, tenant.id, batch));
      }
    });
    const drain = await report.phase('draining them to the receiver', async () => {
      const started = performance.now();
      sender = await start();
      const complete = await receiver.waitFor(EVENTS, 300_000);
      return { seconds: (performance.now() - started) / 1000, complete };
    });
    const perSecond = receiver.arrivedAt.size / drain.seconds;
    report.log(`  ${receiver.arrivedAt.size} delivered in ${fmt(drain.seconds, 2)} s`);

    // 2. steady commits while the sender runs
    const committedAt = new Map<number, number>();
    await report.phase(
      `commit-to-delivery: ${PACED.events} events, ${PACED.perTx} per transaction, ${PACED.txPerSecond} transactions/s`,
      async () => {
        const first = EVENTS + 1;
        const startedAt = performance.now();
        for (let i = 0; i < PACED.events; i += PACED.perTx) {
          const due = startedAt + (i / PACED.perTx) * (1000 / PACED.txPerSecond);
          const wait = due - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const ids = Array.from({ length: PACED.perTx }, (_, k) => first + i + k);
          await db.$transaction((tx) => recordEvents(tx, tenant.id, ids.map(event)));
          const at = performance.now();
          for (const id of ids) committedAt.set(id, at);
        }
        await receiver.waitFor(EVENTS + PACED.events, 60_000);
      },
    );
    const latencies = [...committedAt].flatMap(([id, at]) => {
      const arrived = receiver.arrivedAt.get(id);
      return arrived === undefined ? [] : [arrived - at];
    });
    const lat = latencyStats(latencies);
    report.log(
      `  commit-to-delivery ms: p50 ${fmt(lat.p50)}, p90 ${fmt(lat.p90)}, p99 ${fmt(lat.p99)}, max ${fmt(lat.max)}`,
    );

    await sender?.stop();
    sender = undefined;
    const rows = await db.webhookDelivery.findMany({ select: { webhookId: true } });
    const lost = rows.filter((r) => !receiver.seen.has(r.webhookId)).length;
    const duplicated = [...receiver.seen.values()].filter((n) => n > 1).length;
    report.log(
      `  ${rows.length} deliveries; receiver saw ${receiver.seen.size} webhook-ids, rejected ${receiver.rejected()}`,
    );

    report.target(
      `drain ≥ ${TARGET.deliveriesPerSecond} deliveries/s`,
      `${fmt(perSecond, 0)}/s`,
      perSecond >= TARGET.deliveriesPerSecond,
    );
    report.target(
      `commit-to-delivery p50 ≤ ${TARGET.p50Ms} ms`,
      `p50 ${fmt(lat.p50)} ms, p99 ${fmt(lat.p99)} ms`,
      lat.p50 <= TARGET.p50Ms,
    );
    report.target('lost webhook-ids = 0', String(lost), lost === 0);
    report.target('duplicated webhook-ids = 0', String(duplicated), duplicated === 0);
    report.target('signatures verified', `${receiver.rejected()} rejected`, receiver.rejected() === 0);
    report.printTargets();
    const file = report.write(RESULTS_FILE, {
      events: EVENTS,
      concurrency: CONCURRENCY,
      drain: { seconds: drain.seconds, deliveries_per_second: perSecond },
      commit_to_delivery_ms: lat,
      lost,
      duplicated,
      rejected: receiver.rejected(),
      measured_at: new Date().toISOString(),
    });
    report.log(`wrote ${path.relative(process.cwd(), file)}`);
  } finally {
    await sender?.stop();
    await receiver.close();
    await db.$disconnect();
    await opened.close();
    await database.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
