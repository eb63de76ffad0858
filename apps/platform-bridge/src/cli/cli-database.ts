import path from 'node:path';
import { applyMigrations, ensureDatabase, type OpenedDatabase, openCliDatabase } from '@pa/db-tools';
import { type Config, MIGRATIONS_DIR, REPO_ROOT } from '../config.ts';
import { createPrismaClient, type Db } from '../lib/db.ts';

export interface CliDatabase {
  db: Db;
  opened: OpenedDatabase;
  close(): Promise<void>;
}

/**
 * The platform database for one operator command: the URL when set; otherwise the embedded directory,
 * through the running app's socket when it is up, else opened directly. A database this process opens
 * itself is migrated first, so the CLI also works before the app has ever started; a running app has
 * already migrated the one it serves.
 */
export async function openPlatformDatabase(config: Config): Promise<CliDatabase> {
  const url = config.PLATFORM_DATABASE_URL;
  if (url) await ensureDatabase(url);
  const opened = await openCliDatabase({
    name: 'platform',
    url,
    dataDir: path.resolve(REPO_ROOT, config.PLATFORM_DATA_DIR, 'platform'),
  });
  let db: Db | undefined;
  try {
    if (opened.kind !== 'embedded-remote') await applyMigrations(opened.sql, MIGRATIONS_DIR);
    db = createPrismaClient(opened.adapter);
  } catch (err) {
    await opened.close().catch(() => {});
    throw err;
  }
  const client = db;
  return {
    db: client,
    opened,
    async close() {
      // Prisma first: on the embedded kinds its connection is the same session the database close ends.
      await client.$disconnect().catch(() => {});
      await opened.close();
    },
  };
}
