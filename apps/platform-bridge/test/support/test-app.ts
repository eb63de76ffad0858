import { createTestDatabase } from '@pa/db-tools/testing';
import { openAppDatabase } from '@pa/db-tools';
import type { Express } from 'express';
import { createApp } from '../../src/app.ts';
import { MIGRATIONS_DIR } from '../../src/config.ts';
import { createComplianceRollup } from '../../src/features/compliance/compliance-rollup.ts';
import { createTenantAdminService } from '../../src/features/tenants/tenant-admin-service.ts';
import type { Clock } from '../../src/lib/clock.ts';
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

export interface TestBridge {
  app: Express;
  db: Db;
  /** the database's URL, for a bridge process of the test's own */
  databaseUrl: string;
  /** the hot statements as the app runs them: prepared on the pool */
  statements: StatementRunner;
  /** the hot write path's transactions as the app runs them: on the pool */
  transactions: StatementTransaction;
  clock: ReturnType<typeof fixedClock>;
  admin: ReturnType<typeof createTenantAdminService>;
  /** the app's own (shared with it) */
  rollup: ReturnType<typeof createComplianceRollup>;
  close(): Promise<void>;
}

// One real PostgreSQL database per test file, migrated with the project's migrations. Tests create their own
// tenants in it and assert only on their own rows.
export async function startTestBridge(
  opts: { now?: string; rateLimitPerMin?: number } = {},
): Promise<TestBridge> {
  const database = await createTestDatabase({ prefix: 'bridge_test', migrationsDir: MIGRATIONS_DIR });
  // as main.ts opens it: one pool for Prisma and the named statements
  const opened = await openAppDatabase({ name: 'platform', url: database.url, poolMax: 4 });
  const db = createPrismaClient(opened.adapter);
  const clock = fixedClock(opts.now ?? '2026-06-15T09:00:00Z');
  const statements = statementRunner(db, opened.pool);
  const transactions = statementTransaction(db, opened.pool);
  const rollup = createComplianceRollup({ db, clock });
  const app = createApp({
    db,
    statements,
    transactions,
    logger: createLogger('platform-bridge', 'silent'),
    clock,
    rollup,
    rateLimitPerMin: opts.rateLimitPerMin ?? 10_000,
  });
  return {
    app,
    db,
    databaseUrl: database.url,
    statements,
    transactions,
    clock,
    admin: createTenantAdminService({ db }),
    rollup,
    close: async () => {
      await db.$disconnect();
      await opened.close();
      await database.drop();
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
