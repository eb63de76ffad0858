import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChannelUpdatesRepository,
  createChannelUpdatesRepository,
} from '../src/features/channels/channel-updates-repository.ts';
import { BACKENDS, type GatewayBackend } from './support/backends.ts';

// The updates channels take in, their claims and their recovery, on both databases the gateway runs on:
// PostgreSQL and the embedded PGlite of `npm start` (the same raw statements through Prisma).

const later = (ms: number) => new Date(Date.now() + ms);
const message = (text: string) => ({
  message: { chatId: '555', chatTitle: 'Sam', text },
  until: later(60_000),
});

describe.each(BACKENDS)('channel updates on %s', (_name, open) => {
  let backend: GatewayBackend;
  let updates: ChannelUpdatesRepository;
  let channelId: string;
  let workerId: string;
  const row = (updateKey: string) =>
    backend.db.channelUpdate.findUniqueOrThrow({ where: { channelId_updateKey: { channelId, updateKey } } });

  beforeAll(async () => {
    backend = await open('gateway_updates');
    updates = createChannelUpdatesRepository(backend.db);
    const workspace = await backend.db.workspace.create({ data: { name: 'updates' } });
    const worker = await backend.db.worker.create({ data: { workspaceId: workspace.id, name: 'PM' } });
    workerId = worker.id;
    const channel = await backend.db.channel.create({
      data: {
        workerId,
        type: 'telegram',
        mode: 'polling',
        externalId: '42',
        secretsCiphertext: Buffer.from('x'),
      },
    });
    channelId = channel.id;
  });
  afterAll(async () => backend?.close());

  it('records an update once, with its message and claim; a marker handled at once; nothing for a deleted channel', async () => {
    expect(await updates.record(channelId, '1', message('hello'))).toBe(true);
    expect(await updates.record(channelId, '1', message('hello'))).toBe(false);
    expect(await row('1')).toMatchObject({
      chatId: '555',
      chatTitle: 'Sam',
      text: 'hello',
      attempts: 1,
      handledAt: null,
    });
    expect((await row('1')).claimedUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(await updates.record(channelId, 'refused:9')).toBe(true);
    expect(await row('refused:9')).toMatchObject({ text: null, claimedUntil: null });
    expect((await row('refused:9')).handledAt).not.toBeNull();
    expect(await updates.record('00000000-0000-4000-8000-000000000000', '1', message('x'))).toBe(false);
  });

  it('marks concurrent updates handled (one statement for the batch) and forgets their messages', async () => {
    const keys = ['h1', 'h2', 'h3', 'h4'];
    for (const k of keys) await updates.record(channelId, k, message(k));
    const at = new Date();
    await Promise.all(keys.map((updateKey) => updates.markHandled({ channelId, updateKey }, at)));
    for (const k of keys)
      expect(await row(k)).toMatchObject({ handledAt: at, claimedUntil: null, text: null, chatTitle: null });
  });

  it('claims only unhandled updates whose claim ran out, oldest first, each once, and renews held claims', async () => {
    const past = new Date(Date.now() - 1_000);
    await updates.record(channelId, 'o2', { message: message('second').message, until: past });
    await updates.record(channelId, 'o1', { message: message('first').message, until: past });
    await backend.db.channelUpdate.update({
      where: { channelId_updateKey: { channelId, updateKey: 'o1' } },
      data: { receivedAt: new Date(Date.now() - 60_000) },
    });
    await updates.record(channelId, 'live', { message: message('live').message, until: past });
    // the live one's process renews its claim before anyone looks
    expect(await updates.renewClaims([{ channelId, updateKey: 'live' }], later(60_000))).toBe(1);
    expect(await updates.renewClaims([], later(60_000))).toBe(0);

    const now = new Date();
    const [a, b] = await Promise.all([
      updates.claimOrphans(now, later(60_000), 10),
      updates.claimOrphans(now, later(60_000), 10),
    ]);
    // each update to one of the two (SKIP LOCKED may share them out), each list oldest first
    const claimed = [...a, ...b];
    expect(claimed.map((o) => o.updateKey).sort()).toEqual(['o1', 'o2']);
    for (const list of [a, b])
      expect(list.map((o) => o.receivedAt.getTime())).toEqual(
        list.map((o) => o.receivedAt.getTime()).sort((x, y) => x - y),
      );
    const byKey = new Map(claimed.map((o) => [o.updateKey, o]));
    expect(byKey.get('o1')).toMatchObject({
      text: 'first',
      attempts: 2,
      chatId: '555',
      channel: { id: channelId, workerId, type: 'telegram' },
    });
    expect(byKey.get('o2')).toMatchObject({ text: 'second', attempts: 2 });
    // alone, one process takes the oldest first
    await backend.db.channelUpdate.updateMany({
      where: { channelId, updateKey: { in: ['o1', 'o2'] } },
      data: { claimedUntil: past },
    });
    expect((await updates.claimOrphans(new Date(), later(60_000), 10)).map((o) => o.updateKey)).toEqual([
      'o1',
      'o2',
    ]);
    expect(await updates.claimOrphans(new Date(), later(60_000), 10)).toEqual([]);
    // handled updates are never claimed, however old
    await updates.markHandled({ channelId, updateKey: 'o1' }, new Date());
    const afterTwoMinutes = await updates.claimOrphans(later(120_000), later(180_000), 10);
    expect(afterTwoMinutes.map((o) => o.updateKey).sort()).toEqual(['1', 'live', 'o2']);
  });
});
