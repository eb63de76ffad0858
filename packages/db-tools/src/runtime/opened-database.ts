// What opening an app's database gives back, whichever kind it turned out to be.
import type { PGlite } from '@electric-sql/pglite';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type pg from 'pg';

/**
 * Raw SQL on the opened database, behaving as ONE session (like a single connection): calls run in
 * order, and a BEGIN sent through it stays open for its later calls until COMMIT/ROLLBACK. On an
 * embedded database an open transaction here owns the whole database, so do not await Prisma
 * queries between its BEGIN and COMMIT (they would wait for it). Structurally the `SqlRunner` of
 * the migrations, so `applyMigrations(db.sql, dir)` works on every kind.
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
