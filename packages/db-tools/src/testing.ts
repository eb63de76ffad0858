// Per-test-file PostgreSQL databases for the apps' tests: unique name, migrated, dropped afterwards.
import { randomBytes } from 'node:crypto';
import { dropDatabase, migrateUrl, redact, withDatabase } from './migrations.ts';

export const DEFAULT_TEST_SERVER_URL = 'postgresql://postgres@127.0.0.1:5432';

export const START_HINT = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';

export function isUnreachable(err: unknown): boolean {
  const codes = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOENT'];
  const code = (e: unknown) => (typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : '');
  // Node's happy-eyeballs connect reports an AggregateError whose own code may be missing.
  const inner = err instanceof AggregateError ? err.errors : [];
  // The schema engine reports it in words only.
  if (err instanceof Error && err.message.includes("Can't reach database server")) return true;
  return [err, ...inner].some((e) => codes.includes(code(e)));
}

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
    await drop().catch(() => {});
    throw err;
  }
  return { url, drop };
}
