import { Writable } from 'node:stream';
import { createLogger } from '@pa/http-kit';
import { until } from '@pa/http-kit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { composeGateway } from '../src/compose/gateway.ts';
import { startWorkerProcess, type WorkerProcess } from '../src/compose/worker-process.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import {
  connectPollingBot as connectBot,
  listChannels,
  pair,
  type PollingChannel,
} from './support/polling-channel.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Telegram polling mode when the Bot API fails: down and back, rate limits, a revoked token, a webhook set.

let fake: FakeTelegram;
let g: TestGateway;
const workers: WorkerProcess[] = [];
const channels: string[] = [];

// a later test's worker process polls every polling channel in the database: each test's go when it ends
async function connectPollingBot(gateway: TestGateway, telegram: FakeTelegram): Promise<PollingChannel> {
  const c = await connectBot(gateway, telegram);
  channels.push(c.channelId);
  return c;
}

function startWorker(): WorkerProcess {
  const w = startWorkerProcess(composeGateway(g.deps), { scanMs: 100 });
  workers.push(w);
  return w;
}

beforeAll(async () => {
  fake = await FakeTelegram.start();
  g = await startTestGateway({
    redis: 'required',
    env: { AI_WORKERS_ENABLED: 'true', TELEGRAM_API_BASE_URL: fake.baseUrl },
  });
});
afterEach(async () => {
  fake.up();
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await g.db.channel.deleteMany({ where: { id: { in: channels.splice(0) } } });
});
afterAll(async () => {
  await g?.close();
  await fake?.close();
});

const chatIds = (() => {
  let next = 42_000;
  return () => next++;
})();

const pollsOf = (token: string) => fake.callsOf('getUpdates').filter((call) => call.token === token);

describe('Telegram polling mode when the Bot API fails', () => {
  it('survives the Bot API being down and answers the messages sent meanwhile once it is back', async () => {
    startWorker();
    const c = await connectPollingBot(g, fake);
    const chat = chatIds();
    await pair(fake, c, chat);

    fake.down();
    fake.cutConnections();
    await fake.userWrites(c.bot, { id: chat }, 'help');
    await fake.userWrites(c.bot, { id: chat }, 'what is expiring?');
    // the poller keeps trying (backing off) while every call is refused
    await until('two refused polls', () => fake.refused >= 2);
    expect(fake.messagesTo(chat)).toHaveLength(1);
    fake.up();

    const replies = await fake.waitForMessages(chat, 3, 20_000);
    expect(replies).toHaveLength(3);
    const channel = (await listChannels(g, c))[0]!;
    expect(channel.status).toBe('connected');
  });

  it('honours retry_after on 429: no getUpdates call before it has elapsed', async () => {
    const c = await connectPollingBot(g, fake);
    fake.rateLimit('getUpdates', 2, 1);
    startWorker();
    const chat = chatIds();
    await pair(fake, c, chat);
    const [limited, next] = pollsOf(c.bot.token);
    expect(next!.at - limited!.at).toBeGreaterThanOrEqual(2000);
    // and well before the error backoff's cap: the wait was the one Telegram asked for
    expect(next!.at - limited!.at).toBeLessThan(4000);
  });

  it('puts the channel in error with the reason in words when Telegram refuses the token (401), and stops polling it', async () => {
    const c = await connectPollingBot(g, fake);
    fake.failNext('getUpdates', 401, 'Unauthorized');
    const worker = startWorker();
    const channel = await until('the channel in error', async () => {
      const [ch] = await listChannels(g, c);
      return ch?.status === 'error' && ch;
    });
    expect(channel.lastError).toMatch(/token/);
    expect(channel.lastError).not.toContain(c.bot.token);
    await until('the poller gone', () => !worker.pollers.active().includes(c.channelId));
    const calls = pollsOf(c.bot.token).length;
    await worker.pollers.scan();
    await worker.pollers.scan();
    expect(pollsOf(c.bot.token)).toHaveLength(calls);
    expect(await g.redis!.get(`${g.config.REDIS_PREFIX}channels:poll-lock:${c.channelId}`)).toBeNull();
  });

  it('puts the channel in error when a webhook is set on the bot (409)', async () => {
    const c = await connectPollingBot(g, fake);
    fake.failNext(
      'getUpdates',
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
    startWorker();
    const channel = await until('the channel in error', async () => {
      const [ch] = await listChannels(g, c);
      return ch?.status === 'error' && ch;
    });
    expect(channel.lastError).toMatch(/webhook/);
  });

  it('keeps the bot token out of every log line while the Bot API is down, rate-limits and refuses the token', async () => {
    const lines: string[] = [];
    const logger = createLogger(
      'agent-gateway',
      'debug',
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const c = await connectPollingBot(g, fake);
    const worker = startWorkerProcess(composeGateway({ ...g.deps, logger }), { scanMs: 100 });
    workers.push(worker);
    const chat = chatIds();
    await pair(fake, c, chat);
    fake.down();
    fake.cutConnections();
    const refused = fake.refused;
    await until('a refused poll', () => fake.refused > refused);
    fake.up();
    fake.rateLimit('getUpdates', 1, 1);
    fake.failNext('getUpdates', 401, 'Unauthorized');
    fake.cutConnections();
    await until('the channel in error', async () => (await listChannels(g, c))[0]?.status === 'error');
    const log = lines.join('');
    expect(log).toMatch(/getUpdates failed/);
    expect(log).toMatch(/Telegram poller stopped/);
    expect(log).not.toContain(c.bot.token);
    expect(log).not.toContain(c.bot.token.split(':')[1]);
  });
});
