import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applyMigrations,
  createDatabase,
  dropDatabase,
  ensureDatabase,
  migrateUrl,
  pgliteRunner,
  pgRunner,
  sha256Hex,
  withDatabase,
} from '../src/migrations/index.ts';
import {
  checkMigrations,
  createMigration,
  migrationList,
  openSchemaEngine,
} from '../src/migrations/schema-engine.ts';
import { createTestDatabase } from '../src/testing.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const BASIC_SCHEMA = path.join(FIXTURES, 'basic', 'schema.prisma');
const BASIC_MIGRATIONS = path.join(FIXTURES, 'basic', 'migrations');
const DRIFT_SCHEMA = path.join(FIXTURES, 'drift', 'schema.prisma');
const MIGRATION_NAMES = ['20250101000000_init', '20250102000000_touch_function'];
const SERVER = process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432';
const NO_FILTERS = { externalTables: [], externalEnums: [] };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function emptyDatabase(): Promise<string> {
  const name = `dbtools_${randomBytes(6).toString('hex')}`;
  await createDatabase(SERVER, name);
  const url = withDatabase(SERVER, name);
  cleanups.push(() => dropDatabase(url));
  return url;
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  cleanups.push(() => client.end());
  return client;
}

async function tempMigrations(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'db-tools-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const migrations = path.join(dir, 'migrations');
  await cp(BASIC_MIGRATIONS, migrations, { recursive: true });
  return migrations;
}

async function tables(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ t: string }>(
    "SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
  );
  return rows.map((r) => r.t);
}

/** What `prisma migrate status` asks the engine: run the real engine's diagnosis on the database. */
async function diagnose(url: string, migrationsDir: string) {
  const session = await openSchemaEngine({ schemaPath: BASIC_SCHEMA, url, serverUrl: SERVER });
  try {
    return await session.engine.diagnoseMigrationHistory({
      migrationsList: await migrationList(migrationsDir),
      optInToShadowDatabase: false,
      filters: NO_FILTERS,
    });
  } finally {
    await session.close();
  }
}

describe('applyMigrations', () => {
  it('migrates an empty database and records rows the way Prisma does', async () => {
    const url = await emptyDatabase();
    const client = await connect(url);
    const logs: string[] = [];
    const result = await applyMigrations(pgRunner(client), BASIC_MIGRATIONS, { log: (m) => logs.push(m) });

    expect(result).toEqual({ applied: MIGRATION_NAMES, alreadyApplied: 0 });
    expect(logs).toHaveLength(2);
    expect(await tables(client)).toEqual(['_prisma_migrations', 'authors', 'books']);
    const { rows } = await client.query('SELECT * FROM _prisma_migrations ORDER BY migration_name');
    expect(rows).toHaveLength(2);
    for (const [i, row] of rows.entries()) {
      const sql = await readFile(path.join(BASIC_MIGRATIONS, MIGRATION_NAMES[i]!, 'migration.sql'));
      expect(row).toMatchObject({
        migration_name: MIGRATION_NAMES[i],
        checksum: sha256Hex(sql.toString('utf8')),
        logs: null,
        rolled_back_at: null,
        applied_steps_count: 1,
      });
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
    }
    // The function migration ran as one script, semicolons in its body included.
    await client.query(`INSERT INTO authors (email) VALUES ('a@example.com')`);
    await client.query(`INSERT INTO books (title, author_id) SELECT '  Dune ', id FROM authors`);
    expect((await client.query('SELECT title FROM books')).rows).toEqual([{ title: 'Dune' }]);

    expect(await diagnose(url, BASIC_MIGRATIONS)).toEqual({
      editedMigrationNames: [],
      failedMigrationNames: [],
      hasMigrationsTable: true,
      history: null,
    });
  });

  it('creates the same _prisma_migrations table as the Prisma engine, and accepts its rows', async () => {
    const ours = await connect(await emptyDatabase());
    await applyMigrations(pgRunner(ours), BASIC_MIGRATIONS);

    const theirsUrl = await emptyDatabase();
    const session = await openSchemaEngine({ schemaPath: BASIC_SCHEMA, url: theirsUrl, serverUrl: SERVER });
    try {
      const out = await session.engine.applyMigrations({
        migrationsList: await migrationList(BASIC_MIGRATIONS),
        filters: NO_FILTERS,
      });
      expect(out.appliedMigrationNames).toEqual(MIGRATION_NAMES);
    } finally {
      await session.close();
    }
    const theirs = await connect(theirsUrl);
    const shape = async (c: pg.Client) =>
      (
        await c.query(
          `SELECT column_name, data_type, character_maximum_length, is_nullable, column_default
           FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
        )
      ).rows;
    expect(await shape(ours)).toEqual(await shape(theirs));
    const rows = async (c: pg.Client) =>
      (
        await c.query(
          `SELECT migration_name, checksum, logs, rolled_back_at, applied_steps_count, finished_at IS NOT NULL AS finished
           FROM _prisma_migrations ORDER BY migration_name`,
        )
      ).rows;
    expect(await rows(ours)).toEqual(await rows(theirs));

    expect(await applyMigrations(pgRunner(theirs), BASIC_MIGRATIONS)).toEqual({
      applied: [],
      alreadyApplied: 2,
    });
  });

  it('leaves nothing for the Prisma engine to apply (what `prisma migrate deploy` would do next)', async () => {
    const url = await emptyDatabase();
    await migrateUrl(url, BASIC_MIGRATIONS);
    const session = await openSchemaEngine({ schemaPath: BASIC_SCHEMA, url, serverUrl: SERVER });
    try {
      const out = await session.engine.applyMigrations({
        migrationsList: await migrationList(BASIC_MIGRATIONS),
        filters: NO_FILTERS,
      });
      expect(out.appliedMigrationNames).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('is a no-op the second time', async () => {
    const client = await connect(await emptyDatabase());
    await applyMigrations(pgRunner(client), BASIC_MIGRATIONS);
    const before = (await client.query('SELECT * FROM _prisma_migrations ORDER BY id')).rows;
    expect(await applyMigrations(pgRunner(client), BASIC_MIGRATIONS)).toEqual({
      applied: [],
      alreadyApplied: 2,
    });
    expect((await client.query('SELECT * FROM _prisma_migrations ORDER BY id')).rows).toEqual(before);
  });

  it('applies only the new migration when one is added', async () => {
    const migrations = await tempMigrations();
    const client = await connect(await emptyDatabase());
    await applyMigrations(pgRunner(client), migrations);
    await mkdir(path.join(migrations, '20250103000000_more'));
    await writeFile(
      path.join(migrations, '20250103000000_more', 'migration.sql'),
      'ALTER TABLE "books" ADD COLUMN "x" INTEGER;\n',
    );
    expect(await applyMigrations(pgRunner(client), migrations)).toEqual({
      applied: ['20250103000000_more'],
      alreadyApplied: 2,
    });
  });

  it('refuses when an applied migration.sql was modified', async () => {
    const migrations = await tempMigrations();
    const client = await connect(await emptyDatabase());
    await applyMigrations(pgRunner(client), migrations);
    const file = path.join(migrations, MIGRATION_NAMES[0]!, 'migration.sql');
    const original = await readFile(file, 'utf8');

    // A CRLF checkout of the same file is not an edit (Prisma accepts it too).
    await writeFile(file, original.replaceAll('\n', '\r\n'));
    expect((await applyMigrations(pgRunner(client), migrations)).applied).toEqual([]);

    await writeFile(file, `${original}\n-- edited\n`);
    await expect(applyMigrations(pgRunner(client), migrations)).rejects.toThrow(
      /20250101000000_init\/migration\.sql was modified after it was applied/,
    );
  });

  it('refuses when a failed migration row exists', async () => {
    const client = await connect(await emptyDatabase());
    await applyMigrations(pgRunner(client), BASIC_MIGRATIONS);
    await client.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs) VALUES ('x', 'y', '20250103000000_broken', 'boom')`,
    );
    await expect(applyMigrations(pgRunner(client), BASIC_MIGRATIONS)).rejects.toThrow(
      /migration 20250103000000_broken failed earlier on this database/,
    );
  });

  it('rolls a failing migration back completely', async () => {
    const migrations = await tempMigrations();
    const dir = path.join(migrations, '20250103000000_bad');
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'migration.sql'),
      'CREATE TABLE "half" (id INT);\nSELECT * FROM "missing_table";\n',
    );
    const client = await connect(await emptyDatabase());
    await expect(applyMigrations(pgRunner(client), migrations)).rejects.toThrow(
      /Migration 20250103000000_bad failed and was rolled back: relation "missing_table" does not exist/,
    );
    expect(await tables(client)).not.toContain('half');
    expect((await client.query('SELECT migration_name FROM _prisma_migrations')).rowCount).toBe(2);

    await writeFile(path.join(dir, 'migration.sql'), 'CREATE TABLE "half" (id INT);\n');
    expect((await applyMigrations(pgRunner(client), migrations)).applied).toEqual(['20250103000000_bad']);
  });

  it('applies each migration exactly once when two processes start together', async () => {
    const url = await emptyDatabase();
    const [a, b] = await Promise.all([connect(url), connect(url)]);
    const results = await Promise.all([
      applyMigrations(pgRunner(a), BASIC_MIGRATIONS),
      applyMigrations(pgRunner(b), BASIC_MIGRATIONS),
    ]);
    expect(results.flatMap((r) => r.applied).sort()).toEqual(MIGRATION_NAMES);
    expect(results.map((r) => r.alreadyApplied).sort()).toEqual([0, 2]);
    const { rows } = await a.query(
      'SELECT migration_name, count(*)::int AS n FROM _prisma_migrations GROUP BY 1 ORDER BY 1',
    );
    expect(rows).toEqual(MIGRATION_NAMES.map((migration_name) => ({ migration_name, n: 1 })));
  });

  it('refuses a non-empty database without migration history', async () => {
    const client = await connect(await emptyDatabase());
    await client.query('CREATE TABLE "legacy" (id INT)');
    await expect(applyMigrations(pgRunner(client), BASIC_MIGRATIONS)).rejects.toThrow(/schema is not empty/);
  });

  it('works on PGlite through pgliteRunner', async () => {
    const db = new PGlite();
    cleanups.push(() => db.close());
    const runner = pgliteRunner(db);
    expect(await applyMigrations(runner, BASIC_MIGRATIONS)).toEqual({
      applied: MIGRATION_NAMES,
      alreadyApplied: 0,
    });
    expect(await applyMigrations(runner, BASIC_MIGRATIONS)).toEqual({ applied: [], alreadyApplied: 2 });
    const rows = await runner.query<{ checksum: string }>(
      'SELECT checksum FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows[0]?.checksum).toBe(
      sha256Hex(await readFile(path.join(BASIC_MIGRATIONS, MIGRATION_NAMES[0]!, 'migration.sql'), 'utf8')),
    );
  });
});

describe('migrateUrl / ensureDatabase', () => {
  it('creates the database when missing, then migrates it', async () => {
    const url = withDatabase(SERVER, `dbtools_${randomBytes(6).toString('hex')}`);
    cleanups.push(() => dropDatabase(url));
    const first = await migrateUrl(url, BASIC_MIGRATIONS);
    expect(first).toEqual({ createdDatabase: true, applied: MIGRATION_NAMES, alreadyApplied: 0 });
    expect(await ensureDatabase(url)).toBe(false);
    expect(await migrateUrl(url, BASIC_MIGRATIONS)).toEqual({
      createdDatabase: false,
      applied: [],
      alreadyApplied: 2,
    });
  });

  it('honours ?schema=', async () => {
    const url = `${await emptyDatabase()}?schema=app`;
    await migrateUrl(url, BASIC_MIGRATIONS);
    const client = await connect(url.replace('?schema=app', ''));
    const { rows } = await client.query(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'app' ORDER BY 1",
    );
    expect(rows.map((r) => r.tablename)).toEqual(['_prisma_migrations', 'authors', 'books']);
  });
});

describe('createTestDatabase', () => {
  it('creates a migrated database and drops it', async () => {
    const db = await createTestDatabase({ prefix: 'DB-Tools Test', migrationsDir: BASIC_MIGRATIONS });
    expect(db.url).toMatch(/\/db_tools_test_[0-9a-f]{12}$/);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    expect(await tables(client)).toEqual(['_prisma_migrations', 'authors', 'books']);
    await client.end();
    await db.drop();
    const name = new URL(db.url).pathname.slice(1);
    const admin = await connect(withDatabase(SERVER, 'postgres'));
    expect((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount).toBe(0);
  });

  describe('without a server', () => {
    const saved = process.env.TEST_DATABASE_URL;
    beforeEach(() => {
      process.env.TEST_DATABASE_URL = 'postgresql://postgres@127.0.0.1:1';
    });
    afterAll(() => {
      if (saved === undefined) delete process.env.TEST_DATABASE_URL;
      else process.env.TEST_DATABASE_URL = saved;
    });
    it('says how to start PostgreSQL', async () => {
      await expect(createTestDatabase({ prefix: 'x', migrationsDir: BASIC_MIGRATIONS })).rejects.toThrow(
        /PostgreSQL is not reachable.*\n.*pg_ctlcluster --skip-systemctl-redirect \$\(ls \/etc\/postgresql\) main start/,
      );
    });
  });
});

describe('check and new (WebAssembly schema engine)', () => {
  async function shadowDatabases(): Promise<number> {
    const admin = await connect(withDatabase(SERVER, 'postgres'));
    return (
      (await admin.query("SELECT 1 FROM pg_database WHERE datname LIKE 'prisma_shadow_%'")).rowCount ?? 0
    );
  }

  it('passes when schema and migrations agree, and leaves no shadow database behind', async () => {
    const before = await shadowDatabases();
    expect(
      await checkMigrations({ schemaPath: BASIC_SCHEMA, migrationsDir: BASIC_MIGRATIONS, serverUrl: SERVER }),
    ).toEqual({
      inSync: true,
      sql: '',
    });
    expect(await shadowDatabases()).toBe(before);
  });

  it('detects a column that no migration creates', async () => {
    const result = await checkMigrations({
      schemaPath: DRIFT_SCHEMA,
      migrationsDir: BASIC_MIGRATIONS,
      serverUrl: SERVER,
    });
    expect(result.inSync).toBe(false);
    expect(result.sql).toContain('ALTER TABLE "books" ADD COLUMN     "isbn" TEXT;');
  });

  it('new writes a migration that makes check pass and applies cleanly', async () => {
    const migrations = await tempMigrations();
    const created = await createMigration({
      schemaPath: DRIFT_SCHEMA,
      migrationsDir: migrations,
      name: 'Add ISBN',
      serverUrl: SERVER,
      now: new Date('2020-01-01T00:00:00Z'), // earlier than the fixtures: must still sort last
    });
    expect(created?.name).toBe('20250102000001_add_isbn');
    expect(await readFile(created!.file, 'utf8')).toContain('"isbn" TEXT');
    expect(
      (await checkMigrations({ schemaPath: DRIFT_SCHEMA, migrationsDir: migrations, serverUrl: SERVER }))
        .inSync,
    ).toBe(true);
    expect(
      await createMigration({
        schemaPath: DRIFT_SCHEMA,
        migrationsDir: migrations,
        name: 'again',
        serverUrl: SERVER,
      }),
    ).toBeNull();

    const client = await connect(await emptyDatabase());
    expect((await applyMigrations(pgRunner(client), migrations)).applied).toHaveLength(3);
    const { rows } = await client.query(
      "SELECT 1 FROM information_schema.columns WHERE table_name = 'books' AND column_name = 'isbn'",
    );
    expect(rows).toHaveLength(1);
  });

  it('new works from an empty migrations folder and writes migration_lock.toml', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'db-tools-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const migrations = path.join(dir, 'migrations');
    const created = await createMigration({
      schemaPath: BASIC_SCHEMA,
      migrationsDir: migrations,
      name: 'init',
      serverUrl: SERVER,
    });
    expect(created?.name).toMatch(/^\d{14}_init$/);
    expect(created?.sql).not.toContain('CREATE SCHEMA');
    expect(await readFile(path.join(migrations, 'migration_lock.toml'), 'utf8')).toContain(
      'provider = "postgresql"',
    );
    expect(
      (await checkMigrations({ schemaPath: BASIC_SCHEMA, migrationsDir: migrations, serverUrl: SERVER }))
        .inSync,
    ).toBe(true);
  });
});
