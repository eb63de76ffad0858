import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrateUrl } from '@pa/db-tools/migrations';
import { createTestDatabase } from '@pa/db-tools/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../src/config.ts';

// Migration 20261126090000_channel_sessions_per_worker on a database that has messaging sessions kept by chat id
// alone: each moves to `<worker id>:<chat id>` of the one worker whose bot is paired with its chat; one whose chat
// is paired with two workers' bots (mixed memories) is left as it was, and so are web sessions and unpaired chats.

const MIGRATION = '20261126090000_channel_sessions_per_worker';
let before: string;
let database: { url: string; drop(): Promise<void> };
let sql: pg.Client;

beforeAll(async () => {
  // the migrations up to the one before this
  before = await mkdtemp(path.join(os.tmpdir(), 'gw-migrations-'));
  for (const name of await readdir(MIGRATIONS_DIR)) {
    if (name !== MIGRATION)
      await cp(path.join(MIGRATIONS_DIR, name), path.join(before, name), { recursive: true });
  }
  database = await createTestDatabase({ prefix: 'gw_channel_sessions', migrationsDir: before });
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
});
afterAll(async () => {
  await sql?.end();
  await database?.drop();
  if (before) await rm(before, { recursive: true, force: true });
});

async function worker(name: string): Promise<string> {
  const ws = await sql.query<{ id: string }>(
    `INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), $1) RETURNING id`,
    [name],
  );
  const w = await sql.query<{ id: string }>(
    `INSERT INTO workers (id, workspace_id, name, skill_packs) VALUES (gen_random_uuid(), $1, $2, '{}') RETURNING id`,
    [ws.rows[0]!.id, name],
  );
  return w.rows[0]!.id;
}

async function channel(
  workerId: string,
  type: 'telegram' | 'whatsapp',
  botId: string,
  chatId: string | null,
) {
  await sql.query(
    `INSERT INTO channels (id, worker_id, type, mode, status, external_id, secrets_ciphertext, chat_id)
     VALUES (gen_random_uuid(), $1, $2, 'webhook', 'connected', $3, '\\x00', $4)`,
    [workerId, type, botId, chatId],
  );
}

async function session(channelName: string, externalId: string): Promise<string> {
  const s = await sql.query<{ id: string }>(
    `INSERT INTO chat_sessions (id, channel, owner, external_id) VALUES (gen_random_uuid(), $1, '', $2) RETURNING id`,
    [channelName, externalId],
  );
  return s.rows[0]!.id;
}

const externalIdOf = async (id: string) =>
  (await sql.query<{ external_id: string }>(`SELECT external_id FROM chat_sessions WHERE id = $1`, [id]))
    .rows[0]!.external_id;

describe(MIGRATION, () => {
  it('moves each messaging session to its worker, and leaves what cannot be told apart', async () => {
    const alice = await worker('alice');
    const bob = await worker('bob');
    await channel(alice, 'telegram', '1001', '555');
    await channel(alice, 'whatsapp', 'phone-1', '447700900001');
    await channel(bob, 'telegram', '1002', '777');
    // chat 888 paired with both workers' bots: its one session mixes two conversations
    await channel(alice, 'telegram', '1003', '888');
    await channel(bob, 'telegram', '1004', '888');

    const tg = await session('telegram', '555');
    const wa = await session('whatsapp', '447700900001');
    const bobs = await session('telegram', '777');
    const mixed = await session('telegram', '888');
    const unpaired = await session('telegram', '999');
    const web = await session('web', '555');

    await migrateUrl(database.url, MIGRATIONS_DIR);

    expect(await externalIdOf(tg)).toBe(`${alice}:555`);
    expect(await externalIdOf(wa)).toBe(`${alice}:447700900001`);
    expect(await externalIdOf(bobs)).toBe(`${bob}:777`);
    expect(await externalIdOf(mixed)).toBe('888');
    expect(await externalIdOf(unpaired)).toBe('999');
    expect(await externalIdOf(web)).toBe('555');
  });
});
