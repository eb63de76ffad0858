// The Telegram channel's benchmark (`tsx bench/gateway/telegram.ts`, part of `npm run bench`): 100 paired chats
// × 10 messages through a loopback Bot API (the tests' fake, real HTTP shape and long-poll semantics) in polling
// mode, beside the same 1,000 turns over POST /api/chat in the same run, on the same gateway process.
//
// The gateway is `apps/agent-gateway/src/main.ts` started as a child (pollers inside it, RUN_WORKER_IN_PROCESS),
// with TELEGRAM_API_BASE_URL pointing at the fake in this process, a fresh PostgreSQL database (createTestDatabase,
// prefix bench_tg, dropped at the end) and a unique Redis key prefix. Each chat is its own bot on its own worker
// (one poller each). Every message is written at once (10 per chat), then: every message answered once
// (exactly 10 replies per chat, none late), order kept per chat (the chat's stored user turns in the order
// written), replies/s (1,000 / time from the first write to the last reply) and p50/p99 from the update's
// creation to its reply's sendMessage. The web side: 100 clients, each sending its 10 messages one after the
// other on its own session. Target: Telegram replies/s ≥ 50 % of /api/chat's. Writes
// bench/results/telegram-latest.json; exits 0 whatever the verdict (non-zero when something breaks).
// Environment: BENCH_TG_CHATS (100), BENCH_TG_MESSAGES (10), BENCH_TG_PROFILE (a directory: the gateway's CPU
// profile is written there), TEST_DATABASE_URL and REDIS_URL as for the tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@pa/db-tools/testing';
import { freePort, until } from '@pa/http-kit/testing';
import pg from 'pg';
import { FakeTelegram } from '../../apps/agent-gateway/test/support/fake-telegram.ts';
import { MIGRATIONS_DIR } from '../../apps/agent-gateway/src/config.ts';
import { connectRedis } from '../../apps/agent-gateway/src/lib/redis.ts';
import { createReport, fmt, pct } from '../lib/report.ts';
import { latencyStats } from '../lib/stats.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RESULTS_FILE = path.join(REPO_ROOT, 'bench/results/telegram-latest.json');
const CHATS = Number(process.env.BENCH_TG_CHATS ?? 100);
const MESSAGES = Number(process.env.BENCH_TG_MESSAGES ?? 10);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TARGET_RATIO = 0.5;
const CHAT_ID_BASE = 500_000;
// a question the local provider answers in one short message (no binding: it says how to bind)
const message = (k: number) => `what is expiring? (${k + 1})`;

const report = createReport('bench telegram');

async function startGateway(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  // BENCH_TG_PROFILE=<dir>: the gateway writes a V8 CPU profile there when it stops
  const profile = process.env.BENCH_TG_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_TG_PROFILE}`]
    : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'apps/agent-gateway/src/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: 'production', WEB_PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await until(
    'the gateway to answer /readyz',
    async () => {
      if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode})`);
      return fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    60_000,
  );
  return { child, url };
}

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
let gatewayPid = 0;

/** the gateway's and this process's (the clients, and for Telegram the fake Bot API) CPU ms per reply */
function cpuPerReply(gateway0: number, own0: NodeJS.CpuUsage) {
  const own = process.cpuUsage(own0);
  const replies = CHATS * MESSAGES;
  return {
    gatewayCpuMsPerReply: (cpuMs(gatewayPid) - gateway0) / replies,
    benchCpuMsPerReply: (own.user + own.system) / 1000 / replies,
  };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json: unknown = await res.json();
  if (!res.ok) throw new Error(`POST ${url} → ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

async function main(): Promise<void> {
  const fake = await FakeTelegram.start();
  const database = await createTestDatabase({ prefix: 'bench_tg', migrationsDir: MIGRATIONS_DIR });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-tg-'));
  const redisPrefix = `bench_tg:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const gateway = await report.phase('starting the gateway (pollers in process)', () =>
    startGateway({
      GATEWAY_DATABASE_URL: database.url,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_SECRET_KEY: randomBytes(32).toString('hex'),
      REDIS_URL,
      REDIS_PREFIX: redisPrefix,
      LOG_LEVEL: 'warn',
      PROVIDER: 'local',
      AI_WORKERS_ENABLED: 'true',
      RUN_WORKER_IN_PROCESS: 'true',
      TELEGRAM_API_BASE_URL: fake.baseUrl,
      CHAT_RATE_LIMIT_PER_MIN: '100000',
    }),
  );
  gatewayPid = gateway.child.pid!;
  const sql = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), 'bench telegram') RETURNING id`,
    );
    const headers = { 'X-Workspace-Id': rows[0]!.id };

    const chats = await report.phase(`connecting and pairing ${CHATS} bots (one per worker)`, async () => {
      const out: Array<{ bot: ReturnType<FakeTelegram['addBot']>; chatId: number; workerId: string }> = [];
      for (let i = 0; i < CHATS; i++) {
        const worker = (await post(
          `${gateway.url}/api/assistant/workers`,
          { name: `Bench ${i}` },
          headers,
        )) as { id: string };
        const bot = fake.addBot();
        const channel = (await post(
          `${gateway.url}/api/assistant/workers/${worker.id}/channels`,
          { type: 'telegram', botToken: bot.token, mode: 'polling' },
          headers,
        )) as { pairingCode: string };
        const chatId = CHAT_ID_BASE + i;
        await fake.userWrites(bot, { id: chatId }, `/start ${channel.pairingCode}`);
        out.push({ bot, chatId, workerId: worker.id });
      }
      for (const c of out) await fake.waitForMessages(c.chatId, 1, 60_000);
      return out;
    });
    const paired = new Map(chats.map((c) => [c.chatId, fake.messagesTo(c.chatId).length]));

    // ---- Telegram, polling mode ----
    const written = new Map<number, number[]>();
    const tg = await report.phase(
      `${CHATS} chats × ${MESSAGES} messages over Telegram (polling)`,
      async () => {
        const sentBefore = fake.sent.length;
        const cpu0 = cpuMs(gatewayPid);
        const own0 = process.cpuUsage();
        const started = performance.now();
        await Promise.all(
          chats.map(async (c) => {
            const times: number[] = [];
            for (let k = 0; k < MESSAGES; k++) {
              times.push(Date.now());
              await fake.userWrites(c.bot, { id: c.chatId }, message(k));
            }
            written.set(c.chatId, times);
          }),
        );
        // one count for all chats: a waiter per chat would re-scan every sent message on each send, and the
        // benchmark's process (which also plays Telegram) would measure itself
        await until('every reply', () => fake.sent.length >= sentBefore + CHATS * MESSAGES, 300_000);
        const elapsedMs = performance.now() - started;
        const latencies: number[] = [];
        for (const c of chats) {
          const replies = fake.messagesTo(c.chatId).slice(paired.get(c.chatId));
          replies.forEach((r, k) => latencies.push(r.at - written.get(c.chatId)![k]!));
        }
        return { elapsedMs, latencies, ...cpuPerReply(cpu0, own0) };
      },
    );

    // ---- the same turns over POST /api/chat ----
    const web = await report.phase(
      `${CHATS} clients × ${MESSAGES} messages over POST /api/chat`,
      async () => {
        const cpu0 = cpuMs(gatewayPid);
        const own0 = process.cpuUsage();
        const started = performance.now();
        const latencies: number[] = [];
        await Promise.all(
          chats.map(async (c) => {
            for (let k = 0; k < MESSAGES; k++) {
              const t0 = performance.now();
              await post(
                `${gateway.url}/api/chat`,
                { message: message(k), sessionId: `bench-web-${c.chatId}`, workerId: c.workerId },
                headers,
              );
              latencies.push(performance.now() - t0);
            }
          }),
        );
        return { elapsedMs: performance.now() - started, latencies, ...cpuPerReply(cpu0, own0) };
      },
    );

    // ---- checks: answered once, in order ----
    const extra = chats.filter((c) => fake.messagesTo(c.chatId).length !== paired.get(c.chatId)! + MESSAGES);
    const { rows: turns } = await sql.query<{ external_id: string; contents: string[] }>(
      `SELECT s.external_id, array_agg(t.content ORDER BY t.seq) AS contents
         FROM chat_sessions s JOIN turns t ON t.session_id = s.id
        WHERE s.channel = 'telegram' AND t.role = 'user'
        GROUP BY s.external_id`,
    );
    const expected = Array.from({ length: MESSAGES }, (_, k) => message(k));
    const outOfOrder = turns.filter(
      (t) => JSON.stringify(t.contents.filter((m) => !m.startsWith('/'))) !== JSON.stringify(expected),
    );
    const updatesTaken = await sql.query<{ n: string }>(`SELECT count(*) AS n FROM channel_updates`);

    const tgRate = (CHATS * MESSAGES) / (tg.elapsedMs / 1000);
    const webRate = (CHATS * MESSAGES) / (web.elapsedMs / 1000);
    const tgLat = latencyStats(tg.latencies);
    const webLat = latencyStats(web.latencies);
    const getUpdates = fake.callsOf('getUpdates').length;
    console.log(
      `  Telegram (polling): ${fmt(tgRate)} replies/s; update → sendMessage p50 ${fmt(tgLat.p50)} ms, p99 ` +
        `${fmt(tgLat.p99)} ms, max ${fmt(tgLat.max)} ms (${tgLat.n} replies; ${getUpdates} getUpdates calls in all)`,
    );
    console.log(
      `  POST /api/chat:     ${fmt(webRate)} replies/s; request → reply p50 ${fmt(webLat.p50)} ms, p99 ` +
        `${fmt(webLat.p99)} ms (${webLat.n} replies)`,
    );
    console.log(
      `  CPU per reply: gateway ${fmt(tg.gatewayCpuMsPerReply, 2)} ms over Telegram vs ` +
        `${fmt(web.gatewayCpuMsPerReply, 2)} ms over /api/chat; this process (the clients, and for Telegram ` +
        `the fake Bot API) ${fmt(tg.benchCpuMsPerReply, 2)} vs ${fmt(web.benchCpuMsPerReply, 2)} ms`,
    );
    console.log(
      `  answered once: ${CHATS - extra.length}/${CHATS} chats with exactly ${MESSAGES} replies; in order: ` +
        `${turns.length - outOfOrder.length}/${turns.length} chats; channel_updates rows: ${updatesTaken.rows[0]!.n}`,
    );
    if (extra.length || outOfOrder.length || turns.length !== CHATS) {
      throw new Error(
        `Telegram replies wrong: ${extra.length} chats with a missing or extra reply, ${outOfOrder.length} out of order, ${turns.length} sessions`,
      );
    }
    report.target(
      'Telegram polling replies/s ≥ 50 % of POST /api/chat (same 1,000 turns, same run)',
      `${fmt(tgRate)} vs ${fmt(webRate)} replies/s = ${pct(tgRate / webRate)}`,
      tgRate >= TARGET_RATIO * webRate,
    );
    report.printTargets();
    const file = report.write(RESULTS_FILE, {
      chats: CHATS,
      messagesPerChat: MESSAGES,
      telegram: {
        repliesPerSecond: tgRate,
        latencyMs: tgLat,
        getUpdatesCalls: getUpdates,
        gatewayCpuMsPerReply: tg.gatewayCpuMsPerReply,
        benchCpuMsPerReply: tg.benchCpuMsPerReply,
      },
      web: {
        repliesPerSecond: webRate,
        latencyMs: webLat,
        gatewayCpuMsPerReply: web.gatewayCpuMsPerReply,
        benchCpuMsPerReply: web.benchCpuMsPerReply,
      },
      ratio: tgRate / webRate,
    });
    report.log(`results in ${path.relative(REPO_ROOT, file)}`);
  } finally {
    gateway.child.kill('SIGTERM');
    await new Promise((resolve) =>
      gateway.child.exitCode !== null ? resolve(null) : gateway.child.once('exit', resolve),
    );
    await sql.end();
    await fake.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    const redis = await connectRedis(REDIS_URL);
    if (redis) {
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  }
}

main().catch((err: unknown) => {
  console.error('bench telegram failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
