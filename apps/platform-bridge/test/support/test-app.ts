import { createEmbeddedTestDir, createTestDatabase } from '@pa/db-tools/testing';
import { openAndMigrate, openAppDatabase, type OpenedDatabase } from '@pa/db-tools';
import type { Express } from 'express';
import { type AppDeps, createApp } from '../../src/app.ts';
import { MIGRATIONS_DIR } from '../../src/config.ts';
import { createComplianceRollup } from '../../src/features/compliance/compliance-rollup.ts';
import { createTenantAdminService } from '../../src/features/tenants/tenant-admin-service.ts';
import type { Clock } from '../../src/lib/clock.ts';
import {
  type BridgeMetrics,
  createBridgeMetrics,
  METRICS_OFF,
} from '../../src/lib/metrics/bridge-metrics.ts';
import {
  createPrismaClient,
  type Db,
  type StatementRunner,
  type StatementTransaction,
  statementRunner,
  statementTransaction,
} from '../../src/lib/db.ts';
import type { AddressInfo } from 'node:net';
import { createLogger, listen } from '@pa/http-kit';

/** A clock the test can move. */
export function fixedClock(iso: string): Clock & { set(iso: string): void } {
  let now = new Date(iso);
  return { now: () => new Date(now), set: (v) => (now = new Date(v)) };
}

/** The two databases the bridge runs on: PostgreSQL, and the embedded PGlite of `npm start` without a URL. */
export type BridgeBackend = 'postgres' | 'embedded';

/** For `describe.each`: each backend's name and the `backend` option of startTestBridge. */
export const BRIDGE_BACKENDS = [
  ['PostgreSQL', 'postgres'],
  ['embedded PGlite', 'embedded'],
] as const satisfies ReadonlyArray<readonly [string, BridgeBackend]>;

export interface TestBridge {
  app: Express;
  db: Db;
  backend: BridgeBackend;
  /** the database's URL, for a bridge process of the test's own (PostgreSQL only: '' on the embedded one) */
  databaseUrl: string;
  /** the hot statements as the app runs them: prepared on the pool */
  statements: StatementRunner;
  /** the hot write path's transactions as the app runs them: on the pool */
  transactions: StatementTransaction;
  clock: ReturnType<typeof fixedClock>;
  admin: ReturnType<typeof createTenantAdminService>;
  /** the app's own (shared with it) */
  rollup: ReturnType<typeof createComplianceRollup>;
  /** the app's metrics (off unless `metrics` was given) */
  metrics: BridgeMetrics;
  close(): Promise<void>;
}

/** A throw-away database of the backend, migrated, opened as main.ts opens it. */
async function openTestDatabase(
  backend: BridgeBackend,
): Promise<{ opened: OpenedDatabase; url: string; remove(): unknown }> {
  if (backend === 'embedded') {
    const dir = await createEmbeddedTestDir({ prefix: 'bridge-test', migrationsDir: MIGRATIONS_DIR });
    const opened = await openAndMigrate({
      name: 'platform',
      url: undefined,
      dataDir: dir.dataDir,
      migrationsDir: MIGRATIONS_DIR,
      log: () => {},
    });
    return { opened, url: '', remove: dir.remove };
  }
  const database = await createTestDatabase({ prefix: 'bridge_test', migrationsDir: MIGRATIONS_DIR });
  // one pool for Prisma and the named statements
  const opened = await openAppDatabase({ name: 'platform', url: database.url, poolMax: 4 });
  return { opened, url: database.url, remove: () => database.drop() };
}

// One real database per test file (PostgreSQL unless `backend` says the embedded one), migrated with the
// project's migrations. Tests create their own tenants in it and assert only on their own rows.
export async function startTestBridge(
  opts: {
    now?: string;
    rateLimitPerMin?: number;
    backend?: BridgeBackend;
    /** the admin API's webhook secret key and SSRF policy (createApp's `webhooks`) */
    webhooks?: AppDeps['webhooks'];
    /** METRICS_ENABLED, with this METRICS_TOKEN (none: /metrics is not served on the app's port) */
    metrics?: { token?: string };
  } = {},
): Promise<TestBridge> {
  const backend = opts.backend ?? 'postgres';
  const { opened, url, remove } = await openTestDatabase(backend);
  const db = createPrismaClient(opened.adapter);
  const clock = fixedClock(opts.now ?? '2026-06-15T09:00:00Z');
  const statements = statementRunner(db, opened.pool);
  const transactions = statementTransaction(db, opened.pool);
  const rollup = createComplianceRollup({ db, clock });
  const metrics = opts.metrics
    ? createBridgeMetrics({ enabled: true, token: opts.metrics.token, db, pool: opened.pool })
    : METRICS_OFF;
  const app = createApp({
    db,
    statements,
    transactions,
    logger: createLogger('platform-bridge', 'silent'),
    clock,
    rollup,
    rateLimitPerMin: opts.rateLimitPerMin ?? 10_000,
    ...(opts.webhooks ? { webhooks: opts.webhooks } : {}),
    metrics,
  });
  return {
    app,
    db,
    backend,
    databaseUrl: url,
    statements,
    transactions,
    clock,
    admin: createTenantAdminService({ db }),
    rollup,
    metrics,
    close: async () => {
      await db.$disconnect();
      await opened.close();
      await remove();
    },
  };
}

/** The bridge's app listening on 127.0.0.1 (for clients that need a real socket: fetch, raw `net`). */
export async function listenTestBridge(t: TestBridge): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = await listen(t.app, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
