import { spawn } from 'node:child_process';
import { until } from '@pa/http-kit/testing';
import { REPO_ROOT } from '../../src/config.ts';
import type { TestGateway } from './test-app.ts';

/**
 * How long a fresh `node --import tsx worker.ts` may take to be up on an idle machine (scaled by the load, see
 * @pa/http-kit/testing's time-scale): tsx compiles the whole gateway first, which on a loaded machine alone takes
 * tens of seconds, so a test waits for the process to be at work before it counts on an answer.
 */
export const PROCESS_START_MS = 60_000;

/**
 * `apps/agent-gateway/src/worker.ts`, the worker process on its own, as a child on the test gateway's database,
 * secret key and Redis prefix, with workers enabled and `env` on top. Its stdout and stderr are kept in `output()`.
 */
export function spawnWorkerProcess(g: TestGateway, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/agent-gateway/src/worker.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      GATEWAY_DATABASE_URL: g.databaseUrl,
      GATEWAY_SECRET_KEY: g.deps.secretKey.toString('hex'),
      REDIS_PREFIX: g.config.REDIS_PREFIX,
      AI_WORKERS_ENABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    /** the exit code (null when killed by a signal) */
    exited,
    output: () => output,
    /**
     * Resolves once `fn` is truthy (the process at work: polling a bot, say), within PROCESS_START_MS; fails at
     * once, with what the process wrote, if it exits first.
     */
    started: async (what: string, fn: () => boolean | Promise<boolean>) => {
      const ended = () => child.exitCode !== null || child.signalCode !== null;
      await until(what, async () => ended() || (await fn()), PROCESS_START_MS).catch((err: Error) => {
        throw new Error(`${err.message}; the worker process said: ${output}`);
      });
      if (ended()) {
        throw new Error(
          `the worker process ended (${child.exitCode ?? child.signalCode}) before ${what}: ${output}`,
        );
      }
    },
    /** SIGKILL unless it has ended */
    killIfRunning: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
