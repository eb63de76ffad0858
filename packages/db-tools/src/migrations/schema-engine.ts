// Prisma's schema engine as WebAssembly (@prisma/schema-engine-wasm), because the native binary the
// CLI wants cannot be downloaded here. Used to diff the migrations folder against schema.prisma.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';
import * as bindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import pg from 'pg';
import { MIGRATION_LOCK_TOML, readMigrations } from './apply-migrations.ts';
import { createDatabase, dropDatabase, withDatabase } from './postgres-admin.ts';

export const DEFAULT_SERVER_URL = 'postgresql://postgres@127.0.0.1:5432';

let loading: Promise<typeof bindings> | undefined;

// Node 20 cannot `import` a .wasm file (what the package's entry point does), so instantiate the
// bytes ourselves with the package's JS glue as the import object.
export function loadSchemaEngine(): Promise<typeof bindings> {
  loading ??= (async () => {
    const glue = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = await readFile(path.join(path.dirname(glue), 'schema_engine_bg.wasm'));
    // The glue reports Rust panics through this global; without it a panic becomes a TypeError.
    const registry = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown };
    registry.PRISMA_WASM_PANIC_REGISTRY ??= {
      message: '',
      set_message(this: { message: string }, msg: string) {
        this.message = `RuntimeError: ${msg}`;
      },
    };
    const { instance } = await WebAssembly.instantiate(bytes, {
      './schema_engine_bg.js': bindings as unknown as WebAssembly.ModuleImports,
    });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings;
  })();
  return loading;
}

// The engine reads pg_catalog's internal "char" columns while introspecting, which
// @prisma/adapter-pg rejects (OID 18); pg already returns them as strings, so call them text (25).
function charAsText<T>(result: T): T {
  const fields = (result as { fields?: { dataTypeID: number }[] } | undefined)?.fields;
  for (const f of fields ?? []) if (f.dataTypeID === 18) f.dataTypeID = 25;
  return result;
}

function patchCharColumns(client: pg.PoolClient): void {
  const original = client.query.bind(client) as (...args: unknown[]) => unknown;
  const query = (...args: unknown[]) => {
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => last(err, err ? res : charAsText(res));
      return original(...args);
    }
    const out = original(...args);
    return out instanceof Promise ? out.then(charAsText) : out;
  };
  Object.assign(client, { query });
}

/**
 * A migration-aware adapter factory whose shadow databases are created on `serverUrl` and dropped
 * after their pool is closed (adapter-pg's own helper drops first and fails, notes pitfall 3).
 */
class PgMigrationFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres';
  readonly adapterName = '@pa/db-tools';
  private readonly pools = new Set<pg.Pool>();
  private readonly shadowDbs = new Set<string>();

  constructor(
    private readonly url: string,
    private readonly serverUrl: string,
  ) {}

  connect(): Promise<SqlDriverAdapter> {
    return this.open(this.url);
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const url = withDatabase(this.serverUrl, `prisma_shadow_${randomBytes(8).toString('hex')}`);
    await createDatabase(this.serverUrl, new URL(url).pathname.slice(1));
    this.shadowDbs.add(url);
    return this.open(url, async () => {
      this.shadowDbs.delete(url);
      await dropDatabase(url);
    });
  }

  private async open(url: string, afterClose?: () => Promise<void>): Promise<SqlDriverAdapter> {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    pool.on('connect', patchCharColumns);
    pool.on('error', () => {}); // an idle client dying must not crash the CLI; the next query reports it
    this.pools.add(pool);
    const adapter = await new PrismaPg(pool).connect();
    // adapter-pg splits scripts on ";", which breaks function bodies and string literals; send the
    // whole script as one simple-protocol query instead, as the native engine does.
    adapter.executeScript = async (script: string) => {
      await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
    };
    adapter.dispose = async () => {
      await this.endPool(pool);
      await afterClose?.();
    };
    return adapter;
  }

  private async endPool(pool: pg.Pool): Promise<void> {
    if (this.pools.delete(pool)) await pool.end();
  }

  /** Closes whatever the engine left open, including shadow databases after a failure. */
  async close(): Promise<void> {
    await Promise.all([...this.pools].map((p) => this.endPool(p)));
    await Promise.all([...this.shadowDbs].map((url) => dropDatabase(url).catch(() => {})));
    this.shadowDbs.clear();
  }
}

export interface EngineSession {
  engine: SchemaEngine;
  close(): Promise<void>;
}

/**
 * Opens the engine on `schemaPath`. `url` is the database the engine calls "main"; for diffing it is
 * only connected to, so the server's maintenance database is used when none is given.
 */
export async function openSchemaEngine(opts: {
  schemaPath: string;
  serverUrl?: string;
  url?: string;
}): Promise<EngineSession> {
  const serverUrl = opts.serverUrl ?? shadowServerUrl();
  const { SchemaEngine } = await loadSchemaEngine();
  const factory = new PgMigrationFactory(opts.url ?? withDatabase(serverUrl, 'postgres'), serverUrl);
  const source = await readFile(opts.schemaPath, 'utf8');
  const debug = process.env.DB_TOOLS_DEBUG ? (line: string) => console.error(line) : () => {};
  try {
    const engine = await SchemaEngine.new(
      { datamodels: [[opts.schemaPath, source]] },
      debug,
      bindMigrationAwareSqlAdapterFactory(factory),
    );
    return {
      engine,
      async close() {
        engine.free();
        await factory.close();
      },
    };
  } catch (err) {
    await factory.close();
    throw err;
  }
}

/** Where shadow databases go: SHADOW_DATABASE_URL, else the TEST_DATABASE_URL server, else local. */
export function shadowServerUrl(): string {
  return process.env.SHADOW_DATABASE_URL || process.env.TEST_DATABASE_URL || DEFAULT_SERVER_URL;
}

/** The migrations folder as the engine expects it. A missing lock file is supplied (notes, pitfall 5). */
export async function migrationList(migrationsDir: string): Promise<MigrationList> {
  const baseDir = path.resolve(migrationsDir);
  const lock = await readFile(path.join(baseDir, 'migration_lock.toml'), 'utf8').catch(
    () => MIGRATION_LOCK_TOML,
  );
  const migrations = await readMigrations(baseDir);
  return {
    baseDir,
    lockfile: { path: 'migration_lock.toml', content: lock },
    shadowDbInitScript: '',
    migrationDirectories: migrations.map((m) => ({
      path: m.name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: m.script } },
    })),
  };
}

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/**
 * SQL that takes a database built from the migrations folder to schema.prisma; '' when they agree.
 * The engine replays the migrations into a temporary shadow database to find out.
 */
export async function diffMigrationsToSchema(opts: {
  schemaPath: string;
  migrationsDir: string;
  serverUrl?: string;
}): Promise<string> {
  const session = await openSchemaEngine(opts);
  try {
    const source = await readFile(opts.schemaPath, 'utf8');
    const result = await session.engine.diff({
      from: { tag: 'migrations', ...(await migrationList(opts.migrationsDir)) },
      to: { tag: 'schemaDatamodel', files: [{ path: opts.schemaPath, content: source }] },
      script: true,
      exitCode: true, // makes the engine report 2 when there is a difference
      filters: NO_FILTERS,
    });
    return result.exitCode === 2 ? (result.stdout ?? '') : '';
  } finally {
    await session.close();
  }
}

export interface SchemaFiles {
  schemaPath: string;
  migrationsDir: string;
  serverUrl?: string;
}

/** Compares the migrations folder with schema.prisma; `sql` is what a new migration would contain. */
export async function checkMigrations(opts: SchemaFiles): Promise<{ inSync: boolean; sql: string }> {
  const sql = await diffMigrationsToSchema(opts);
  return { inSync: sql === '', sql };
}

function utcStamp(date: Date): string {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}

/**
 * Writes `<YYYYMMDDHHMMSS>_<name>/migration.sql` with the SQL that brings the migrations folder up to
 * schema.prisma (and migration_lock.toml when missing). Returns null, creating nothing, when in sync.
 */
export async function createMigration(
  opts: SchemaFiles & { name: string; now?: Date },
): Promise<{ name: string; file: string; sql: string } | null> {
  const slug = opts.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 200);
  if (!slug) throw new Error(`Invalid migration name: ${JSON.stringify(opts.name)}`);
  const sql = await diffMigrationsToSchema(opts);
  if (sql === '') return null;

  // The new folder must sort after every existing one, or fresh databases would apply it too early.
  const existing = (await readMigrations(opts.migrationsDir)).map((m) => m.name);
  let stamp = utcStamp(opts.now ?? new Date());
  const last = existing.at(-1)?.slice(0, 14);
  if (last && /^\d{14}$/.test(last) && stamp <= last) {
    const t = last.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, '$1-$2-$3T$4:$5:$6Z');
    stamp = utcStamp(new Date(Date.parse(t) + 1000));
  }
  const name = `${stamp}_${slug}`;
  const dir = path.join(opts.migrationsDir, name);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'migration.sql');
  await writeFile(file, sql, { flag: 'wx' });
  await writeFile(path.join(opts.migrationsDir, 'migration_lock.toml'), MIGRATION_LOCK_TOML, {
    flag: 'wx',
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  return { name, file, sql };
}
