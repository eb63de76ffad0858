import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  channelWorker,
  connectTelegram,
  fakeOpenAIEnv,
  pairChat,
  startChannelGateway,
  textUpdate,
} from './support/channels.ts';
import { type FakeOpenAI, startFakeOpenAI } from './support/fake-openai.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import { expectProblem } from './support/http.ts';
import { GATEWAY_BACKENDS, type TestGateway } from './support/test-app.ts';
import { scaled } from '@pa/http-kit/testing';

// The gateway answers with the OpenAI-compatible provider pointed at a loopback fake, which by default echoes the
// last user message: each reply says which message it answers.
describe.each(GATEWAY_BACKENDS)('Telegram webhook inbox on %s', (_name, backend) => {
  let fake: FakeTelegram;
  let llm: FakeOpenAI;
  let g: TestGateway;
  beforeAll(async () => {
    fake = await FakeTelegram.start();
    llm = await startFakeOpenAI();
    g = await startChannelGateway(fake, { backend, env: fakeOpenAIEnv(llm) });
  });
  beforeEach(() => llm.reset());
  afterAll(async () => {
    await g?.close();
    await llm?.close();
    await fake?.close();
  });

  async function pairedBot(chatId: number) {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    await pairChat(fake, bot, chatId, created.pairingCode);
    return { worker, bot, created, webhook: fake.webhookOf(bot)! };
  }

  function post(url: string, body: unknown, secret?: string) {
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret }),
      },
      body: JSON.stringify(body),
    });
  }

  describe('POST /api/channels/telegram/{channelId}/webhook', () => {
    it('answers 403 webhook-secret-invalid without the secret or with a wrong one, and handles nothing', async () => {
      const { webhook } = await pairedBot(620_001);
      const secret = webhook.secretToken!;
      await expectProblem(
        await post(webhook.url, textUpdate(500, 620_001, 'hi')),
        403,
        'webhook-secret-invalid',
      );
      const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
      await expectProblem(
        await post(webhook.url, textUpdate(501, 620_001, 'hi'), wrong),
        403,
        'webhook-secret-invalid',
      );
      await expectProblem(
        await post(webhook.url, textUpdate(502, 620_001, 'hi'), 'short'),
        403,
        'webhook-secret-invalid',
      );
      expect(llm.requests).toHaveLength(0);
      expect(fake.messagesTo(620_001)).toHaveLength(1); // "Connected to …" only
    });

    it('answers 404 channel-not-found for an unknown channel', async () => {
      await expectProblem(
        await post(
          `${g.baseUrl}/api/channels/telegram/00000000-0000-4000-8000-000000000000/webhook`,
          textUpdate(1, 1, 'hi'),
          'x',
        ),
        404,
        'channel-not-found',
      );
    });

    it('answers 200 at once while the turn is still running, then replies', async () => {
      const { webhook } = await pairedBot(620_002);
      // a turn of at least 2 s
      llm.script({ chunks: ['slow ', 'answer'], delayMs: 1000 });
      const started = Date.now();
      const res = await post(webhook.url, textUpdate(600, 620_002, 'take your time'), webhook.secretToken);
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1500);
      // answered before the reply was sent
      expect(fake.messagesTo(620_002)).toHaveLength(1);
      const sent = await fake.waitForMessages(620_002, 2);
      expect(sent[1]!.text).toBe('slow answer');
    });

    it('handles a repeated update_id once', async () => {
      const { webhook, created } = await pairedBot(620_003);
      const body = textUpdate(700, 620_003, 'only once please');
      expect((await post(webhook.url, body, webhook.secretToken)).status).toBe(200);
      expect((await post(webhook.url, body, webhook.secretToken)).status).toBe(200);
      await fake.waitForMessages(620_003, 2);
      expect((await post(webhook.url, body, webhook.secretToken)).status).toBe(200);
      // a later update of the same chat is answered after the repeats: by then they were all handled
      await post(webhook.url, textUpdate(701, 620_003, 'next'), webhook.secretToken);
      const sent = await fake.waitForMessages(620_003, 3);
      expect(sent.slice(1).map((m) => m.text)).toEqual(['You said: only once please', 'You said: next']);
      expect(llm.requests).toHaveLength(2);
      const turns = await g.db.turn.count({
        where: { session: { channel: 'telegram', externalId: { endsWith: ':620003' } }, role: 'user' },
      });
      expect(turns).toBe(2);
      expect(await g.db.channelUpdate.count({ where: { channelId: created.id, updateKey: '700' } })).toBe(1);
    });

    it('keeps the order of a chat’s updates while a turn ahead of them is slow', async () => {
      const { webhook } = await pairedBot(620_004);
      // the first turn is slow; the ones queued behind it must still come out in order
      llm.setDefault((req) => ({
        chunks: [
          String(
            [...req.body.messages].reverse().find((m: { role: string }) => m.role === 'user')?.content ?? '',
          ),
        ],
        delayMs: 0,
      }));
      llm.script({ chunks: ['one'], delayMs: 400 });
      const texts = ['one', 'two', 'three', 'four', 'five'];
      for (const [i, text] of texts.entries()) {
        expect(
          (await post(webhook.url, textUpdate(800 + i, 620_004, text), webhook.secretToken)).status,
        ).toBe(200);
      }
      const sent = await fake.waitForMessages(620_004, 1 + texts.length);
      expect(sent.slice(1).map((m) => m.text)).toEqual(texts);
      // each turn saw the previous ones: they ran one after another
      const lastRequest = llm.requests.at(-1)!.body.messages;
      expect(lastRequest.filter((m: { role: string }) => m.role === 'user').map((m) => m.content)).toEqual(
        texts,
      );
    });

    it(
      'shows typing while a turn runs, again every ~4 s while it lasts',
      async () => {
        const { webhook, bot } = await pairedBot(620_005);
        // about 6 s of writing (a pause before the second chunk and another before the end)
        llm.script({ chunks: ['still ', 'thinking'], delayMs: 3000 });
        await post(webhook.url, textUpdate(900, 620_005, 'hi'), webhook.secretToken);
        await fake.waitForMessages(620_005, 2);
        const typing = fake
          .callsOf('sendChatAction')
          .filter((c) => c.token === bot.token && String(c.params.chat_id) === '620005');
        expect(typing.length).toBeGreaterThanOrEqual(2);
        expect(new Set(typing.map((c) => c.params.action))).toEqual(new Set(['typing']));
        // repeated by a 4 s timer (the first call may reach the fake late on a loaded machine)
        expect(typing[1]!.at - typing[0]!.at).toBeGreaterThanOrEqual(3000);
      },
      scaled(30_000),
    );
  });
});
