import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type RedisServer, startRedisServer } from '@pa/http-kit/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.ts';
import { bearer, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// main.ts as an operator starts it, on a test database: where the rate-limit counters live is said at start,
// and with a reachable REDIS_URL the per-key counters are in Redis (under `bridge:`).

let t: TestBridge;
let server: RedisServer;
beforeAll(async () => {
  t = await startTestBridge();
  server = await startRedisServer();
});
afterAll(async () => {
  await t?.close();
  await server?.stop();
});

type Line = Record<string, unknown> & { msg: string };

/** Starts the bridge, hands `use` its base URL and start-up log lines once it listens, then stops it. */
async function withBridge(
  redisUrl: string | undefined,
  use: (baseUrl: string, lines: Line[]) => Promise<void>,
) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PLATFORM_DATABASE_URL: t.databaseUrl,
    PLATFORM_PORT: '0',
    DEMO: 'false',
    LOG_LEVEL: 'info',
    // a data directory of its own (the generated webhook-secret key goes there), not the repository's .data
    PLATFORM_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pa-bridge-data-')),
  };
  delete env.REDIS_URL;
  if (redisUrl) env.REDIS_URL = redisUrl;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'apps/platform-bridge/src/main.ts')],
    {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines: Line[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  try {
    const listening = await new Promise<Line>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d;
        let nl;
        while ((nl = out.indexOf('\n')) >= 0) {
          const line = JSON.parse(out.slice(0, nl)) as Line;
          out = out.slice(nl + 1);
          lines.push(line);
          if (line.msg.startsWith('platform-bridge listening')) resolve(line);
        }
      });
      void exited.then(() => reject(new Error(`the bridge exited before listening: ${stderr}`)));
    });
    try {
      await use(String(listening.url), lines);
    } catch (err) {
      // what the bridge said and whether it is still running, so that a failure here can be understood
      const state =
        child.exitCode === null ? 'running' : `exited with ${child.exitCode} (${child.signalCode})`;
      throw new Error(
        `${(err as Error).message}\nthe bridge ${state}; stderr: ${stderr.slice(-2000) || '(none)'}\n` +
          `last log lines: ${JSON.stringify(lines.slice(-5))}`,
        { cause: err },
      );
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(env.PLATFORM_DATA_DIR!, { recursive: true, force: true });
  }
}

const started = (lines: Line[]) => lines.find((l) => l.msg.startsWith('platform-bridge listening'))!;

describe('bridge start-up and REDIS_URL', () => {
  it('without REDIS_URL, says the limits are kept in this process', async () => {
    await withBridge(undefined, async (_url, lines) => {
      expect(lines.map((l) => l.msg)).toContain(
        'REDIS_URL is not set: rate limits are kept in this process only',
      );
      expect(started(lines).redis).toBe('not configured');
    });
  });

  it('with an unreachable Redis, warns once that the limits stay in this process', async () => {
    await withBridge('redis://127.0.0.1:1', async (_url, lines) => {
      const warned = lines.filter(
        (l) => l.msg === 'Redis is unreachable: rate limits are kept in this process only',
      );
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ level: 40, redis: 'redis://127.0.0.1:1' });
      expect(started(lines).redis).toBe('unavailable');
    });
  });

  it('with a reachable Redis, counts each key in it', async () => {
    const tenant = await makeTenant(t);
    const probe = new Redis(server.url);
    try {
      await withBridge(server.url, async (url, lines) => {
        expect(started(lines).redis).toBe('connected');
        const res = await fetch(`${url}/api/assistant-bridge/portfolio`, {
          headers: Object.fromEntries([bearer(tenant.key)]),
        });
        expect(res.status).toBe(200);
        expect(await probe.get(`bridge:rl:key:${tenant.keyId}`)).toBe('1');
      });
    } finally {
      probe.disconnect();
    }
  });
});
