import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelSessionId } from '../src/features/channels/channel-conversation.ts';
import { formatForTelegram } from '../src/features/channels/telegram/telegram-format.ts';
import { bindWorker } from './support/bound-worker.ts';
import { channelWorker, connectTelegram, pairChat, startChannelGateway } from './support/channels.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import type { TestGateway } from './support/test-app.ts';

// A paired Telegram chat with a worker bound to the REAL platform bridge (its demo portfolio), answered by the
// local provider through the worker's tools, beside the same question over /api/chat.
let platform: PlatformForGateway;
let fake: FakeTelegram;
let g: TestGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo();
  fake = await FakeTelegram.start();
  g = await startChannelGateway(fake, {
    env: {
      PLATFORM_BRIDGE_ENABLED: 'true',
      PLATFORM_BASE_URL: platform.baseUrl,
      CHAT_RATE_LIMIT_PER_MIN: '10000',
    },
  });
});
afterAll(async () => {
  await g?.close();
  await fake?.close();
  await platform?.close();
});

const QUESTION = 'which gas safety certificates have expired?';

describe('a chat turn from a paired Telegram chat', () => {
  it('answers "which gas safety certificates have expired?" with the same facts as /api/chat, through the worker’s tools', async () => {
    const bound = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
    const worker = await channelWorker(g, bound);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    await pairChat(fake, bot, 630_001, created.pairingCode);

    const web = await bound.chat(QUESTION);
    expect(web.reply).toMatch(/expired/i);

    await fake.userWrites(bot, { id: 630_001 }, QUESTION);
    const sent = (await fake.waitForMessages(630_001, 2)).slice(1);
    // the same reply, formatted for Telegram
    expect(sent.map((m) => m.text)).toEqual(formatForTelegram(web.reply).map((m) => m.html));
    expect(sent.every((m) => m.parseMode === 'HTML')).toBe(true);

    const session = await g.db.chatSession.findUniqueOrThrow({
      where: {
        channel_owner_externalId: {
          channel: 'telegram',
          owner: '',
          externalId: channelSessionId(worker.workerId, '630001'),
        },
      },
      include: { turns: { orderBy: { seq: 'asc' } } },
    });
    expect(session.turns.map((t) => [t.role, t.status, t.content])).toEqual([
      ['user', 'complete', QUESTION],
      ['assistant', 'complete', web.reply],
    ]);
    // the reply came from the bridge through the worker's compliance tool
    expect(JSON.stringify(session.turns[1]!.toolCalls)).toContain('platform-get-compliance');
  });

  it('remembers the conversation of the chat (the session is the worker’s and the chat’s) and /clear forgets it', async () => {
    const bound = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
    const worker = await channelWorker(g, bound);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    await pairChat(fake, bot, 630_002, created.pairingCode);

    await fake.userWrites(bot, { id: 630_002 }, 'my name is Ada');
    await fake.userWrites(bot, { id: 630_002 }, 'what is my name?');
    const sent = await fake.waitForMessages(630_002, 3);
    expect(sent[2]!.text).toBe('Your name is <b>Ada</b>.');

    await fake.userWrites(bot, { id: 630_002 }, '/clear');
    const cleared = await fake.waitForMessages(630_002, 4);
    expect(cleared[3]!.text).toMatch(/^Cleared: .*\(4 messages\)\.$/);
    expect(
      await g.db.turn.count({
        where: { session: { channel: 'telegram', externalId: { endsWith: ':630002' } } },
      }),
    ).toBe(0);
    await fake.userWrites(bot, { id: 630_002 }, 'what is my name?');
    const after = await fake.waitForMessages(630_002, 5);
    expect(after[4]!.text).toBe("You haven't told me your name yet.");
  });

  it('one person writing to two workers’ bots (in two workspaces) has two conversations: neither remembers the other’s', async () => {
    const first = await channelWorker(g);
    const second = await channelWorker(g);
    expect(second.workspaceId).not.toBe(first.workspaceId);
    const [botA, botB] = [fake.addBot(), fake.addBot()];
    await pairChat(fake, botA, 630_004, (await connectTelegram(first, botA, 'webhook')).pairingCode);
    await pairChat(fake, botB, 630_004, (await connectTelegram(second, botB, 'webhook')).pairingCode);

    await fake.userWrites(botA, { id: 630_004 }, 'my name is Ada');
    await fake.waitForMessages(630_004, 3);
    await fake.userWrites(botB, { id: 630_004 }, 'what is my name?');
    const toB = await fake.waitForMessages(630_004, 4);
    expect(toB[3]!.text).toBe("You haven't told me your name yet.");
    await fake.userWrites(botA, { id: 630_004 }, 'what is my name?');
    const toA = await fake.waitForMessages(630_004, 5);
    expect(toA[4]!.text).toBe('Your name is <b>Ada</b>.');

    // one session per worker and chat
    const sessions = await g.db.chatSession.findMany({
      where: { channel: 'telegram', externalId: { endsWith: ':630004' } },
      include: { turns: { orderBy: { seq: 'asc' } } },
    });
    const byId = new Map(sessions.map((s) => [s.externalId, s.turns.map((t) => t.content)]));
    expect(byId.get(channelSessionId(first.workerId, '630004'))).toEqual([
      'my name is Ada',
      expect.any(String),
      'what is my name?',
      toA[4]!.text.replace(/<\/?b>/g, '**'),
    ]);
    expect(byId.get(channelSessionId(second.workerId, '630004'))).toEqual([
      'what is my name?',
      "You haven't told me your name yet.",
    ]);
  });

  it('/help answers the commands and runs no turn', async () => {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    await pairChat(fake, bot, 630_003, created.pairingCode);
    await fake.userWrites(bot, { id: 630_003 }, '/help');
    const sent = await fake.waitForMessages(630_003, 2);
    expect(sent[1]!.text).toContain('/clear — forget this chat’s conversation');
    expect(sent[1]!.text).toContain('/stop');
    expect(
      await g.db.chatSession.count({ where: { channel: 'telegram', externalId: { endsWith: ':630003' } } }),
    ).toBe(0);
  });
});

describe('/stop in a Telegram chat', () => {
  it('says there is nothing to stop when no answer is being written', async () => {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    await pairChat(fake, bot, 630_005, created.pairingCode);
    await fake.userWrites(bot, { id: 630_005 }, '/stop');
    const sent = await fake.waitForMessages(630_005, 2);
    expect(sent[1]!.text).toBe('Nothing to stop: no answer is being written.');
  });
});
