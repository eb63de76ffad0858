import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../src/testing.ts';

// The hints a test run prints when its database server is not usable, against the real server: a refused login
// must not pass for a failure of the code under test.
const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'basic', 'migrations');
const SERVER = new URL(process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432');
const saved = process.env.TEST_DATABASE_URL;

afterEach(() => {
  if (saved === undefined) delete process.env.TEST_DATABASE_URL;
  else process.env.TEST_DATABASE_URL = saved;
});

describe('createTestDatabase on a server that refuses the login', () => {
  it('says which TEST_DATABASE_URL to set, and hides the password', async () => {
    const refused = new URL(SERVER);
    refused.username = 'no_such_role_for_hints';
    refused.password = 'secret-word';
    process.env.TEST_DATABASE_URL = refused.toString();
    const err = await createTestDatabase({ prefix: 'hints', migrationsDir: MIGRATIONS }).catch(
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/refused the login\. Set TEST_DATABASE_URL to a role/);
    expect((err as Error).message).toContain('no_such_role_for_hints:***@');
    expect((err as Error).message).not.toContain('secret-word');
  });
});
