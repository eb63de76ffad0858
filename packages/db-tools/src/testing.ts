// Per-test-file PostgreSQL databases for the apps' tests: unique name, migrated, dropped afterwards.
// Imported as `@pa/db-tools/testing`, so that app code never pulls in test helpers.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { applyMigrations } from './migrations/apply-migrations.ts';
import { dropDatabase, migrateUrl, redact, withDatabase } from './migrations/postgres-admin.ts';
import { authHint, isAuthRefused, isUnreachable, START_HINT } from './migrations/unreachable.ts';
import pg from 'pg';
import { openAppDatabase } from './runtime/open-database.ts';

export { authHint, isAuthRefused, isUnreachable, START_HINT } from './migrations/unreachable.ts';

export const DEFAULT_TEST_SERVER_URL = 'postgresql://postgres@127.0.0.1:5432';

export async function createTestDatabase(opts: {
  prefix: string;
  migrationsDir: string;
}): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.TEST_DATABASE_URL || DEFAULT_TEST_SERVER_URL;
  // PostgreSQL folds unquoted names to lower case and allows 63 bytes; keep names boring.
  const prefix =
    opts.prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .replace(/^[^a-z]+/, '')
      .slice(0, 40) || 'test';
  const url = withDatabase(server, `${prefix}_${randomBytes(6).toString('hex')}`);
  const drop = () => dropDatabase(url);
  try {
    await migrateUrl(url, opts.migrationsDir);
  } catch (err) {
    if (isUnreachable(err)) {
      throw new Error(
        `PostgreSQL is not reachable at ${redact(server)} (TEST_DATABASE_URL). Start it with:\n  ${START_HINT}`,
        { cause: err },
      );
    }
    // a refused login is not "unreachable", but it is as sure a sign of set-up, not of the code under test
    if (isAuthRefused(err)) throw new Error(authHint(redact(server)), { cause: err });
    await drop().catch(() => {});
    throw err;
  }
  return { url, drop };
}

/**
 * A throw-away embedded (PGlite) data directory under the system's temporary directory, named `<prefix>-…`, already
 * migrated: a copy of a template migrated once per set of migrations (cached there by their hash). A PGlite's
 * initdb and the project's migrations take seconds (half a minute on a busy machine); a copy, a fraction of one.
 */
export async function createEmbeddedTestDir(opts: {
  prefix: string;
  migrationsDir: string;
}): Promise<{ dataDir: string; remove(): void }> {
  const template = await embeddedTemplate(opts.migrationsDir);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${opts.prefix}-`));
  fs.cpSync(template, dataDir, { recursive: true });
  fs.chmodSync(dataDir, 0o700);
  return { dataDir, remove: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

async function embeddedTemplate(migrationsDir: string): Promise<string> {
  const hash = createHash('sha256');
  // the PGlite installed too: a data directory is its PostgreSQL version's only
  const pglite = fs.statSync(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  hash.update(`${pglite.size}:${pglite.mtimeMs}\0`);
  for (const file of (fs.readdirSync(migrationsDir, { recursive: true }) as string[]).sort()) {
    const full = path.join(migrationsDir, file);
    if (fs.statSync(full).isFile()) hash.update(file).update('\0').update(fs.readFileSync(full));
  }
  const root = path.join(os.tmpdir(), 'pa-pglite-templates');
  const template = path.join(root, hash.digest('hex').slice(0, 16));
  if (fs.existsSync(template)) return template;
  // built aside and renamed into place, so that a file running alongside never copies half a template; of two
  // files building it at once, the second rename fails and that file uses the first one's
  fs.mkdirSync(root, { recursive: true });
  const building = fs.mkdtempSync(path.join(root, 'building-'));
  try {
    const opened = await openAppDatabase({ name: 'template', dataDir: building, serveSocket: false });
    try {
      await applyMigrations(opened.sql, migrationsDir);
    } finally {
      await opened.close();
    }
    fs.renameSync(building, template);
  } catch (err) {
    fs.rmSync(building, { recursive: true, force: true });
    if (!fs.existsSync(template)) throw err;
  }
  return template;
}

/**
 * A table locked from outside the app's pool (ACCESS EXCLUSIVE, in an open transaction), for tests of what the app
 * does while its database is slow to answer: `waiting()` counts the app's statements that match `queryLike` and wait
 * on the lock (pg_stat_activity), `release()` rolls the lock back, `end()` closes both connections.
 */
export async function lockTable(databaseUrl: string, table: string, queryLike: string) {
  const holder = new pg.Client({ connectionString: databaseUrl });
  const watcher = new pg.Client({ connectionString: databaseUrl });
  await Promise.all([holder.connect(), watcher.connect()]);
  try {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  } catch (err) {
    await Promise.all([holder.end(), watcher.end()]);
    throw err;
  }
  return {
    waiting: async () =>
      (
        await watcher.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
              AND query LIKE $1`,
          [queryLike],
        )
      ).rows[0]!.n,
    release: () => holder.query('ROLLBACK').then(() => undefined),
    end: () => Promise.all([holder.end(), watcher.end()]).then(() => undefined),
  };
}
