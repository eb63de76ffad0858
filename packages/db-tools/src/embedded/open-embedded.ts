// Opening an embedded PGlite data directory, owned by one process at a time (embedded-lock.ts), and
// reaching it through the socket of the app that owns it (embedded-socket.ts).
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { OpenedDatabase } from '../runtime/opened-database.ts';
import { poolSession, singleSessionPool } from '../runtime/postgres.ts';
import { embeddedAdapterFactory } from './embedded-adapter.ts';
import {
  ensureSocketPassword,
  readSocketPassword,
  SOCKET_PASSWORD_FILE,
  SOCKET_USER,
} from './embedded-auth.ts';
import { acquireDirLock, type DirLock, OWNER_FILE, type OwnerRecord } from './embedded-lock.ts';
import { PgliteSession } from './embedded-session.ts';
import { EmbeddedSocketServer } from './embedded-socket.ts';

function displayPath(dir: string): string {
  const rel = path.relative(process.cwd(), dir);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : dir;
}

/** Refuses a non-empty directory that is not a PostgreSQL data directory, rather than initdb into it. */
function checkDataDir(dataDir: string): void {
  if (fs.existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  const foreign = fs
    .readdirSync(dataDir)
    .filter((f) => f !== OWNER_FILE && !f.startsWith(`${OWNER_FILE}.`) && f !== SOCKET_PASSWORD_FILE);
  if (foreign.length > 0) {
    throw new Error(
      `${dataDir} is neither empty nor a PGlite data directory (it holds ${foreign.slice(0, 3).join(', ')}); refusing to initialise a database there.`,
    );
  }
}

export async function openEmbedded(opts: {
  dataDir: string;
  role: 'app' | 'cli';
  serveSocket: boolean;
  socketPort?: number;
  idleTransactionTimeoutMs?: number;
}): Promise<OpenedDatabase> {
  // PGlite creates the directory itself but not its parents; the owner file needs it first anyway. The database's
  // files are its owner's only (PGlite writes them with the process umask, often world-readable): the directory
  // is 0700, and one made by an earlier version is tightened.
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(opts.dataDir, 0o700);
  const lock: DirLock = acquireDirLock(opts.dataDir, { role: opts.role, state: 'starting', socket: null });
  let db: PGlite | undefined;
  let server: EmbeddedSocketServer | undefined;
  try {
    checkDataDir(opts.dataDir);
    db = await PGlite.create(opts.dataDir);
    let socket: { host: string; port: number } | undefined;
    if (opts.serveSocket) {
      server = new EmbeddedSocketServer(db, {
        password: ensureSocketPassword(opts.dataDir),
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

/** The running app's socket for its embedded directory, or null when it does not answer (yet). */
export async function connectToOwner(owner: OwnerRecord, dataDir: string): Promise<OpenedDatabase | null> {
  const socket = owner.socket;
  if (!socket) return null;
  let password: string;
  try {
    password = readSocketPassword(dataDir);
  } catch (err) {
    throw new Error(
      `Embedded database ${dataDir} is served by the running app (pid ${owner.pid}), but its socket password cannot be read (${(err as Error).message}). Run the command as the user that runs the app.`,
      { cause: err },
    );
  }
  // One connection, shared by Prisma and `sql`: the embedded database has one session anyway.
  const pool = singleSessionPool({
    host: socket.host,
    port: socket.port,
    user: SOCKET_USER,
    password,
    database: 'postgres',
    connectionTimeoutMillis: 5_000,
  });
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    // A wrong password will not get better by waiting (the app was restarted with another directory?).
    if ((err as { code?: string }).code === '28P01') throw err;
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
