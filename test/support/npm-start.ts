import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { freePort } from '@pa/http-kit/testing';

// `npm start` (scripts/start.ts) as an operator runs it, on free ports and a throw-away data directory, in a
// process group of its own so that a test can kill it with its apps (kill -9 of the group: a crash, a power cut).

const execFileAsync = promisify(execFile);

export const root = path.resolve(import.meta.dirname, '../..');

/** How many migrations a schema has: a fresh data directory applies every one. */
export function migrationCount(schema: 'platform' | 'gateway'): number {
  return readdirSync(path.join(root, 'prisma', schema, 'migrations'), { withFileTypes: true }).filter((e) =>
    e.isDirectory(),
  ).length;
}

export interface Urls {
  platform: string;
  gateway: string;
}

export interface Started {
  stdout: string;
  stderr: string;
  /** how the run ended: 'stopped' (SIGTERM by the test), 'killed' (SIGKILL by the test), or its exit code */
  ended: string;
}

export async function npmStart(opts: {
  env: Record<string, string>;
  /** runs while both outputs grow; true once the test has what it waits for */
  until: (out: { stdout: string; stderr: string }) => boolean;
  /** runs once `until` holds, while the apps still run */
  during?: (urls: Urls) => Promise<void>;
  /** how to end it once there: SIGTERM (as Ctrl-C would) or SIGKILL of the whole group */
  end?: 'SIGTERM' | 'SIGKILL';
  /** the test's own bound: npm start has none, a test must */
  waitMs: number;
}): Promise<Started> {
  const [platformPort, gatewayPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    detached: true,
    env: {
      ...process.env,
      PLATFORM_PORT: String(platformPort),
      WEB_PORT: String(gatewayPort),
      PLATFORM_DATABASE_URL: '',
      GATEWAY_DATABASE_URL: '',
      REDIS_PREFIX: `test:start:${process.pid}:${platformPort}:`,
      LOG_LEVEL: 'info',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let exit: string | null = null;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = signal ?? String(code);
      resolve();
    }),
  );
  const there = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start did not get there in ${opts.waitMs} ms:\n${stdout}\n${stderr}`)),
      opts.waitMs,
    );
    const check = () => {
      if (opts.until({ stdout, stderr })) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d;
      check();
    });
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      check();
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${String(exit)}):\n${stdout}\n${stderr}`));
    });
  });
  let ended = '';
  try {
    await there;
    await opts.during?.({
      platform: `http://127.0.0.1:${platformPort}`,
      gateway: `http://127.0.0.1:${gatewayPort}`,
    });
  } finally {
    const signal = opts.end ?? 'SIGTERM';
    if (exit === null) {
      if (signal === 'SIGKILL') process.kill(-child.pid!, 'SIGKILL');
      else child.kill('SIGTERM');
      ended = signal === 'SIGKILL' ? 'killed' : 'stopped';
    }
    await exited;
    if (signal === 'SIGKILL') {
      // the apps die with the group; wait until none of its processes is left
      const deadline = Date.now() + 30_000;
      while (spawnSync('pgrep', ['-g', String(child.pid)]).status === 0) {
        if (Date.now() > deadline) break; // the next start would then fail on the data directory, loudly
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
  const mask = (s: string) =>
    s.replaceAll(String(platformPort), 'PLATFORM').replaceAll(String(gatewayPort), 'GATEWAY');
  return { stdout: mask(stdout), stderr: mask(stderr), ended: ended || String(exit) };
}

/**
 * A command of the platform's CLI against a data directory's embedded database (its JSON output). Asynchronous on
 * purpose: a spawnSync would stop this process's event loop for seconds, and a keep-alive socket the server closed
 * meanwhile would be reused by the next fetch ("other side closed").
 */
export async function platformCli(dataDir: string, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--import', 'tsx', 'apps/platform-bridge/src/cli/main.ts', ...args, '--json'],
    { cwd: root, env: { ...process.env, PLATFORM_DATA_DIR: dataDir, PLATFORM_DATABASE_URL: '' } },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}
