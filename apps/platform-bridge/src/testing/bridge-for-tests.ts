// The REAL platform-bridge, in-process, for other workspaces' tests (`@pa/platform-bridge/testing`): its own
// migrated PostgreSQL database, listening on 127.0.0.1 on a free port, with the operator's tenant admin, the
// demo seed and a clock the test moves. Callers talk to it over HTTP, as the gateway does in production, and
// reach nothing else of the bridge's source.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase } from '@pa/db-tools/testing';
import { createLogger, listen } from '@pa/http-kit';
import { openAppDatabase } from '@pa/db-tools';
import { createApp } from '../app.ts';
import { MIGRATIONS_DIR } from '../config.ts';
import { seedDemo, type SeedDemoResult } from '../demo/demo-seed.ts';
import {
  createTenantAdminService,
  type TenantAdminService,
} from '../features/tenants/tenant-admin-service.ts';
import { postgresWakeups } from '../features/webhooks/delivery-wakeups.ts';
import { createWebhookAdminService } from '../features/webhooks/webhook-admin-service.ts';
import { startWebhookSender, type WebhookSender } from '../features/webhooks/webhook-sender.ts';
import type { Clock } from '../lib/clock.ts';
import { createPrismaClient, type Db, statementRunner, statementTransaction } from '../lib/db.ts';

export { DEMO_MAILBOXES, DEMO_TENANT_SLUG } from '../demo/demo-data.ts';
export type { SeedDemoResult } from '../demo/demo-seed.ts';
export type { TenantAdminService } from '../features/tenants/tenant-admin-service.ts';
export type { Db } from '../lib/db.ts';
export { MIGRATIONS_DIR };

/** A clock the test can move. */
export type MovableClock = Clock & { set(iso: string): void };

export function movableClock(iso: string): MovableClock {
  let now = new Date(iso);
  return { now: () => new Date(now), set: (v: string) => void (now = new Date(v)) };
}

export interface TestTenant {
  id: number;
  slug: string;
  name: string;
  key: string;
  keyId: number;
}

export interface TestAdmin {
  id: number;
  email: string;
  /** a `padm_` key with review:read and review:write */
  key: string;
}

export interface BridgeForTests {
  /** e.g. `http://127.0.0.1:43123` (no trailing slash). */
  baseUrl: string;
  /** The bridge's own database, for asserting on its rows. */
  db: Db;
  admin: TenantAdminService;
  clock: MovableClock;
  /**
   * A tenant with the bridge flag on (unless `bridge: false`) and a remote key (`scopes`, default bridge:read).
   * `writes` and `reviewQueue` turn on assistant_bridge_writes and assistant_bridge_review_queue.
   */
  createTenant(opts?: {
    bridge?: boolean;
    writes?: boolean;
    reviewQueue?: boolean;
    scopes?: string[];
    name?: string;
    label?: string;
  }): Promise<TestTenant>;
  /**
   * Seeds the demo portfolio (docs/operations.md) for `tenantSlug` (default demo-lettings) and issues it a key with
   * `scopes` (default bridge:read). The demo turns the writes and review-queue flags on.
   */
  seedDemo(opts?: {
    tenantSlug?: string;
    scopes?: string[];
  }): Promise<SeedDemoResult & { key: string; keyId: number }>;
  /** An admin key (`padm_`, both review scopes) of the tenant, for the review queue's API. */
  createAdmin(tenantSlug: string, email?: string): Promise<TestAdmin>;
  /**
   * Signed events for `tenantSlug`: turns platform_event_webhooks on, registers `url` (http to loopback
   * is allowed here) and starts the platform's sender once (LISTEN/NOTIFY, scheduled by `clock`, signed with the
   * real time). Returns the endpoint's `whsec_` secret, which the receiver verifies with.
   */
  enableWebhooks(tenantSlug: string, url: string): Promise<{ endpointId: number; secret: string }>;
  /** Stops listening and drops the database. */
  close(): Promise<void>;
}

export async function startBridgeForTests(opts: {
  now: string;
  rateLimitPerMin?: number;
  /** Names the test database, e.g. after the calling workspace. */
  databasePrefix?: string;
  /** The label of the key seedDemo issues. */
  demoKeyLabel?: string;
  /** PROPOSAL_PENDING_LIMIT (default 100): how many proposals may wait for review per tenant. */
  proposalPendingLimit?: number;
  /** MCP_ALLOWED_ORIGINS: the browser origins that may call the MCP endpoint (default none) */
  mcpAllowedOrigins?: readonly string[];
}): Promise<BridgeForTests> {
  const database = await createTestDatabase({
    prefix: opts.databasePrefix ?? 'bridge_for_tests',
    migrationsDir: MIGRATIONS_DIR,
  });
  // as main.ts opens it: one pool for Prisma and the named statements
  const opened = await openAppDatabase({ name: 'platform', url: database.url, poolMax: 4 });
  const db = createPrismaClient(opened.adapter);
  const clock = movableClock(opts.now);
  const admin = createTenantAdminService({ db });
  // the admin API's endpoints (the remote-access page) and the sender below share them
  const webhookKey = randomBytes(32);
  const webhookPolicy = { allowHttpLoopback: true };

  let server: Server | undefined;
  try {
    const app = createApp({
      db,
      statements: statementRunner(db, opened.pool),
      transactions: statementTransaction(db, opened.pool),
      logger: createLogger('platform-bridge', 'silent'),
      clock,
      rateLimitPerMin: opts.rateLimitPerMin ?? 10_000,
      ...(opts.mcpAllowedOrigins ? { mcpAllowedOrigins: opts.mcpAllowedOrigins } : {}),
      webhooks: { secretKey: webhookKey, policy: webhookPolicy },
      ...(opts.proposalPendingLimit === undefined ? {} : { proposalPendingLimit: opts.proposalPendingLimit }),
    });
    server = await listen(app, 0, '127.0.0.1');
  } catch (err) {
    await db.$disconnect();
    await opened.close();
    await database.drop();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const listening = server;
  let sender: Promise<WebhookSender> | undefined;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    db,
    admin,
    clock,
    async createTenant(o = {}) {
      const slug = `gw-${randomBytes(5).toString('hex')}`;
      const tenant = await admin.createTenant(slug, o.name ?? `Tenant ${slug}`);
      if (o.bridge !== false) await admin.setFlag(slug, 'assistant_external_bridge', true);
      if (o.writes) await admin.setFlag(slug, 'assistant_bridge_writes', true);
      if (o.reviewQueue) await admin.setFlag(slug, 'assistant_bridge_review_queue', true);
      const key = await admin.createKey(slug, o.scopes ?? ['bridge:read'], o.label);
      return { id: tenant.id, slug, name: tenant.name, key: key.key, keyId: key.id };
    },
    async seedDemo(o = {}) {
      const seeded = await seedDemo({ db, clock }, { tenantSlug: o.tenantSlug });
      const key = await admin.createKey(
        seeded.tenant.slug,
        o.scopes ?? ['bridge:read'],
        opts.demoKeyLabel ?? 'tests',
      );
      return { ...seeded, key: key.key, keyId: key.id };
    },
    async createAdmin(tenantSlug, email = `admin-${randomBytes(3).toString('hex')}@example.com`) {
      const issued = await admin.createAdmin(tenantSlug, email);
      return { id: issued.id, email, key: issued.key };
    },
    async enableWebhooks(tenantSlug, url) {
      await admin.setFlag(tenantSlug, 'platform_event_webhooks', true);
      const endpoint = await createWebhookAdminService({
        db,
        secretKey: webhookKey,
        policy: webhookPolicy,
        clock,
      }).addEndpoint(tenantSlug, url);
      const logger = createLogger('platform-bridge', 'silent');
      sender ??= startWebhookSender({
        statements: statementRunner(db, opened.pool),
        secretKey: webhookKey,
        policy: webhookPolicy,
        logger,
        clock,
        wakeups: postgresWakeups(database.url, logger),
      });
      await sender;
      return { endpointId: endpoint.id, secret: endpoint.secret };
    },
    async close() {
      await (await sender)?.stop();
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
      await db.$disconnect();
      await opened.close();
      await database.drop();
    },
  };
}
