import { ChannelsResponse } from '@pa/contracts';
import { until } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelWorker, connectTelegram, pairChat, startChannelGateway } from './support/channels.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import { expectContract } from './support/http.ts';
import type { TestGateway } from './support/test-app.ts';

const INVALID = 'That code is not valid or has expired. Ask for a new one in the settings.';
const REFUSAL = 'This bot is connected to someone else.';

let fake: FakeTelegram;
let g: TestGateway;
beforeAll(async () => {
  fake = await FakeTelegram.start();
  g = await startChannelGateway(fake);
});
afterAll(async () => {
  await g?.close();
  await fake?.close();
});

async function setup() {
  const worker = await channelWorker(g);
  const bot = fake.addBot();
  const created = await connectTelegram(worker, bot, 'webhook');
  return { worker, bot, created };
}

const turnsOf = (chatId: number) =>
  g.db.turn.count({ where: { session: { channel: 'telegram', externalId: { endsWith: `:${chatId}` } } } });

describe('pairing a Telegram chat (POST /api/channels/telegram/{id}/webhook)', () => {
  it('pairs the chat that sends /start <code>: connected, the chat shown, "Connected to <worker>"', async () => {
    const { worker, bot, created } = await setup();
    await pairChat(fake, bot, 610_001, created.pairingCode);
    const { channels } = expectContract(
      ChannelsResponse,
      await (await worker.call('GET', '/channels')).json(),
    );
    expect(channels[0]).toMatchObject({
      status: 'connected',
      chat: { id: '610001', title: 'Sam' },
      pairingExpiresAt: null,
    });
    expect(Date.parse(channels[0]!.connectedAt!)).toBeGreaterThan(Date.now() - 60_000);
    // the code is used up
    const row = await g.db.channel.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.pairingCodeHash).toBeNull();
    expect(await turnsOf(610_001)).toBe(0);
  });

  it('pairs with the code alone, typed in lower case with a space', async () => {
    const { bot, created } = await setup();
    const typed = `${created.pairingCode.slice(0, 4)} ${created.pairingCode.slice(4)}`.toLowerCase();
    await fake.userWrites(bot, { id: 610_002 }, typed);
    const [reply] = await fake.waitForMessages(610_002, 1);
    expect(reply!.text).toMatch(/^Connected to Property Manager/);
  });

  it('answers a wrong code with a short refusal, pairs nothing and runs no turn', async () => {
    const { worker, bot } = await setup();
    await fake.userWrites(bot, { id: 610_003 }, '/start ABCDEFGH');
    await fake.userWrites(bot, { id: 610_003 }, 'what deals are open?');
    const sent = await fake.waitForMessages(610_003, 2);
    expect(sent[0]!.text).toBe(INVALID);
    expect(sent[1]!.text).toMatch(/not connected to a chat yet/);
    const { channels } = expectContract(
      ChannelsResponse,
      await (await worker.call('GET', '/channels')).json(),
    );
    expect(channels[0]).toMatchObject({ status: 'pending_pairing', chat: null });
    expect(await turnsOf(610_003)).toBe(0);
  });

  it('refuses an expired code', async () => {
    const { bot, created } = await setup();
    await g.db.channel.update({
      where: { id: created.id },
      data: { pairingExpiresAt: new Date(Date.now() - 1000) },
    });
    await fake.userWrites(bot, { id: 610_004 }, `/start ${created.pairingCode}`);
    const [reply] = await fake.waitForMessages(610_004, 1);
    expect(reply!.text).toBe(INVALID);
    const row = await g.db.channel.findUniqueOrThrow({ where: { id: created.id } });
    expect(row).toMatchObject({ status: 'pending_pairing', chatId: null });
  });

  it('refuses a second chat once, never turns its messages into chat turns, and the code works once only', async () => {
    const { bot, created } = await setup();
    await pairChat(fake, bot, 610_005, created.pairingCode);
    await fake.userWrites(bot, { id: 610_006 }, `/start ${created.pairingCode}`);
    await fake.userWrites(bot, { id: 610_006 }, 'which gas safety certificates have expired?');
    await fake.userWrites(bot, { id: 610_006 }, 'hello?');
    // the paired chat still talks: its reply marks that the stranger's updates before it were handled
    await fake.userWrites(bot, { id: 610_005 }, '/help');
    await fake.waitForMessages(610_005, 2);
    await until('the stranger’s three updates taken in', async () =>
      (await g.db.channelUpdate.count({ where: { channelId: created.id } })) >= 6 ? true : undefined,
    );
    const toStranger = fake.messagesTo(610_006);
    expect(toStranger.map((m) => m.text)).toEqual([REFUSAL]);
    expect(await turnsOf(610_006)).toBe(0);
    expect(
      await g.db.chatSession.count({ where: { channel: 'telegram', externalId: { endsWith: ':610006' } } }),
    ).toBe(0);
    const row = await g.db.channel.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.chatId).toBe('610005');
  });
});
