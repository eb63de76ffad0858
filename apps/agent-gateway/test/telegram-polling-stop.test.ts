import { until } from '@pa/http-kit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { composeGateway } from '../src/compose/gateway.ts';
import { startWorkerProcess, type WorkerProcess } from '../src/compose/worker-process.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import { connectPollingBot, pair, type PollingChannel } from './support/polling-channel.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Turns that take a while in polling mode: a /stop must get through the poll while the turn runs, and a shutdown
// gives a running turn a grace period, then stops it with its partial reply kept. The local provider waits
// 150 ms between chunks here.

let fake: FakeTelegram;
let g: TestGateway;
const workers: WorkerProcess[] = [];
const channels: string[] = [];

beforeAll(async () => {
  fake = await FakeTelegram.start();
  g = await startTestGateway({
    redis: 'required',
    env: { AI_WORKERS_ENABLED: 'true', TELEGRAM_API_BASE_URL: fake.baseUrl, LOCAL_PROVIDER_DELAY_MS: '150' },
  });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await g.db.channel.deleteMany({ where: { id: { in: channels.splice(0) } } });
});
afterAll(async () => {
  await g?.close();
  await fake?.close();
});

async function pairedChat(chatId: number, turnGraceMs?: number): Promise<[PollingChannel, WorkerProcess]> {
  const worker = startWorkerProcess(composeGateway(g.deps), { scanMs: 100, turnGraceMs });
  workers.push(worker);
  const c = await connectPollingBot(g, fake);
  channels.push(c.channelId);
  await pair(fake, c, chatId);
  return [c, worker];
}

const typingIn = (chatId: number) =>
  fake.callsOf('sendChatAction').some((call) => String(call.params.chat_id) === String(chatId));

async function lastAssistantTurn(chatId: number) {
  return g.db.turn.findFirst({
    where: { session: { channel: 'telegram', externalId: { endsWith: `:${chatId}` } }, role: 'assistant' },
    orderBy: { seq: 'desc' },
  });
}

describe('Telegram polling mode with a turn running', () => {
  it('takes /stop in while the turn runs: the partial reply is sent, marked stopped, and stored interrupted', async () => {
    const chat = 43_001;
    const [c] = await pairedChat(chat);
    await fake.userWrites(c.bot, { id: chat }, 'help');
    await until('typing shown', () => typingIn(chat));
    await fake.userWrites(c.bot, { id: chat }, '/stop');
    const [, reply] = await fake.waitForMessages(chat, 2);
    expect(reply!.text).toMatch(/stopped/i);
    const turn = await until('the interrupted turn', async () => {
      const t = await lastAssistantTurn(chat);
      return t?.status === 'interrupted' && t;
    });
    expect(reply!.text).toContain(turn.content.slice(0, 20));
  });

  it('on shutdown lets a running turn run for the grace period, then stops it keeping its partial reply', async () => {
    const chat = 43_002;
    const [c, worker] = await pairedChat(chat, 400);
    await fake.userWrites(c.bot, { id: chat }, 'help');
    await until('typing shown', () => typingIn(chat));
    const started = performance.now();
    await worker.stop();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(3000);
    const [, reply] = await fake.waitForMessages(chat, 2);
    expect(reply!.text).toMatch(/stopped/i);
    expect((await lastAssistantTurn(chat))!.status).toBe('interrupted');
  });
});
