import { freePort, until } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelWorker, connectTelegram, pairChat, textUpdate } from './support/channels.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Two gateway instances on one database and one Redis, as behind a load balancer: Telegram's webhook deliveries of
// one chat may reach either. A /stop that reaches the instance not running the chat's turn is passed on over Redis,
// and the instance running it stops it and sends the partial reply. The local provider waits 200 ms between chunks.

let fake: FakeTelegram;
let a: TestGateway;
let b: TestGateway;

beforeAll(async () => {
  fake = await FakeTelegram.start();
  const port = await freePort();
  const env = {
    AI_WORKERS_ENABLED: 'true',
    TELEGRAM_API_BASE_URL: fake.baseUrl,
    LOCAL_PROVIDER_DELAY_MS: '200',
    // the webhook registered with Telegram names instance a
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  };
  a = await startTestGateway({ redis: 'required', port, env });
  b = await startTestGateway({
    redis: 'required',
    databaseUrl: a.databaseUrl,
    secretKey: a.deps.secretKey,
    redisPrefix: a.config.REDIS_PREFIX,
    env,
  });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await fake?.close();
});

const typingIn = (chatId: number) =>
  fake.callsOf('sendChatAction').some((call) => String(call.params.chat_id) === String(chatId));

describe('a /stop that reaches another instance than the one running the turn', () => {
  it('stops the turn there: the partial reply is sent, marked stopped, and stored interrupted', async () => {
    const worker = await channelWorker(a);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    const chat = 72_001;
    await pairChat(fake, bot, chat, created.pairingCode);
    const webhook = fake.webhookOf(bot)!;
    const post = (gateway: TestGateway, body: unknown) =>
      fetch(`${gateway.baseUrl}/api/channels/telegram/${created.id}/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-telegram-bot-api-secret-token': webhook.secretToken!,
        },
        body: JSON.stringify(body),
      });

    expect((await post(a, textUpdate(1_001, chat, 'help'))).status).toBe(200);
    await until('the turn running on a', () => typingIn(chat));
    expect((await post(b, textUpdate(1_002, chat, '/stop'))).status).toBe(200);

    const [, reply] = await fake.waitForMessages(chat, 2);
    expect(reply!.text).toMatch(/stopped/i);
    const turn = await until('the interrupted turn', async () => {
      const t = await a.db.turn.findFirst({
        where: { session: { channel: 'telegram', externalId: { endsWith: `:${chat}` } }, role: 'assistant' },
        orderBy: { seq: 'desc' },
      });
      return t?.status === 'interrupted' && t;
    });
    // the message is the stored partial reply (its trailing space trimmed): a stop that comes early, on a loaded
    // machine, can cut the reply right after a word, or before its first word (then it says only "stopped")
    expect(reply!.text).toContain(turn.content.slice(0, 20).trimEnd());
    await until('both updates handled', async () =>
      (
        await a.db.channelUpdate.findMany({
          where: { channelId: created.id, updateKey: { in: ['1001', '1002'] } },
        })
      ).every((u) => u.handledAt),
    );
    // b did not also say "Nothing to stop"
    expect(fake.messagesTo(chat).map((m) => m.text)).not.toContainEqual(
      expect.stringMatching(/Nothing to stop/),
    );
    expect(fake.messagesTo(chat)).toHaveLength(2);
  });

  it('with no turn running anywhere, the instance that takes it in says there is nothing to stop', async () => {
    const worker = await channelWorker(a);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    const chat = 72_002;
    await pairChat(fake, bot, chat, created.pairingCode);
    const res = await fetch(`${b.baseUrl}/api/channels/telegram/${created.id}/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': fake.webhookOf(bot)!.secretToken!,
      },
      body: JSON.stringify(textUpdate(2_001, chat, '/stop')),
    });
    expect(res.status).toBe(200);
    const [, reply] = await fake.waitForMessages(chat, 2);
    expect(reply!.text).toMatch(/Nothing to stop/);
  });
});
