import { setTimeout as sleep } from 'node:timers/promises';
import { scaled, until } from '@pa/http-kit/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  GIVE_UP_TEXT,
  MAX_UPDATE_ATTEMPTS,
  ORPHAN_ANSWER_WITHIN_MS,
} from '../src/features/channels/channel-conversation.ts';
import { composeGateway } from '../src/compose/gateway.ts';
import { startWorkerProcess, type WorkerProcess } from '../src/compose/worker-process.ts';
import {
  channelWorker,
  connectTelegram,
  pairChat,
  startChannelGateway,
  textUpdate,
} from './support/channels.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import { connectPollingBot as connectBot, pair, type PollingChannel } from './support/polling-channel.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';
import { spawnWorkerProcess } from './support/worker-child.ts';

// A message a process took in and stopped before answering (a crash, kill -9, a host that went away) is answered by
// another process once the dead one's claim on it has run out, and a live process's claim is never taken. The real
// gateway and worker processes on PostgreSQL and Redis; the Bot API is a loopback server speaking its HTTP shape.
// The local provider waits 200 ms between chunks here, so that a turn lasts long enough to be interrupted.

let fake: FakeTelegram;
let g: TestGateway;
const workers: WorkerProcess[] = [];
const channels: string[] = [];

beforeAll(async () => {
  fake = await FakeTelegram.start();
  g = await startTestGateway({
    redis: 'required',
    env: { AI_WORKERS_ENABLED: 'true', TELEGRAM_API_BASE_URL: fake.baseUrl, LOCAL_PROVIDER_DELAY_MS: '200' },
  });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  // a later test's worker process polls every polling channel in the database: each test's go when it ends
  await g.db.channel.deleteMany({ where: { id: { in: channels.splice(0) } } });
});
afterAll(async () => {
  await g?.close();
  await fake?.close();
});

async function connectPollingBot(): Promise<PollingChannel> {
  const c = await connectBot(g, fake);
  channels.push(c.channelId);
  return c;
}

function startWorker(
  opts: Parameters<typeof startWorkerProcess>[1] & { updateClaimMs?: number } = {},
): WorkerProcess {
  const { updateClaimMs, ...processOpts } = opts;
  const w = startWorkerProcess(composeGateway(g.deps, { updateClaimMs }), {
    scanMs: 100,
    recoverMs: 100,
    ...processOpts,
  });
  workers.push(w);
  return w;
}

/** Another process's conversation over the same database, to look for orphans from outside. */
function otherConversation() {
  return composeGateway({ ...g.deps, redis: null }).channels.conversation;
}

const typingIn = (chatId: number) =>
  fake.callsOf('sendChatAction').some((call) => String(call.params.chat_id) === String(chatId));

const updateRow = (channelId: string, update: { update_id: number }) =>
  g.db.channelUpdate.findUnique({
    where: { channelId_updateKey: { channelId, updateKey: String(update.update_id) } },
  });

const turnsOf = (chatId: number) =>
  g.db.turn.findMany({
    where: { session: { channel: 'telegram', externalId: { endsWith: `:${chatId}` } } },
    orderBy: { seq: 'asc' },
    select: { role: true, content: true, status: true },
  });

/** An unhandled message as a process that then stopped would have left it (its claim already run out). */
async function leaveOrphan(
  c: PollingChannel,
  chatId: number,
  text: string,
  opts: { updateKey: string; receivedAgoMs?: number; attempts?: number },
) {
  await g.db.channelUpdate.create({
    data: {
      channelId: c.channelId,
      updateKey: opts.updateKey,
      chatId: String(chatId),
      text,
      attempts: opts.attempts ?? 1,
      claimedUntil: new Date(Date.now() - 1000),
      receivedAt: new Date(Date.now() - (opts.receivedAgoMs ?? 5_000)),
    },
  });
}

describe('messages whose process stopped before answering them', () => {
  it(
    'one taken in by a worker process killed mid-turn (kill -9) is answered by another once the claim runs out',
    async () => {
      const c = await connectPollingBot();
      const worker = spawnWorkerProcess(g, {
        TELEGRAM_API_BASE_URL: fake.baseUrl,
        // 5 s between chunks: the turn is still running when the process is killed
        LOCAL_PROVIDER_DELAY_MS: '5000',
        LOG_LEVEL: 'warn',
      });
      const chat = 71_001;
      let asked = { update_id: 0 };
      try {
        // the pairing message is answered only once the process is up (compiling the gateway takes a while)
        await worker.started('the worker process polling the bot', () =>
          fake.callsOf('getUpdates').some((call) => call.token === c.bot.token),
        );
        await pair(fake, c, chat).catch((err: unknown) => {
          throw new Error(`${String(err)}; the worker process said: ${worker.output()}`);
        });
        asked = await fake.userWrites(c.bot, { id: chat }, 'help');
        // killed mid-turn: the question stored, the answer being written
        await until(
          'the turn running in the child',
          async () => typingIn(chat) && (await turnsOf(chat)).length,
        );
        worker.child.kill('SIGKILL');
        await worker.exited;
      } finally {
        worker.killIfRunning();
      }

      // The dead process's claim still stands: nobody answers until it runs out.
      const left = await updateRow(c.channelId, asked);
      expect(left).toMatchObject({ chatId: String(chat), text: 'help', handledAt: null, attempts: 1 });
      expect(left!.claimedUntil!.getTime()).toBeGreaterThan(Date.now());
      expect(await otherConversation().recoverOrphans()).toBe(0);

      // Two minutes later (the claim moved back here rather than waited for), a worker process answers it.
      await g.db.channelUpdate.updateMany({
        where: { channelId: c.channelId, updateKey: left!.updateKey },
        data: { claimedUntil: new Date(Date.now() - 1) },
      });
      startWorker();
      // the answer is a whole turn (200 ms a chunk): allowed more than the default wait on a loaded machine
      const [, answer] = await fake.waitForMessages(chat, 2, 40_000);
      expect(answer!.text).not.toMatch(/sorry/i);
      const done = await until('handled', async () => {
        const row = await updateRow(c.channelId, asked);
        return row?.handledAt && row;
      });
      // handled once by the second process; the message itself is not kept any longer
      expect(done).toMatchObject({ attempts: 2, claimedUntil: null, text: null, chatTitle: null });
      // The session has the killed attempt's question (closed later by the open-turn sweeper) and the answered one.
      const turns = await turnsOf(chat);
      expect(turns.filter((t) => t.role === 'user').map((t) => t.content)).toEqual(['help', 'help']);
      const replies = turns.filter((t) => t.role === 'assistant');
      expect(replies).toHaveLength(1);
      expect(replies[0]!.status).toBe('complete');
      expect(fake.messagesTo(chat)).toHaveLength(2);
      // a process start and two whole turns: more than the default test timeout
    },
    scaled(120_000),
  );

  it('a live process renews its claim while a turn runs: no other process takes the message meanwhile', async () => {
    const c = await connectPollingBot();
    // renewed every 250 ms: a stall of the test process's event loop under load must exceed 750 ms to lose it
    const claimMs = 1_000;
    startWorker({ updateClaimMs: claimMs });
    const chat = 71_002;
    await pair(fake, c, chat);
    const asked = await fake.userWrites(c.bot, { id: chat }, 'help');
    await until('the turn running', () => typingIn(chat));
    const other = otherConversation();
    const started = Date.now();
    let looks = 0;
    // Looking for orphans all through the turn (each look a real claim attempt) finds none.
    while (fake.messagesTo(chat).length < 2) {
      expect(await other.recoverOrphans()).toBe(0);
      looks++;
      await sleep(25);
    }
    // the turn outlasted several claims: without renewal the other process would have taken it
    expect(Date.now() - started).toBeGreaterThan(3 * claimMs);
    expect(looks).toBeGreaterThan(10);
    await until('handled', async () => (await updateRow(c.channelId, asked))?.handledAt);
    expect(fake.messagesTo(chat)).toHaveLength(2);
    expect((await turnsOf(chat)).filter((t) => t.role === 'user')).toHaveLength(1);
  });

  it('gives up one that arrived over an hour ago or was taken on too often: the chat is asked to send it again', async () => {
    const c = await connectPollingBot();
    const chat = 71_003;
    startWorker({ recoverMs: 60_000 });
    await pair(fake, c, chat);
    await leaveOrphan(c, chat, 'which gas certificates have expired?', {
      updateKey: 'old',
      receivedAgoMs: ORPHAN_ANSWER_WITHIN_MS + 60_000,
    });
    await leaveOrphan(c, chat, 'what deals are open?', { updateKey: 'tried', attempts: MAX_UPDATE_ATTEMPTS });
    // a /stop's turn stopped with its process: dropped without a word
    await leaveOrphan(c, chat, '/stop', { updateKey: 'stop' });
    // given up too, but a chat that is not the paired one is not written to
    await leaveOrphan(c, 71_099, 'hello?', {
      updateKey: 'stranger',
      receivedAgoMs: ORPHAN_ANSWER_WITHIN_MS + 60_000,
    });

    expect(await otherConversation().recoverOrphans()).toBe(4);
    const [, first, second] = await fake.waitForMessages(chat, 3);
    expect([first!.text, second!.text]).toEqual([
      GIVE_UP_TEXT('which gas certificates have expired?'),
      GIVE_UP_TEXT('what deals are open?'),
    ]);
    await until('all four handled', async () => {
      const rows = await g.db.channelUpdate.findMany({
        where: { channelId: c.channelId, updateKey: { in: ['old', 'tried', 'stop', 'stranger'] } },
      });
      return rows.every((r) => r.handledAt && r.claimedUntil === null && r.text === null);
    });
    expect(fake.messagesTo(71_099)).toHaveLength(0);
    expect(fake.messagesTo(chat)).toHaveLength(3);
    // no chat turn was run for any of them
    expect(await turnsOf(chat)).toHaveLength(0);
  });

  it('answers a recent orphan as if it had just arrived, each chat in order', async () => {
    const c = await connectPollingBot();
    const chat = 71_004;
    startWorker({ recoverMs: 60_000 });
    await pair(fake, c, chat);
    await leaveOrphan(c, chat, 'my name is Ada', { updateKey: 'a', receivedAgoMs: 9_000 });
    await leaveOrphan(c, chat, 'what is my name?', { updateKey: 'b', receivedAgoMs: 8_000 });
    expect(await otherConversation().recoverOrphans()).toBe(2);
    const [, , name] = await fake.waitForMessages(chat, 3);
    expect(name!.text).toContain('Ada');
    expect((await turnsOf(chat)).map((t) => t.content).filter((x, i) => i % 2 === 0)).toEqual([
      'my name is Ada',
      'what is my name?',
    ]);
  });
});

describe('Telegram webhook mode', () => {
  it('answers Telegram only once the update is recorded: while the record waits, so does the answer', async () => {
    const hooked = await startChannelGateway(fake, { env: { LOCAL_PROVIDER_DELAY_MS: '0' } });
    const client = new pg.Client({ connectionString: hooked.databaseUrl });
    // a second connection to watch from: inside the first one's transaction, pg_stat_activity is one snapshot
    const watcher = new pg.Client({ connectionString: hooked.databaseUrl });
    await client.connect();
    await watcher.connect();
    try {
      const worker = await channelWorker(hooked);
      const bot = fake.addBot();
      const created = await connectTelegram(worker, bot, 'webhook');
      const chat = 71_005;
      await pairChat(fake, bot, chat, created.pairingCode);
      const update = textUpdate(9_001, chat, 'help');
      // Another transaction holds the update's key: the gateway's insert of it waits for that one to end.
      const holder = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO channel_updates (channel_id, update_key, handled_at) VALUES ($1, '9001', now())`,
        [created.id],
      );
      let answered = false;
      const delivery = fake.deliver(bot, update).then(
        (status) => {
          answered = true;
          return status;
        },
        (err: unknown) => err,
      );
      await until('the gateway waiting on the key', async () => {
        const { rows } = await watcher.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE $1::int = ANY (pg_blocking_pids(pid)) AND query ILIKE '%channel_updates%'`,
          [holder],
        );
        return rows[0]!.n > 0;
      });
      expect(answered).toBe(false);
      await client.query('ROLLBACK');
      expect(await delivery).toBe(200);
      const row = await hooked.db.channelUpdate.findFirst({
        where: { channelId: created.id, updateKey: '9001' },
      });
      expect(row).not.toBeNull();
      await fake.waitForMessages(chat, 2);
      await until(
        'handled',
        async () =>
          (await hooked.db.channelUpdate.findFirst({ where: { channelId: created.id, updateKey: '9001' } }))
            ?.handledAt,
      );
    } finally {
      await client.end();
      await watcher.end();
      await hooked.close();
    }
  });
});
