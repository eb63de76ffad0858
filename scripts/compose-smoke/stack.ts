import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

// The compose project under test, driven through the compose command line as an operator would (v2 or 1.29).

const run = promisify(execFile);
const BIG = 64 * 1024 * 1024;

export interface ContainerState {
  status: string;
  exitCode: number;
  health: string | null;
  restarts: number;
}

export class Stack {
  constructor(
    private readonly compose: string[],
    readonly project: string,
    readonly root: string,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  private args(args: string[]): string[] {
    return [...this.compose.slice(1), '-p', this.project, '-f', `${this.root}/docker-compose.yml`, ...args];
  }

  /** A compose command whose output is shown (up, down, build). */
  async run(...args: string[]): Promise<void> {
    const child = spawn(this.compose[0]!, this.args(args), {
      cwd: this.root,
      env: this.env,
      stdio: 'inherit',
    });
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? -1)));
    if (code !== 0) throw new Error(`\`${this.compose.join(' ')} ${args.join(' ')}\` exited ${code}`);
  }

  /** A compose command's standard output (exec, logs). */
  async output(...args: string[]): Promise<string> {
    try {
      const { stdout } = await run(this.compose[0]!, this.args(args), {
        cwd: this.root,
        env: this.env,
        maxBuffer: BIG,
      });
      return stdout;
    } catch (err) {
      const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
      throw new Error(`\`compose ${args.join(' ')}\` failed: ${stderr.split('\n').slice(-5).join('\n')}`, {
        cause: err,
      });
    }
  }

  /** `compose exec -T SERVICE …` whose output is one JSON document (the apps' CLIs with --json). */
  async execJson(service: string, ...command: string[]): Promise<Record<string, unknown>> {
    const out = await this.output('exec', '-T', service, ...command);
    try {
      return JSON.parse(out) as Record<string, unknown>;
    } catch {
      throw new Error(`\`${command.join(' ')}\` in ${service} printed no JSON: ${out.slice(0, 500)}`);
    }
  }

  /** The service's container (the last one, exited ones included), by the labels both composes set. */
  async container(service: string): Promise<string> {
    const { stdout } = await run('docker', [
      'ps',
      '-a',
      '-q',
      '--filter',
      `label=com.docker.compose.project=${this.project}`,
      '--filter',
      `label=com.docker.compose.service=${service}`,
    ]);
    const id = stdout.trim().split('\n')[0];
    if (!id) throw new Error(`no container for ${service}`);
    return id;
  }

  async state(service: string): Promise<ContainerState> {
    const { stdout } = await run('docker', [
      'inspect',
      '--format',
      '{{json .State}}\n{{.RestartCount}}',
      await this.container(service),
    ]);
    const [state, restarts] = stdout.trim().split('\n');
    const s = JSON.parse(state!) as { Status: string; ExitCode: number; Health?: { Status: string } };
    return {
      status: s.Status,
      exitCode: s.ExitCode,
      health: s.Health?.Status ?? null,
      restarts: Number(restarts),
    };
  }

  /** Every named service healthy, polled until the deadline; a container that stops or turns unhealthy fails. */
  async waitHealthy(services: string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(services.map(async (s) => [s, await this.state(s)] as const));
      // restart: unless-stopped would hide a crash behind a new start: the first exit fails the test
      const bad = states.find(
        ([, st]) => st.status !== 'running' || st.restarts > 0 || st.health === 'unhealthy',
      );
      if (bad)
        throw new Error(
          `${bad[0]} is ${bad[1].health ?? bad[1].status} (exit ${bad[1].exitCode}, ${bad[1].restarts} restarts)`,
        );
      if (states.every(([, st]) => st.health === 'healthy')) return;
      if (Date.now() > deadline)
        throw new Error(
          `not healthy after ${timeoutMs / 1000} s: ${states.map(([s, st]) => `${s} ${st.health}`).join(', ')}`,
        );
      await sleep(1000);
    }
  }

  /** The service's exited container's exit code, waited for until the deadline. */
  async waitExit(service: string, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const st = await this.state(service);
      if (st.status === 'exited') return st.exitCode;
      if (Date.now() > deadline) throw new Error(`${service} still ${st.status} after ${timeoutMs / 1000} s`);
      await sleep(1000);
    }
  }
}
