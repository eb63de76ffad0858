// The cost of the gateway's token check (`tsx bench/gateway/access.ts`, part of `npm run bench`): POST /api/chat
// with the `local` provider against two gateways on one database, one with GATEWAY_AUTH=none and one with
// GATEWAY_AUTH=token called with a paired device's token (`Authorization: Bearer gwt_…`). The runs alternate
// (none, token, none, token, ...) so that a disturbance of the machine falls on both; each side's figure is the
// median of its runs. Target: the token side serves ≥ 95 % of the requests per second of the open side.
//
// Servers are child processes (server.ts), the database a fresh PostgreSQL database (dropped at the end), Redis
// keys under a unique prefix (deleted at the end). Environment: BENCH_GW_ACCESS_DURATION (s per run, default 8),
// BENCH_GW_ACCESS_ROUNDS (pairs of runs, default 3), BENCH_GW_ACCESS_CONNECTIONS (default 50), TEST_DATABASE_URL
// and REDIS_URL as for the tests. BENCH_GW_ACCESS_PROFILE=1 adds a CPU profile of each side under the same load and
// prints where the token side spends more per request (by category and by function).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@pa/db-tools/testing';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../../apps/agent-gateway/src/config.ts';
import { connectRedis } from '../../apps/agent-gateway/src/lib/redis.ts';
import { type Listening, ServerHandle } from '../lib/child.ts';
import { type CpuSplit, DISTURBED_SHARE, snapshot, split } from '../lib/cpu.ts';
import { httpRequest, type LoadResult } from '../lib/load.ts';
import { createReport, fmt, pct } from '../lib/report.ts';
import { chatLoad } from './load.ts';
import { type ProfileSummary, summariseProfile } from './profile.ts';
import type { CpuProfile, ServerStats } from './server.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RESULTS_FILE = path.join(REPO_ROOT, 'bench/results/gateway-access-latest.json');
const DURATION_S = Number(process.env.BENCH_GW_ACCESS_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_GW_ACCESS_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_GW_ACCESS_CONNECTIONS ?? 50);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TARGET_RATIO = 0.95;
const PROFILE = process.env.BENCH_GW_ACCESS_PROFILE === '1';
const ADMIN_TOKEN = randomBytes(24).toString('hex');
const RUN_ID = randomBytes(4).toString('hex');
const REDIS_PREFIX = `bench_gw_access:${process.pid}:${RUN_ID}:`;

const report = createReport('bench gateway access');

const baseConfig = (name: string): Record<string, string> => ({
  REDIS_URL,
  REDIS_PREFIX: `${REDIS_PREFIX}${name}:`,
  LOG_LEVEL: 'silent',
  PROVIDER: 'local',
  CHAT_RATE_LIMIT_PER_MIN: '100000',
  LOCAL_PROVIDER_DELAY_MS: '0',
});

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const database = await createTestDatabase({ prefix: 'bench_gw_access', migrationsDir: MIGRATIONS_DIR });
  const redis = await connectRedis(REDIS_URL);
  const servers: ServerHandle<Listening>[] = [];
  try {
    const start = (label: string, config: Record<string, string>) =>
      ServerHandle.start<Listening>({
        label,
        entry: path.join(REPO_ROOT, 'bench/gateway/server.ts'),
        env: {
          BENCH_GW_KIND: 'gateway',
          BENCH_GW_DATABASE_URL: database.url,
          BENCH_GW_CONFIG: JSON.stringify(config),
        },
      });
    const [open, guarded] = await report.phase('starting the two gateways', async () =>
      Promise.all([
        start('GATEWAY_AUTH=none', { ...baseConfig('none'), GATEWAY_AUTH: 'none' }),
        start('GATEWAY_AUTH=token', {
          ...baseConfig('token'),
          GATEWAY_AUTH: 'token',
          GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        }),
      ]),
    );
    servers.push(open, guarded);
    const openUrl = `http://127.0.0.1:${open.listening.port}`;
    const guardedUrl = `http://127.0.0.1:${guarded.listening.port}`;

    const token = await report.phase('pairing a device', async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), 'bench') RETURNING id`,
      );
      // Like for like: the device's workspace holds the gateway's only worker, so that a chat without a token (the
      // default worker) and a chat with the device's token (its workspace's worker) are answered by the same
      // worker, looked up the same way. With no worker there, the device's chat would look one up in vain.
      await client.query(
        `INSERT INTO workers (id, workspace_id, name, skill_packs) VALUES (gen_random_uuid(), $1, 'Bench', '{}')`,
        [rows[0]!.id],
      );
      await client.end();
      const code = await httpRequest(`${guardedUrl}/api/pairing/codes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify({ workspaceId: rows[0]!.id }),
      });
      if (code.status !== 201) throw new Error(`pairing code: ${code.status} ${code.body}`);
      const redeemed = await httpRequest(`${guardedUrl}/api/pairing/redeem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: (JSON.parse(code.body) as { code: string }).code, deviceName: 'bench' }),
      });
      if (redeemed.status !== 201) throw new Error(`redeem: ${redeemed.status} ${redeemed.body}`);
      return (JSON.parse(redeemed.body) as { token: string }).token;
    });
    const bearer = { authorization: `Bearer ${token}` };

    // the token is really checked: without it the guarded gateway refuses
    const refused = await httpRequest(`${guardedUrl}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'help' }),
    });
    if (refused.status !== 401)
      throw new Error(`the token gateway answered ${refused.status} without a token`);

    const run = (url: string, headers: Record<string, string>, durationS: number, prefix: string) =>
      chatLoad({
        baseUrl: url,
        connections: CONNECTIONS,
        durationS,
        message: 'help',
        sessions: 500,
        sessionPrefix: prefix,
        headers,
      });
    await report.phase('warming up both (2 s each)', async () => {
      await run(openUrl, {}, 2, 'warm-none-');
      await run(guardedUrl, bearer, 2, 'warm-token-');
    });

    const dbName = new URL(database.url).pathname.slice(1);
    type Measured = LoadResult & { cpu: CpuSplit };
    const none: Measured[] = [];
    const tokens: Measured[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Alternating which side goes first within a round spreads any drift over both.
      const order = i % 2 === 0 ? (['none', 'token'] as const) : (['token', 'none'] as const);
      for (const side of order) {
        if (redis) {
          const keys = await redis.keys(`${REDIS_PREFIX}*rl:*`);
          if (keys.length) await redis.del(...keys);
        }
        const server = side === 'none' ? open : guarded;
        const before = snapshot(server.pid, dbName);
        const load = await report.phase(
          `round ${i + 1}: ${side} (${DURATION_S} s, ${CONNECTIONS} connections)`,
          () =>
            side === 'none'
              ? run(openUrl, {}, DURATION_S, `none-${i}-`)
              : run(guardedUrl, bearer, DURATION_S, `token-${i}-`),
        );
        const r: Measured = { ...load, cpu: split(before, snapshot(server.pid, dbName), load.requests) };
        if (r.non2xx || r.errors || r.timeouts)
          throw new Error(`${side}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
        report.log(
          `  ${fmt(r.rps)} req/s, p50 ${fmt(r.latencyMs.p50)} ms, p99 ${fmt(r.latencyMs.p99)} ms; CPU per request: ` +
            `server ${fmt(r.cpu.serverMsPerUnit, 2)} ms, PostgreSQL ${fmt(r.cpu.postgresMsPerUnit, 2)} ms, Redis ` +
            `${fmt(r.cpu.redisMsPerUnit, 2)} ms; other processes ${pct(r.cpu.otherShare)} of the machine` +
            (r.cpu.otherShare > DISTURBED_SHARE ? '  ** DISTURBED **' : ''),
        );
        (side === 'none' ? none : tokens).push(r);
      }
    }

    const noneRps = median(none.map((r) => r.rps));
    const tokenRps = median(tokens.map((r) => r.rps));
    const ratio = tokenRps / noneRps;
    const cpuOf = (xs: Measured[]) =>
      median(xs.map((r) => r.cpu.serverMsPerUnit + r.cpu.postgresMsPerUnit + r.cpu.redisMsPerUnit));
    const cpuNone = cpuOf(none);
    const cpuToken = cpuOf(tokens);
    console.log('');
    // CPU per request is steadier than req/s on a shared machine: printed beside the verdict to read it by.
    report.log(
      `CPU per request (server + PostgreSQL + Redis, medians): token ${fmt(cpuToken, 2)} ms vs none ${fmt(cpuNone, 2)} ms (${pct(cpuNone / cpuToken)} of the requests per CPU second)`,
    );
    report.target(
      `POST /api/chat with a device token ≥ ${pct(TARGET_RATIO)} of the req/s with GATEWAY_AUTH=none`,
      `${fmt(tokenRps)} vs ${fmt(noneRps)} req/s (medians of ${ROUNDS} runs) = ${pct(ratio)}; p50 ${fmt(
        median(tokens.map((r) => r.latencyMs.p50)),
      )} vs ${fmt(median(none.map((r) => r.latencyMs.p50)))} ms`,
      ratio >= TARGET_RATIO,
    );
    report.printTargets();
    if (PROFILE) {
      const profileOf = async (
        server: ServerHandle<Listening>,
        url: string,
        headers: Record<string, string>,
      ) => {
        const load = run(url, headers, 7, `profile-${server.pid}-`);
        await new Promise((r) => setTimeout(r, 1000));
        const before = (await server.stats()) as ServerStats;
        await server.ask({ type: 'profile-start' });
        await new Promise((r) => setTimeout(r, 5000));
        const { profile } = await server.ask<{ profile: CpuProfile | null }>({ type: 'profile-stop' });
        const after = (await server.stats()) as ServerStats;
        await load;
        if (!profile) throw new Error('no CPU profile');
        const requests = after.requests - before.requests;
        const statements = new Map<string, number>();
        for (const [text, n] of Object.entries(after.statements))
          statements.set(text, (n - (before.statements[text] ?? 0)) / Math.max(1, requests));
        return { summary: summariseProfile(profile, 400), requests, statements };
      };
      const a = await report.phase('profile: none', () => profileOf(open, openUrl, {}));
      const b = await report.phase('profile: token', () => profileOf(guarded, guardedUrl, bearer));
      printProfileDifference(a, b);
      console.log('    SQL statements per request that differ (none → token):');
      for (const text of new Set([...a.statements.keys(), ...b.statements.keys()])) {
        const x = a.statements.get(text) ?? 0;
        const y = b.statements.get(text) ?? 0;
        if (Math.abs(x - y) > 0.005) console.log(`      ${fmt(x, 3)} → ${fmt(y, 3)}  ${text.slice(0, 160)}`);
      }
    }
    const file = report.write(RESULTS_FILE, {
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      rounds: ROUNDS,
      none,
      token: tokens,
      none_rps_median: noneRps,
      token_rps_median: tokenRps,
      ratio,
      cpu_ms_per_request: { none: cpuNone, token: cpuToken },
    });
    report.log(`results written to ${path.relative(REPO_ROOT, file)}`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    if (redis) {
      const keys = await redis.keys(`${REDIS_PREFIX}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
    await database.drop();
  }
}

/** Where the token side spends more CPU per request than the open side (µs per request). */
function printProfileDifference(
  none: { summary: ProfileSummary; requests: number },
  token: { summary: ProfileSummary; requests: number },
): void {
  const perRequest = (ms: number, requests: number) => (ms * 1000) / Math.max(1, requests);
  report.log(
    `CPU per request in the profiles: token ${fmt(perRequest(token.summary.busyMs, token.requests))} µs vs none ${fmt(perRequest(none.summary.busyMs, none.requests))} µs`,
  );
  const diff = <T extends { ms: number }>(a: T[], b: T[], key: (x: T) => string) => {
    const base = new Map(a.map((x) => [key(x), perRequest(x.ms, none.requests)]));
    const rows = new Map<string, number>();
    for (const x of b) rows.set(key(x), perRequest(x.ms, token.requests) - (base.get(key(x)) ?? 0));
    for (const [k, v] of base) if (!rows.has(k)) rows.set(k, -v);
    return [...rows].sort((x, y) => y[1] - x[1]);
  };
  console.log('    by category (µs per request, token minus none):');
  for (const [k, v] of diff(none.summary.byCategory, token.summary.byCategory, (c) => c.category).slice(0, 8))
    console.log(`      ${fmt(v, 1).padStart(7)}  ${k}`);
  console.log('    by function (µs per request, token minus none):');
  for (const [k, v] of diff(
    none.summary.topFunctions,
    token.summary.topFunctions,
    (f) => `${f.fn}  ${f.where}`,
  ).slice(0, 20))
    console.log(`      ${fmt(v, 1).padStart(7)}  ${k}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error('bench gateway access failed:', err);
    process.exit(1);
  },
);
