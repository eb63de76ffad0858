import { AdminKeysResponse, RemoteKeysResponse } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyRepository } from '../src/features/auth/api-key-repository.ts';
import { expectContract } from './support/contract.ts';
import { ADMIN, as, makeAccessTenant } from './support/remote-access.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// A key's last use (issue 37): recorded without a write on every request, at most once a minute per key. The app
// remembers when it last recorded each key, and the UPDATE itself only writes when the stored time is a minute
// old, so that racing requests and other instances add no write either. A statement-level trigger in this file's
// own database counts the UPDATE statements that set the column (a statement counts even when it changes no row).

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00.000Z' });
  await t.db.$executeRawUnsafe('CREATE TABLE test_last_used_statements (id serial PRIMARY KEY)');
  await t.db.$executeRawUnsafe(`
    CREATE FUNCTION test_count_last_used() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO test_last_used_statements DEFAULT VALUES; RETURN NULL; END $$`);
  await t.db.$executeRawUnsafe(`
    CREATE TRIGGER test_count_last_used AFTER UPDATE OF last_used_at ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION test_count_last_used()`);
});
afterAll(async () => t?.close());

const statements = async () =>
  Number(
    (
      await t.db.$queryRawUnsafe<Array<{ n: bigint }>>('SELECT count(*) AS n FROM test_last_used_statements')
    )[0]!.n,
  );

async function lastUsed(keyId: number): Promise<string | null> {
  return (await t.db.apiKey.findUniqueOrThrow({ where: { id: keyId } })).lastUsedAt?.toISOString() ?? null;
}

describe('last use of a key', () => {
  it('two requests within a minute → one write; the next after a minute → a second', async () => {
    t.clock.set('2026-06-15T09:00:00.000Z');
    const tenant = await makeAccessTenant(t);
    const portfolio = () => as(t, tenant.key).get('/api/assistant-bridge/portfolio');
    expect(await lastUsed(tenant.keyId)).toBeNull();
    const before = await statements();

    expect((await portfolio()).status).toBe(200);
    await expect.poll(() => lastUsed(tenant.keyId), { timeout: 10_000 }).toBe('2026-06-15T09:00:00.000Z');

    t.clock.set('2026-06-15T09:00:30.000Z');
    expect((await portfolio()).status).toBe(200);
    t.clock.set('2026-06-15T09:00:59.999Z');
    expect((await portfolio()).status).toBe(200);

    // a minute after the recorded use: recorded again. Had either request above written (09:00:30), this one's
    // conditional UPDATE would find a use within the minute and the column would not reach 09:01:01.
    t.clock.set('2026-06-15T09:01:01.000Z');
    expect((await portfolio()).status).toBe(200);
    await expect.poll(() => lastUsed(tenant.keyId), { timeout: 10_000 }).toBe('2026-06-15T09:01:01.000Z');
    await expect.poll(statements, { timeout: 10_000 }).toBeGreaterThanOrEqual(before + 2);
    expect(await statements()).toBe(before + 2);

    // the admin API lists it as recorded
    const { keys } = expectContract(
      RemoteKeysResponse,
      (await as(t, tenant.adminKey).get(`${ADMIN}/remote-keys`)).body,
    );
    expect(keys.find((k) => k.id === tenant.keyId)?.last_used_at).toBe('2026-06-15T09:01:01.000Z');
  });

  it('an admin key’s use is recorded the same way and listed with it', async () => {
    t.clock.set('2026-06-15T10:00:00.000Z');
    const tenant = await makeAccessTenant(t);
    const admin = as(t, tenant.adminKey);
    expect((await admin.get(`${ADMIN}/whoami`)).status).toBe(200);
    await expect
      .poll(() => lastUsed(tenant.adminKeyId), { timeout: 10_000 })
      .toBe('2026-06-15T10:00:00.000Z');
    t.clock.set('2026-06-15T10:00:20.000Z');
    const { keys } = expectContract(AdminKeysResponse, (await admin.get(`${ADMIN}/admin-keys`)).body);
    expect(keys.find((k) => k.current)?.last_used_at).toBe('2026-06-15T10:00:00.000Z');
  });

  it('the UPDATE writes only when the stored use is more than a minute older (another instance, a race)', async () => {
    const tenant = await makeAccessTenant(t);
    const keys = createApiKeyRepository(t.db);
    const at = (iso: string) => new Date(iso);
    expect(await keys.touch(tenant.id, tenant.keyId, at('2026-06-15T11:00:00.000Z'))).toBe(true);
    expect(await keys.touch(tenant.id, tenant.keyId, at('2026-06-15T11:00:00.000Z'))).toBe(false);
    expect(await keys.touch(tenant.id, tenant.keyId, at('2026-06-15T11:00:45.000Z'))).toBe(false);
    expect(await lastUsed(tenant.keyId)).toBe('2026-06-15T11:00:00.000Z');
    expect(await keys.touch(tenant.id, tenant.keyId, at('2026-06-15T11:01:00.001Z'))).toBe(true);
    expect(await lastUsed(tenant.keyId)).toBe('2026-06-15T11:01:00.001Z');
    // scoped by tenant: another tenant's id writes nothing
    const other = await makeAccessTenant(t);
    expect(await keys.touch(other.id, tenant.keyId, at('2026-06-15T12:00:00.000Z'))).toBe(false);
  });
});
