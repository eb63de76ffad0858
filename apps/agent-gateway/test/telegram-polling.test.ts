import { scaled, until } from '@pa/http-kit/testing';
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
import { spawnWorkerProcess } from './support/worker-child.ts';

// Telegram polling mode (docs/channels.md) in the worker process: the real gateway app and worker process on PostgreSQL
// and Redis, the Bot API replaced by a loopback server speaking its HTTP shape.

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
const gateways: TestGateway[] = [];

function startWorker(gateway: TestGateway = g): WorkerProcess {
  const w = startWorkerProcess(composeGateway(gateway.deps), { scanMs: 100 });
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
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await g.db.channel.deleteMany({ where: { id: { in: channels.splice(0) } } });
  await Promise.all(gateways.splice(0).map((x) => x.close()));
});
afterAll(async () => {
  await g?.close();
  await fake?.close();
});

const chatIds = (() => {
  let next = 41_000;
  return () => next++;
})();

describe('Telegram polling mode', () => {
  it('answers a paired chat’s messages in order, long-polling getUpdates from the stored offset', async () => {
    const worker = startWorker();
    const c = await connectPollingBot(g, fake);
    const chat = chatIds();
    await pair(fake, c, chat);

    await fake.userWrites(c.bot, { id: chat }, 'help');
    const last = await fake.userWrites(c.bot, { id: chat }, 'what is expiring?');
    const replies = await fake.waitForMessages(chat, 3);
    expect(replies.map((m) => m.text).slice(1)).toHaveLength(2);

    const polls = fake.callsOf('getUpdates').filter((call) => call.token === c.bot.token);
    expect(polls[0]!.params).toMatchObject({ timeout: 30, allowed_updates: ['message'] });
    const stored = await until('the offset after the last update', async () => {
      const row = await g.db.channel.findUniqueOrThrow({ where: { id: c.channelId } });
      return row.pollOffset === BigInt(last.update_id + 1) && row;
    });
    expect(stored.status).toBe('connected');
    // the conversation took each update in once
    expect(await g.db.channelUpdate.count({ where: { channelId: c.channelId } })).toBe(3);
    const turns = await g.db.turn.findMany({
      where: { session: { channel: 'telegram', externalId: { endsWith: `:${chat}` } }, role: 'user' },
      orderBy: { seq: 'asc' },
    });
    expect(turns.map((t) => t.content)).toEqual(['help', 'what is expiring?']);
    expect(worker.pollers.active()).toEqual([c.channelId]);
  });

  it('stops polling a channel deleted while running, and polls one connected meanwhile', async () => {
    const worker = startWorker();
    const a = await connectPollingBot(g, fake);
    await until('the first channel polled', () => worker.pollers.active().includes(a.channelId));
    const res = await fetch(`${g.baseUrl}/api/assistant/workers/${a.workerId}/channels/${a.channelId}`, {
      method: 'DELETE',
      headers: a.headers,
    });
    expect(res.status).toBe(204);
    await until('the deleted channel no longer polled', () => !worker.pollers.active().includes(a.channelId));
    const b = await connectPollingBot(g, fake);
    await until('the new channel polled', () => worker.pollers.active().includes(b.channelId));
  });

  it('after a restart (a new poller) resumes at the stored offset and handles no update twice', async () => {
    const first = startWorker();
    const c = await connectPollingBot(g, fake);
    const chat = chatIds();
    await pair(fake, c, chat);
    await fake.userWrites(c.bot, { id: chat }, 'help');
    await fake.waitForMessages(chat, 2);
    await first.stop();
    const offset = (await g.db.channel.findUniqueOrThrow({ where: { id: c.channelId } })).pollOffset;

    // written while nobody polls
    await fake.userWrites(c.bot, { id: chat }, 'what is expiring?');
    const callsBefore = fake.callsOf('getUpdates').length;
    startWorker();
    const replies = await fake.waitForMessages(chat, 3);
    const resumed = fake
      .callsOf('getUpdates')
      .slice(callsBefore)
      .find((call) => call.token === c.bot.token);
    expect(resumed!.params.offset).toBe(Number(offset));

    // nothing more comes: each update answered once
    await fake.userWrites(c.bot, { id: chat }, 'help');
    await fake.waitForMessages(chat, 4);
    expect(fake.messagesTo(chat)).toHaveLength(4);
    expect(replies).toHaveLength(3);
    expect(await g.db.channelUpdate.count({ where: { channelId: c.channelId } })).toBe(4);
  });

  it('after a restart skips an update the previous process took in but had not stored the offset past', async () => {
    const c = await connectPollingBot(g, fake);
    const chat = chatIds();
    const first = startWorker();
    await pair(fake, c, chat);
    await first.stop();
    // the previous process recorded this update, then died before storing the offset past it
    const taken = await fake.userWrites(c.bot, { id: chat }, 'help');
    await g.db.channelUpdate.create({ data: { channelId: c.channelId, updateKey: String(taken.update_id) } });
    const next = await fake.userWrites(c.bot, { id: chat }, 'what is expiring?');
    startWorker();
    await until('the offset past both', async () => {
      const row = await g.db.channel.findUniqueOrThrow({ where: { id: c.channelId } });
      return row.pollOffset === BigInt(next.update_id + 1);
    });
    await fake.waitForMessages(chat, 2);
    const turns = await g.db.turn.findMany({
      where: { session: { channel: 'telegram', externalId: { endsWith: `:${chat}` } }, role: 'user' },
    });
    expect(turns.map((t) => t.content)).toEqual(['what is expiring?']);
    expect(fake.messagesTo(chat)).toHaveLength(2);
  });

  it(
    'worker.ts, the worker process on its own, answers in polling mode and on SIGTERM exits at once, releasing its lock',
    async () => {
      const c = await connectPollingBot(g, fake);
      const {
        child,
        exited,
        output,
        started: up,
        killIfRunning,
      } = spawnWorkerProcess(g, {
        TELEGRAM_API_BASE_URL: fake.baseUrl,
        LOG_LEVEL: 'info',
      });
      try {
        const chat = chatIds();
        // the pairing message is answered only once the process is up (compiling the gateway takes a while)
        await up('the worker process polling the bot', () =>
          fake.callsOf('getUpdates').some((call) => call.token === c.bot.token),
        );
        await pair(fake, c, chat);
        await fake.userWrites(c.bot, { id: chat }, 'help');
        await fake.waitForMessages(chat, 2);
        const key = `${g.config.REDIS_PREFIX}channels:poll-lock:${c.channelId}`;
        expect(await g.redis!.get(key)).toBeTruthy();
        const started = performance.now();
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        // at once: not after the long poll's 30 s (a loaded machine stretches "at once", never to that)
        expect(performance.now() - started).toBeLessThan(Math.min(scaled(3000), 20_000));
        expect(await g.redis!.get(key)).toBeNull();
        expect(output()).toMatch(/Telegram polling started/);
        expect(output()).not.toContain(c.bot.token);
      } finally {
        killIfRunning();
      }
      // a process start and a whole turn: more than the default test timeout
    },
    scaled(90_000),
  );

  it('polls a channel from one of two gateway instances sharing PostgreSQL and Redis, and the other takes over when it stops', async () => {
    const g2 = await startTestGateway({
      databaseUrl: g.databaseUrl,
      secretKey: g.deps.secretKey,
      redisPrefix: g.config.REDIS_PREFIX,
      env: { AI_WORKERS_ENABLED: 'true', TELEGRAM_API_BASE_URL: fake.baseUrl },
    });
    gateways.push(g2);
    const one = startWorker(g);
    const two = startWorker(g2);
    const c = await connectPollingBot(g, fake);
    const holders = () => [one, two].filter((w) => w.pollers.active().includes(c.channelId));
    await until('a poller', () => holders().length === 1);
    // several scans later, still one
    await one.pollers.scan();
    await two.pollers.scan();
    expect(holders()).toHaveLength(1);

    const chat = chatIds();
    await pair(fake, c, chat);
    for (const text of ['help', 'what is expiring?', 'help'])
      await fake.userWrites(c.bot, { id: chat }, text);
    await fake.waitForMessages(chat, 4);

    const [holder] = holders();
    const other = holder === one ? two : one;
    await holder!.stop();
    await until('the other instance takes over', () => other.pollers.active().includes(c.channelId));
    await fake.userWrites(c.bot, { id: chat }, 'help');
    await fake.waitForMessages(chat, 5);
    expect(fake.messagesTo(chat)).toHaveLength(5);
    expect(await g.db.channelUpdate.count({ where: { channelId: c.channelId } })).toBe(5);
  });

  it('waits for the lock of a process that died to expire, then polls', async () => {
    const c = await connectPollingBot(g, fake);
    const key = `${g.config.REDIS_PREFIX}channels:poll-lock:${c.channelId}`;
    await g.redis!.set(key, 'a-process-that-died', 'PX', 1500);
    const worker = startWorker();
    await worker.pollers.scan();
    expect(worker.pollers.active()).toEqual([]);
    await until('the expired lock taken over', () => worker.pollers.active().includes(c.channelId), 5000);
    expect(await g.redis!.get(key)).not.toBe('a-process-that-died');
  });

  it('on stop aborts the long poll at once and releases the lock', async () => {
    const worker = startWorker();
    const c = await connectPollingBot(g, fake);
    await until('a long poll in progress', () =>
      fake.callsOf('getUpdates').some((call) => call.token === c.bot.token),
    );
    const key = `${g.config.REDIS_PREFIX}channels:poll-lock:${c.channelId}`;
    expect(await g.redis!.get(key)).toBeTruthy();
    const started = performance.now();
    await worker.stop();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await g.redis!.get(key)).toBeNull();
    expect(worker.pollers.active()).toEqual([]);
    expect((await listChannels(g, c))[0]!.status).toBe('pending_pairing');
  });
});
