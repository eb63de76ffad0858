import { applyMigrations } from '../migrations/apply-migrations.ts';
import { ensureDatabase } from '../migrations/postgres-admin.ts';
import { type OpenedDatabase, openAppDatabase } from './open-database.ts';

/**
 * What an app does with its database at start: create it if a URL names a missing one, open it (or the embedded
 * one, served to the CLI), and apply pending migrations.
 */
export async function openAndMigrate(opts: {
  name: string;
  url: string | undefined;
  dataDir: string;
  migrationsDir: string;
  log: (msg: string) => void;
  /** the embedded database served to the CLI while open (the apps); `npm start`'s own short look needs none */
  serveSocket?: boolean;
}): Promise<OpenedDatabase> {
  if (opts.url && (await ensureDatabase(opts.url))) opts.log(`created the ${opts.name} database`);
  const opened = await openAppDatabase({
    name: opts.name,
    url: opts.url,
    dataDir: opts.dataDir,
    serveSocket: opts.serveSocket ?? true,
  });
  try {
    await applyMigrations(opened.sql, opts.migrationsDir, { log: opts.log });
  } catch (err) {
    await opened.close();
    throw err;
  }
  return opened;
}
