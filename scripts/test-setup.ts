// `npm test`'s first step (the "pretest" script): makes this machine able to run the suite. It checks for what
// the tests use — PostgreSQL at TEST_DATABASE_URL, Redis at REDIS_URL, Chromium (CHROMIUM_PATH) and Dovecot — and,
// as root on Debian, installs what is missing with apt and starts PostgreSQL and Redis when they are down.
// Elsewhere it prints the exact commands and fails. When everything is there it only probes (well under 2 s).
// The decisions are in test-setup-plan.ts; this file does the probing and runs the commands.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { isAuthRefused, isUnreachable } from '../packages/db-tools/src/migrations/unreachable.ts';
import {
  advice,
  clusterFor,
  type Command,
  HBA_MARK,
  installCommands,
  isLocal,
  missingPackages,
  parseClusters,
  type Probe,
  reloadPostgres,
  shell,
  startCommands,
  trustLoopback,
} from './test-setup-plan.ts';
import { ensureConformanceTools } from './mcp-conformance/tools.ts';

// the same defaults as the tests (packages/db-tools/src/testing.ts, the apps' test support, http-kit's browser)
const PG_URL = process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const log = (msg: string) => console.log(`test set-up: ${msg}`);

function which(bin: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(path.join(dir, bin)));
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

async function probePostgres(): Promise<Probe['postgres']['state']> {
  const u = new URL(PG_URL);
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 5_000 });
  client.on('error', () => {}); // a dropped connection after the probe is not this step's concern
  try {
    await client.connect();
    await client.query('SELECT 1');
    return 'ok';
  } catch (err) {
    if (isUnreachable(err)) return 'down';
    if (isAuthRefused(err)) return 'auth-refused';
    console.error(err);
    return 'failed';
  } finally {
    await client.end().catch(() => {});
  }
}

/** Any answer to PING (even NOAUTH) means a Redis server is listening. */
function probeRedis(): Promise<boolean> {
  const u = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(3_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => done(/^[+-]/.test(d.toString())));
  });
}

function postgresInstalled(): boolean {
  const lib = '/usr/lib/postgresql';
  return existsSync(lib) && readdirSync(lib).some((v) => existsSync(path.join(lib, v, 'bin', 'postgres')));
}

function clusters() {
  if (!which('pg_lsclusters')) return [];
  return parseClusters(spawnSync('pg_lsclusters', ['-h'], { encoding: 'utf8' }).stdout ?? '');
}

async function probe(): Promise<Probe> {
  const [state, redisUp] = await Promise.all([probePostgres(), probeRedis()]);
  return {
    canFix: process.getuid?.() === 0 && existsSync('/etc/debian_version') && which('apt-get'),
    postgres: {
      url: redact(PG_URL),
      state,
      installed: state === 'ok' || postgresInstalled(),
      clusters: state === 'down' ? clusters() : [],
    },
    redis: { url: REDIS_URL, up: redisUp, installed: which('redis-server') },
    chromium: {
      path: CHROMIUM,
      present: existsSync(CHROMIUM),
      custom: process.env.CHROMIUM_PATH !== undefined,
    },
    dovecot: existsSync('/usr/sbin/dovecot') || which('dovecot'),
  };
}

const ready = (p: Probe) => p.postgres.state === 'ok' && p.redis.up && p.chromium.present && p.dovecot;

function run(cmd: Command): void {
  log(shell(cmd));
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const result = spawnSync(cmd[0]!, cmd.slice(1), { stdio: 'inherit', env });
  if (result.status !== 0)
    throw new Error(`${shell(cmd)} failed (${result.error?.message ?? `exit ${result.status}`})`);
}

/**
 * A PostgreSQL this step has just installed: Debian's cluster asks for a password on 127.0.0.1 (scram-sha-256),
 * which the default test URL does not carry. Only here, on a server nobody else has configured, is the test
 * user let in without one, on 127.0.0.1 only, and the change is announced.
 */
function trustFreshCluster(): void {
  const cluster = clusterFor(PG_URL, clusters());
  if (!cluster) return;
  const file = `/etc/postgresql/${cluster.version}/${cluster.name}/pg_hba.conf`;
  const before = readFileSync(file, 'utf8');
  const user = decodeURIComponent(new URL(PG_URL).username) || 'postgres';
  const after = trustLoopback(before, user);
  if (after === before) return;
  writeFileSync(file, after);
  console.warn(
    `\n*** test set-up: PostgreSQL ${cluster.version} was installed just now for the tests; ${file} now lets` +
      `\n*** "${user}" connect from 127.0.0.1 WITHOUT A PASSWORD (a line marked "${HBA_MARK}").` +
      `\n*** Remove that line if this machine's PostgreSQL is used for anything else.\n`,
  );
  if (cluster.online) run(reloadPostgres(cluster));
}

/** Polls until the started services answer; a loaded machine may take a while to start PostgreSQL. */
async function waitForServices(deadlineMs: number): Promise<Probe> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const p = await probe();
    const waiting =
      (p.postgres.state === 'down' && p.postgres.installed && isLocal(PG_URL)) ||
      (!p.redis.up && p.redis.installed && isLocal(REDIS_URL));
    if (!waiting || Date.now() > end) return p;
    await sleep(250);
  }
}

async function main(): Promise<number> {
  // The MCP conformance suite and inspector CLI (test/mcp-conformance.test.ts) live in their own package with their
  // own Node 24, installed from its lockfile when missing; a no-op (a few small reads) once it is there.
  try {
    ensureConformanceTools(log);
  } catch (err) {
    console.error(`test set-up: ${(err as Error).message}`);
    return 1;
  }
  let p = await probe();
  if (ready(p)) {
    log('PostgreSQL, Redis, Chromium and Dovecot are there');
    return 0;
  }
  if (!p.canFix) {
    console.error(['test set-up: the tests cannot run on this machine yet.', ...advice(p)].join('\n'));
    return 1;
  }
  const pkgs = missingPackages(p);
  if (pkgs.length > 0) {
    log(`installing ${pkgs.join(', ')} with apt`);
    for (const cmd of installCommands(pkgs)) run(cmd);
    if (pkgs.includes('postgresql')) trustFreshCluster();
    p = await probe();
  }
  const starts = startCommands(p);
  for (const cmd of starts) run(cmd);
  if (starts.length > 0) p = await waitForServices(60_000);
  if (ready(p)) {
    log('PostgreSQL, Redis, Chromium and Dovecot are ready');
    return 0;
  }
  console.error(['test set-up: not everything could be set up.', ...advice(p)].join('\n'));
  return 1;
}

process.exitCode = await main();
