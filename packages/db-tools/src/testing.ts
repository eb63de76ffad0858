// Per-test-file PostgreSQL databases for the apps' tests: unique name, migrated, dropped afterwards.
// Imported as `@pa/db-tools/testing`, so that app code never pulls in test helpers.
import { randomBytes } from 'node:crypto';
import { dropDatabase, migrateUrl, redact, withDatabase } from './migrations/postgres-admin.ts';
import { isUnreachable, START_HINT } from './migrations/unreachable.ts';

export { isUnreachable, START_HINT } from './migrations/unreachable.ts';

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
    await drop().catch(() => {});
    throw err;
  }
  return { url, drop };
}
