// Opening an app's database: a real PostgreSQL when its URL is set, otherwise an embedded PGlite in
// `.data/<name>/`. An embedded directory is opened by one process only; the running app serves it on
// a loopback port and the operator CLI connects there (see embedded-socket.ts for why the app keeps
// its own fast in-process path and how both sides are kept from corrupting each other's work).
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { embeddedAdapterFactory } from './embedded-adapter.ts';
import {
  acquireDirLock,
  DataDirInUseError,
  type DirLock,
  OWNER_FILE,
  type OwnerRecord,
  ownerIsLive,
  readOwner,
} from './embedded-lock.ts';
import { PgliteSession } from './embedded-session.ts';
import { EmbeddedSocketServer } from './embedded-socket.ts';

export { DataDirInUseError, OWNER_FILE, type OwnerRecord, readOwner } from './embedded-lock.ts';

export type DatabaseName = 'platform' | 'gateway';

/**
 * Raw SQL on the opened database, behaving as ONE session (like a single connection): calls run in
 * order, and a BEGIN sent through it stays open for its later calls until COMMIT/ROLLBACK. On an
 * embedded database an open transaction here owns the whole database, so do not await Prisma
 * queries between its BEGIN and COMMIT (they would wait for it). Structurally the `SqlRunner` of
 * migrations.ts, so `applyMigrations(db.sql, dir)` works on every kind.
 */
export interface SqlSession {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  exec(script: string): Promise<void>;
}

export interface OpenedDatabase {
  /** `embedded-remote`: a CLI talking to the running app that owns the embedded directory. */
  kind: 'postgres' | 'embedded' | 'embedded-remote';
  /** For `new PrismaClient({ adapter })`. Disconnect the client before `close()`. */
  adapter: SqlDriverAdapterFactory;
  sql: SqlSession;
  /** Human-readable, without passwords. */
  describe: string;
  /** Absolute data directory, for the embedded kinds. */
  dataDir?: string;
  /** Where an `embedded` database is served, or the app an `embedded-remote` one talks to. */
  socket?: { host: string; port: number };
  /**
   * `postgres` only: the pool the Prisma adapter runs on, for statements Prisma cannot express well (e.g. named
   * prepared statements). Never given for the embedded kinds: their one backend session is shared by every
   * client, so per-connection state such as a prepared statement's name would collide there.
   */
  pool?: pg.Pool;
  /** The in-process PGlite (`embedded` only), e.g. for health checks; mind the locking notes above. */
  pglite?: PGlite;
  /** Stops serving (rolling back socket clients' open transactions), closes PGlite/pools, releases the directory. */
  close(): Promise<void>;
}

export interface OpenAppDatabaseOptions {
  name: DatabaseName;
  /** A PostgreSQL URL; empty or absent means embedded. Create the database first (ensureDatabase). */
  url?: string | null;
  /** Embedded data directory; relative paths are taken from the repository root. Default `.data/<name>`. */
  dataDir?: string;
  /** Serve the embedded database on a loopback port for the CLI. Default true. */
  serveSocket?: boolean;
  /** Loopback port to serve on; default 0 (any free port, recorded in the owner file). */
  socketPort?: number;
  /** A socket client idle inside a transaction this long is disconnected (rolled back). Default 30 s. */
  socketIdleTransactionTimeoutMs?: number;
  /** Pool size of the Prisma adapter for a URL. Default 10. */
  poolMax?: number;
}

export interface OpenCliDatabaseOptions {
  name: DatabaseName;
  url?: string | null;
  dataDir?: string;
  /** How long to wait for an app that is still opening the directory. Default 20 s. */
  waitForAppMs?: number;
}

const ENV_URL: Record<DatabaseName, string> = {
  platform: 'PLATFORM_DATABASE_URL',
  gateway: 'GATEWAY_DATABASE_URL',
};

/** `PLATFORM_DATABASE_URL` / `GATEWAY_DATABASE_URL`, or undefined when unset or empty (embedded). */
export function databaseUrlFromEnv(
  name: DatabaseName,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  return env[ENV_URL[name]]?.trim() || undefined;
}

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export function defaultDataDir(name: DatabaseName): string {
  return path.join(REPO_ROOT, '.data', name);
}

function resolveDataDir(name: DatabaseName, dataDir: string | undefined): string {
  return dataDir ? path.resolve(REPO_ROOT, dataDir) : defaultDataDir(name);
}

function displayPath(dir: string): string {
  const rel = path.relative(process.cwd(), dir);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : dir;
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<invalid database URL>';
  }
}

// One pooled connection that is never recycled while idle, so session state (an open transaction,
// an advisory lock) survives between calls; it reconnects lazily if the connection dies.
function singleSessionPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool({ ...config, max: 1, idleTimeoutMillis: 0 });
  // An idle client's error (server restart, app shutdown) must not crash the process.
  pool.on('error', () => {});
  return pool;
}

function poolSession(pool: pg.Pool): SqlSession {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return (await pool.query(sql, params)).rows as T[];
    },
    async exec(script: string) {
      await pool.query(script);
    },
  };
}

// Prisma URLs may carry `?schema=` (pg ignores it); migrateUrl in migrations.ts honours it, so the
// adapter and `sql` must too, or they would look in `public` for tables migrated elsewhere.
function schemaOf(url: string): string | undefined {
  try {
    return new URL(url).searchParams.get('schema') || undefined;
  } catch {
    return undefined;
  }
}

function searchPathOption(schema: string): string {
  // A startup `options` value: whitespace and backslashes are escaped with a backslash.
  const ident = /^[a-z_][a-z0-9_$]*$/.test(schema) ? schema : `"${schema.replaceAll('"', '""')}"`;
  return `-c search_path=${ident.replace(/[\\\s]/g, (c) => `\\${c}`)}`;
}

function openPostgres(url: string, poolMax: number): OpenedDatabase {
  const schema = schemaOf(url);
  const sqlPool = singleSessionPool({
    connectionString: url,
    ...(schema ? { options: searchPathOption(schema) } : {}),
  });
  // The adapter's pool, made here so that it can be handed out too; raw statements on it see the same schema.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    ...(schema ? { options: searchPathOption(schema) } : {}),
  });
  pool.on('error', () => {}); // an idle client's error (a server restart) must not crash the process
  return {
    kind: 'postgres',
    adapter: new PrismaPg(pool, schema ? { schema } : undefined),
    sql: poolSession(sqlPool),
    pool,
    describe: `PostgreSQL ${redactUrl(url)}`,
    async close() {
      await sqlPool.end();
      await pool.end();
    },
  };
}

/** Refuses a non-empty directory that is not a PostgreSQL data directory, rather than initdb into it. */
function checkDataDir(dataDir: string): void {
  if (fs.existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  const foreign = fs.readdirSync(dataDir).filter((f) => f !== OWNER_FILE && !f.startsWith(`${OWNER_FILE}.`));
  if (foreign.length > 0) {
    throw new Error(
      `${dataDir} is neither empty nor a PGlite data directory (it holds ${foreign.slice(0, 3).join(', ')}); refusing to initialise a database there.`,
    );
  }
}

async function openEmbedded(opts: {
  dataDir: string;
  role: 'app' | 'cli';
  serveSocket: boolean;
  socketPort?: number;
  idleTransactionTimeoutMs?: number;
}): Promise<OpenedDatabase> {
  // PGlite creates the directory itself but not its parents; the owner file needs it first anyway.
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const lock: DirLock = acquireDirLock(opts.dataDir, { role: opts.role, state: 'starting', socket: null });
  let db: PGlite | undefined;
  let server: EmbeddedSocketServer | undefined;
  try {
    checkDataDir(opts.dataDir);
    db = await PGlite.create(opts.dataDir);
    let socket: { host: string; port: number } | undefined;
    if (opts.serveSocket) {
      server = new EmbeddedSocketServer(db, {
        port: opts.socketPort ?? 0,
        idleSessionTimeoutMs: opts.idleTransactionTimeoutMs,
      });
      socket = await server.start();
    }
    lock.update({ state: 'ready', socket: socket ?? null });
    const session = new PgliteSession(db);
    const pglite = db;
    const shown = displayPath(opts.dataDir);
    let closing: Promise<void> | undefined;
    return {
      kind: 'embedded',
      adapter: embeddedAdapterFactory(db),
      sql: session,
      describe: `embedded PGlite at ${shown}${socket ? ` (served on ${socket.host}:${socket.port})` : ''}`,
      dataDir: opts.dataDir,
      socket,
      pglite,
      close() {
        closing ??= (async () => {
          try {
            // Clients first: their open transactions are rolled back and the database let go.
            await server?.stop();
            await session.end();
            await pglite.close();
          } finally {
            lock.release();
          }
        })();
        return closing;
      },
    };
  } catch (err) {
    await server?.stop().catch(() => {});
    await db?.close().catch(() => {});
    lock.release();
    throw err;
  }
}

/**
 * The database of a running app: `url` → PostgreSQL; otherwise the embedded directory, owned by
 * this process and served on a loopback port. Throws DataDirInUseError when another live process
 * has the directory.
 */
export async function openAppDatabase(opts: OpenAppDatabaseOptions): Promise<OpenedDatabase> {
  if (opts.url) return openPostgres(opts.url, opts.poolMax ?? 10);
  return openEmbedded({
    dataDir: resolveDataDir(opts.name, opts.dataDir),
    role: 'app',
    serveSocket: opts.serveSocket ?? true,
    socketPort: opts.socketPort,
    idleTransactionTimeoutMs: opts.socketIdleTransactionTimeoutMs,
  });
}

async function connectToOwner(owner: OwnerRecord, dataDir: string): Promise<OpenedDatabase | null> {
  const socket = owner.socket;
  if (!socket) return null;
  // One connection, shared by Prisma and `sql`: the embedded database has one session anyway.
  const pool = singleSessionPool({
    host: socket.host,
    port: socket.port,
    user: 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 5_000,
  });
  try {
    await pool.query('SELECT 1');
  } catch {
    await pool.end().catch(() => {});
    return null;
  }
  return {
    kind: 'embedded-remote',
    adapter: new PrismaPg(pool),
    sql: poolSession(pool),
    describe: `embedded PGlite at ${displayPath(dataDir)} via the running app (pid ${owner.pid}) on ${socket.host}:${socket.port}`,
    dataDir,
    socket,
    async close() {
      await pool.end();
    },
  };
}

/**
 * The database for an operator command: `url` → PostgreSQL; else, when an app has the embedded
 * directory, its socket; else the directory itself (taken for the command's duration).
 */
export async function openCliDatabase(opts: OpenCliDatabaseOptions): Promise<OpenedDatabase> {
  if (opts.url) return openPostgres(opts.url, 2);
  const dataDir = resolveDataDir(opts.name, opts.dataDir);
  const deadline = Date.now() + (opts.waitForAppMs ?? 20_000);
  for (;;) {
    const owner = readOwner(dataDir);
    if (owner && ownerIsLive(owner)) {
      const remote = await connectToOwner(owner, dataDir);
      if (remote) return remote;
      // Opening (a fresh directory takes seconds) or shutting down: worth a short wait. An owner
      // that is up without a socket (a CLI, or an app with serveSocket off) will not change.
      const transient = owner.role === 'app' && (owner.state === 'starting' || owner.socket !== null);
      if (!transient) throw new DataDirInUseError(dataDir, owner);
      if (Date.now() > deadline) {
        const where = owner.socket
          ? `its socket ${owner.socket.host}:${owner.socket.port} did not answer`
          : 'it is still opening it';
        throw new Error(
          `Embedded database ${dataDir} belongs to the running app (pid ${owner.pid}), but ${where} within ${opts.waitForAppMs ?? 20_000} ms. ` +
            'Is the app stuck (or holding a long transaction)? Retry, or stop the app and run the command again.',
        );
      }
      await sleep(100);
      continue;
    }
    try {
      return await openEmbedded({ dataDir, role: 'cli', serveSocket: false });
    } catch (err) {
      // An app took the directory between our look and our lock: go through its socket instead.
      if (err instanceof DataDirInUseError && Date.now() <= deadline) continue;
      throw err;
    }
  }
}
