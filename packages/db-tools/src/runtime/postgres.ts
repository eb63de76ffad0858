// A real PostgreSQL behind the Prisma adapter, and the single-session pools that the `sql` side and the
// CLI's connection to an embedded app run on.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { OpenedDatabase, SqlSession } from './opened-database.ts';
import { type DatabaseTimeouts, poolTimeoutOptions } from './timeouts.ts';

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
export function singleSessionPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool({ ...config, max: 1, idleTimeoutMillis: 0 });
  // An idle client's error (server restart, app shutdown) must not crash the process.
  pool.on('error', () => {});
  return pool;
}

export function poolSession(pool: pg.Pool): SqlSession {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return (await pool.query(sql, params)).rows as T[];
    },
    async exec(script: string) {
      await pool.query(script);
    },
  };
}

// Prisma URLs may carry `?schema=` (pg ignores it); migrateUrl honours it, so the adapter and `sql`
// must too, or they would look in `public` for tables migrated elsewhere.
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

export function openPostgres(url: string, poolMax: number, timeouts: DatabaseTimeouts): OpenedDatabase {
  const schema = schemaOf(url);
  // The session for migrations and operator commands: it may wait on the migrations' advisory lock and run long
  // migrations, so only opening a connection is bounded.
  const sqlPool = singleSessionPool({
    connectionString: url,
    connectionTimeoutMillis: timeouts.connectMs,
    ...(schema ? { options: searchPathOption(schema) } : {}),
  });
  // The adapter's pool, made here so that it can be handed out too; raw statements on it see the same schema.
  // Every request's queries run on it, so every wait on it is bounded.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    ...poolTimeoutOptions(timeouts),
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
