// Parent side of bench/bridge/server.ts: forks it under `node --import tsx`, waits for its port over IPC, asks it
// for CPU/event-loop snapshots, and samples its resident memory from /proc (VmRSS every 100 ms, plus the
// kernel's own high-water mark VmHWM, which catches peaks between samples).
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { procStatusKb, RssSampler, stopChild } from '../lib/child.ts';
import type { ServerKind, ServerStats, ToChild, ToParent } from './server.ts';

const SERVER_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.ts');
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export class ServerHandle {
  private nextId = 1;
  private pending = new Map<number, (s: ServerStats) => void>();
  private sampler: RssSampler;
  private exited = false;

  private constructor(
    readonly kind: ServerKind,
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.on('message', (msg: ToParent) => {
      if (msg.type === 'stats') {
        this.pending.get(msg.id)?.(msg.stats);
        this.pending.delete(msg.id);
      }
    });
    child.on('exit', () => (this.exited = true));
    this.sampler = new RssSampler(
      () => this.pid,
      () => this.exited,
    );
  }

  static start(
    kind: ServerKind,
    databaseUrl: string,
    poolMax: number,
    extraEnv: Record<string, string> = {},
    extraExecArgv: string[] = [],
  ): Promise<ServerHandle> {
    const child = fork(SERVER_ENTRY, [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', ...extraExecArgv],
      env: {
        ...process.env,
        NODE_ENV: 'production',
        BENCH_SERVER: kind,
        BENCH_DATABASE_URL: databaseUrl,
        BENCH_POOL_MAX: String(poolMax),
        ...extraEnv,
      },
      // stdout (the bridge's request log) goes to /dev/null; errors still show.
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${kind} server did not start in 30 s`)), 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${kind} server exited with code ${code} before listening`));
      });
      child.on('message', (msg: ToParent) => {
        if (msg.type === 'listening') {
          clearTimeout(timer);
          child.removeAllListeners('exit');
          resolve(new ServerHandle(kind, child, msg.port));
        }
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  url(pathAndQuery: string): string {
    return `http://127.0.0.1:${this.port}${pathAndQuery}`;
  }

  /** Peak RSS sampled since the previous call (MB), and resets the window. */
  takePeakRssMb(): number {
    return this.sampler.takePeakMb();
  }

  /** The kernel's high-water mark of the process's RSS over its whole life (MB). */
  highWaterMarkMb(): number {
    return procStatusKb(this.pid, 'VmHWM') / 1024;
  }

  stats(): Promise<ServerStats> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.kind} server did not answer stats`)), 10_000);
      this.pending.set(id, (s) => {
        clearTimeout(timer);
        resolve(s);
      });
      this.child.send({ type: 'stats', id } satisfies ToChild);
    });
  }

  async stop(): Promise<void> {
    this.sampler.stop();
    await stopChild(this.child, this.exited);
  }

  /** Last resort when the run fails: end this child only. */
  kill(): void {
    this.sampler.stop();
    if (!this.exited) this.child.kill('SIGKILL');
  }
}
