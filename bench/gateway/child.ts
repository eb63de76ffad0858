// Parent side of server.ts: forks it under `node --import tsx --expose-gc`, waits for its port over IPC, asks
// it for snapshots and CPU profiles, and reads its resident memory from /proc/<pid>/status (VmRSS, sampled
// every 100 ms for the peak, and the kernel's high-water mark VmHWM).
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { procStatusKb, RssSampler, stopChild } from '../lib/child.ts';
import type { CpuProfile, ServerKind, ServerStats, ToChild, ToParent } from './server.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVER_ENTRY = path.join(HERE, 'server.ts');
const REPO_ROOT = path.resolve(HERE, '../..');

export class ServerHandle {
  private nextId = 1;
  private pending = new Map<number, (msg: ToParent) => void>();
  private sampler: RssSampler;
  private exited = false;

  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
    readonly port: number,
    readonly redis: string,
  ) {
    child.on('message', (msg: ToParent) => {
      if (msg.type === 'stats' || msg.type === 'profile') {
        this.pending.get(msg.id)?.(msg);
        this.pending.delete(msg.id);
      }
    });
    child.on('exit', () => (this.exited = true));
    this.sampler = new RssSampler(
      () => this.pid,
      () => this.exited,
    );
  }

  static start(label: string, kind: ServerKind, env: Record<string, string>): Promise<ServerHandle> {
    const child = fork(SERVER_ENTRY, [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', '--expose-gc'],
      env: { ...process.env, NODE_ENV: 'production', BENCH_GW_KIND: kind, ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${label} server did not start in 30 s`));
      }, 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${label} server exited with code ${code} before listening`));
      });
      child.on('message', (msg: ToParent) => {
        if (msg.type === 'listening') {
          clearTimeout(timer);
          child.removeAllListeners('exit');
          resolve(new ServerHandle(label, child, msg.port, msg.redis));
        }
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return !this.exited;
  }

  url(pathAndQuery = ''): string {
    return `http://127.0.0.1:${this.port}${pathAndQuery}`;
  }

  /** The resident set size now (MB). */
  rssMb(): number {
    return procStatusKb(this.pid, 'VmRSS') / 1024;
  }

  /** Peak RSS sampled since the previous call (MB); starts a new window. */
  takePeakRssMb(): number {
    return this.sampler.takePeakMb();
  }

  highWaterMarkMb(): number {
    return procStatusKb(this.pid, 'VmHWM') / 1024;
  }

  private ask(msg: ToChild & { id: number }, timeoutMs = 30_000): Promise<ToParent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.label} server did not answer ${msg.type}`)),
        timeoutMs,
      );
      this.pending.set(msg.id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.child.send(msg);
    });
  }

  async stats(opts: { gc?: boolean } = {}): Promise<ServerStats> {
    const answer = await this.ask({ type: 'stats', id: this.nextId++, gc: opts.gc ?? false });
    if (answer.type !== 'stats') throw new Error('unexpected answer');
    return answer.stats;
  }

  async startProfile(): Promise<void> {
    await this.ask({ type: 'profile-start', id: this.nextId++ });
  }

  async stopProfile(): Promise<CpuProfile> {
    const answer = await this.ask({ type: 'profile-stop', id: this.nextId++ });
    if (answer.type !== 'profile' || !answer.profile) throw new Error(`${this.label}: no CPU profile`);
    return answer.profile;
  }

  async stop(): Promise<void> {
    this.sampler.stop();
    await stopChild(this.child, this.exited);
  }

  /** Last resort when the run fails: ends this child only. */
  kill(): void {
    this.sampler.stop();
    if (!this.exited) this.child.kill('SIGKILL');
  }
}
