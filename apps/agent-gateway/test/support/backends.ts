import { openAndMigrate, openAppDatabase } from '@pa/db-tools';
import { createEmbeddedTestDir, createTestDatabase } from '@pa/db-tools/testing';
import { MIGRATIONS_DIR } from '../../src/config.ts';
import { createPrismaClient, type Db, type StatementRunner, statementRunner } from '../../src/lib/db.ts';

// The two databases the gateway runs on, for tests of statements that must work on both: PostgreSQL (hot
// statements prepared on the adapter's pool) and the embedded PGlite of `npm start` (everything through Prisma).

export interface GatewayBackend {
  db: Db;
  statements: StatementRunner;
  /** whether the hot statements run on a pool of their own (PostgreSQL) rather than through Prisma (PGlite) */
  pooled: boolean;
  close(): Promise<void>;
}

type Opened = Awaited<ReturnType<typeof openAppDatabase>>;

function backendOn(opened: Opened, remove: () => unknown): GatewayBackend {
  const db = createPrismaClient(opened.adapter);
  return {
    db,
    statements: statementRunner(db, opened.pool),
    pooled: opened.pool !== undefined,
    async close() {
      await db.$disconnect();
      await opened.close();
      await remove();
    },
  };
}

/** A throw-away PostgreSQL database, migrated, named `<prefix>_…`. */
export async function postgresBackend(prefix: string): Promise<GatewayBackend> {
  const database = await createTestDatabase({ prefix, migrationsDir: MIGRATIONS_DIR });
  const opened = await openAppDatabase({ name: 'gateway', url: database.url, poolMax: 4 });
  return backendOn(opened, () => database.drop());
}

/** A throw-away embedded PGlite database in a temporary directory named `<prefix>-…`, migrated. */
export async function embeddedBackend(prefix: string): Promise<GatewayBackend> {
  const dir = await createEmbeddedTestDir({ prefix, migrationsDir: MIGRATIONS_DIR });
  const opened = await openAndMigrate({
    name: 'gateway',
    url: undefined,
    dataDir: dir.dataDir,
    migrationsDir: MIGRATIONS_DIR,
    log: () => {},
  });
  return backendOn(opened, dir.remove);
}

/** For `describe.each`: each backend's name and how to open it. */
export const BACKENDS = [
  ['PostgreSQL', postgresBackend],
  ['embedded PGlite', embeddedBackend],
] as const;
