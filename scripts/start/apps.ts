import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LogFormat, prettyLogLine } from '../start-summary.ts';
import { StepFailure } from './progress.ts';

// The two apps as child processes, each as in production. One stopping stops the other and `npm start` with it;
// Ctrl-C and SIGTERM are passed on.

export interface AppSpec {
  name: 'platform-bridge' | 'agent-gateway';
  entry: string;
}

export const PLATFORM_APP: AppSpec = { name: 'platform-bridge', entry: 'apps/platform-bridge/src/main.ts' };
export const GATEWAY_APP: AppSpec = { name: 'agent-gateway', entry: 'apps/agent-gateway/src/main.ts' };

export interface RunningApp {
  spec: AppSpec;
  child: ChildProcess;
  /** settles when the process has exited, with how */
  exited: Promise<string>;
}

export function createAppRunner(opts: { root: string; format: LogFormat; colour: boolean }) {
  const running: RunningApp[] = [];
  let stopping = false;
  let onUnexpectedExit: (app: RunningApp, how: string) => void = () => {};

  function stopAll(signal: NodeJS.Signals): Promise<unknown> {
    stopping = true;
    for (const app of running) if (app.child.exitCode === null) app.child.kill(signal);
    return Promise.all(running.map((a) => a.exited));
  }

  function start(spec: AppSpec, env: NodeJS.ProcessEnv): RunningApp {
    const child = spawn(process.execPath, ['--import', 'tsx', spec.entry], {
      cwd: opts.root,
      stdio: opts.format === 'pretty' ? ['inherit', 'pipe', 'inherit'] : 'inherit',
      env,
    });
    if (child.stdout) {
      createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) =>
        process.stdout.write(prettyLogLine(line, opts.colour)),
      );
    }
    const exited = new Promise<string>((resolve) =>
      child.once('exit', (code, signal) => resolve(signal ?? `exit code ${String(code)}`)),
    );
    const app: RunningApp = { spec, child, exited };
    void exited.then((how) => {
      if (!stopping) onUnexpectedExit(app, how);
    });
    running.push(app);
    return app;
  }

  /**
   * Waits for the app's /readyz for as long as it takes (a slow machine only makes the start slower); the app
   * exiting first is a failure that says so.
   */
  async function ready(app: RunningApp, url: string): Promise<void> {
    let exited: string | null = null;
    void app.exited.then((how) => (exited = how));
    for (;;) {
      if (exited !== null) {
        throw new StepFailure(
          `${app.spec.name} up`,
          `${app.spec.name} stopped (${exited}) before it answered at ${url}`,
          'Its log lines above say why (a port in use, a database it cannot reach, a bad setting).',
        );
      }
      if (stopping) throw new StepFailure(`${app.spec.name} up`, 'stopped', '');
      const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await sleep(250);
    }
  }

  return {
    start,
    ready,
    stopAll,
    get stopping() {
      return stopping;
    },
    /** called when an app stops while nothing asked it to */
    onUnexpectedExit(fn: (app: RunningApp, how: string) => void) {
      onUnexpectedExit = fn;
    },
  };
}
