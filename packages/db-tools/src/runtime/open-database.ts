// Opening an app's database: a real PostgreSQL when its URL is set, otherwise an embedded PGlite in the
// data directory the app names. An embedded directory is opened by one process only; the running app
// serves it on a loopback port and the operator CLI connects there (see embedded-socket.ts for why the
// app keeps its own fast in-process path and how both sides are kept from corrupting each other's work).
// Nothing here knows which app it serves: names, directories and URLs come from the caller.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataDirInUseError, ownerIsLive, readOwner } from '../embedded/embedded-lock.ts';
import { connectToOwner, openEmbedded } from '../embedded/open-embedded.ts';
import type { OpenedDatabase } from './opened-database.ts';
import { openPostgres } from './postgres.ts';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './timeouts.ts';

export { DataDirInUseError, OWNER_FILE, type OwnerRecord, readOwner } from '../embedded/embedded-lock.ts';
export type { OpenedDatabase, SqlSession } from './opened-database.ts';

export interface OpenAppDatabaseOptions {
  /** The app's name for its database, used in messages (e.g. "created the <name> database"). */
  name: string;
  /** A PostgreSQL URL; empty or absent means embedded. Create the database first (ensureDatabase). */
  url?: string | null;
  /** Embedded data directory, required when there is no URL; relative paths are taken from the working directory. */
  dataDir?: string;
  /** Serve the embedded database on a loopback port for the CLI. Default true. */
  serveSocket?: boolean;
  /** Loopback port to serve on; default 0 (any free port, recorded in the owner file). */
  socketPort?: number;
  /** A socket client idle inside a transaction this long is disconnected (rolled back). Default 30 s. */
  socketIdleTransactionTimeoutMs?: number;
  /** Pool size of the Prisma adapter for a URL. Default 10. */
  poolMax?: number;
  /** How long to wait for PostgreSQL (a URL only); DEFAULT_DATABASE_TIMEOUTS for what is not given. */
  timeouts?: Partial<DatabaseTimeouts>;
}

export interface OpenCliDatabaseOptions {
  name: string;
  url?: string | null;
  /** Embedded data directory, required when there is no URL. */
  dataDir?: string;
  /** How long to wait for an app that is still opening the directory. Default 20 s. */
  waitForAppMs?: number;
}

function resolveDataDir(name: string, dataDir: string | undefined): string {
  if (!dataDir) throw new Error(`The ${name} database has neither a URL nor an embedded data directory.`);
  return path.resolve(dataDir);
}

/**
 * The database of a running app: `url` → PostgreSQL; otherwise the embedded directory, owned by
 * this process and served on a loopback port. Throws DataDirInUseError when another live process
 * has the directory.
 */
export async function openAppDatabase(opts: OpenAppDatabaseOptions): Promise<OpenedDatabase> {
  if (opts.url) {
    return openPostgres(opts.url, opts.poolMax ?? 10, { ...DEFAULT_DATABASE_TIMEOUTS, ...opts.timeouts });
  }
  return openEmbedded({
    dataDir: resolveDataDir(opts.name, opts.dataDir),
    role: 'app',
    serveSocket: opts.serveSocket ?? true,
    socketPort: opts.socketPort,
    idleTransactionTimeoutMs: opts.socketIdleTransactionTimeoutMs,
  });
}

/**
 * The database for an operator command: `url` → PostgreSQL; else, when an app has the embedded
 * directory, its socket; else the directory itself (taken for the command's duration).
 */
export async function openCliDatabase(opts: OpenCliDatabaseOptions): Promise<OpenedDatabase> {
  // an operator's command may run long (an import, a large seed): only reaching the server is bounded
  if (opts.url)
    return openPostgres(opts.url, 2, { ...DEFAULT_DATABASE_TIMEOUTS, statementMs: 0, queryMs: 0 });
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
