// Creating, dropping and migrating PostgreSQL databases named by URL, for the migrations CLI, the apps'
// start-up and the test databases.
import pg from 'pg';
import { type ApplyOptions, type ApplyResult, applyMigrations, pgRunner } from './apply-migrations.ts';
import { DEFAULT_DATABASE_TIMEOUTS } from '../runtime/timeouts.ts';

// a server that accepts and never answers fails the start instead of hanging it
const CONNECT_MS = DEFAULT_DATABASE_TIMEOUTS.connectMs;

/** The same server URL pointing at another database. Prisma's `schema` parameter is dropped, pg ignores it. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  u.searchParams.delete('schema');
  return u.toString();
}

function parseUrl(url: string): { pgUrl: string; database: string; schema: string | undefined } {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database) throw new Error(`Database URL has no database name: ${redact(url)}`);
  const schema = u.searchParams.get('schema') ?? undefined;
  u.searchParams.delete('schema');
  return { pgUrl: u.toString(), database, schema };
}

export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<invalid URL>';
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function pgCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

// pg gives `database` no effect when a connectionString is present (notes, pitfall 4), so the
// maintenance connection is built from a URL whose path names the other database.
async function withMaintenanceClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres'), connectionTimeoutMillis: CONNECT_MS });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates the URL's database when it does not exist yet; returns true if it did that. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const { pgUrl, database } = parseUrl(url);
  const probe = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: CONNECT_MS });
  try {
    await probe.connect();
    return false;
  } catch (err) {
    if (pgCode(err) !== '3D000') throw err; // 3D000: database does not exist
  } finally {
    await probe.end().catch(() => {});
  }
  return withMaintenanceClient(url, async (client) => {
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(database)}`);
      return true;
    } catch (err) {
      // Another process created it between our probe and now.
      if (pgCode(err) === '42P04' || pgCode(err) === '23505') return false;
      throw err;
    }
  });
}

export async function createDatabase(serverUrl: string, database: string): Promise<void> {
  await withMaintenanceClient(serverUrl, (c) => c.query(`CREATE DATABASE ${quoteIdent(database)}`));
}

export async function dropDatabase(url: string): Promise<void> {
  const { database } = parseUrl(url);
  await withMaintenanceClient(url, (c) =>
    c.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`),
  );
}

export interface MigrateUrlResult extends ApplyResult {
  createdDatabase: boolean;
}

/** ensureDatabase + applyMigrations over one connection. Honours Prisma's `?schema=` parameter. */
export async function migrateUrl(
  url: string,
  migrationsDir: string,
  opts: ApplyOptions = {},
): Promise<MigrateUrlResult> {
  const createdDatabase = await ensureDatabase(url);
  if (createdDatabase) opts.log?.(`Created database ${parseUrl(url).database}`);
  const { pgUrl, schema } = parseUrl(url);
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: CONNECT_MS });
  await client.connect();
  try {
    if (schema) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await client.query(`SET search_path TO ${quoteIdent(schema)}`);
    }
    return { createdDatabase, ...(await applyMigrations(pgRunner(client), migrationsDir, opts)) };
  } finally {
    await client.end();
  }
}
