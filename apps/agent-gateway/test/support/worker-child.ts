import { spawn } from 'node:child_process';
import { REPO_ROOT } from '../../src/config.ts';
import type { TestGateway } from './test-app.ts';

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
    /** SIGKILL unless it has ended */
    killIfRunning: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
