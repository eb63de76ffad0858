// The parent side of a server under test (bench/bridge/server.ts, bench/gateway/server.ts): forks its entry file
// under `node --import tsx`, waits for its port over IPC, asks it questions (stats snapshots, CPU profiles...)
// and reads its resident memory from /proc/<pid>/status (VmRSS, now or sampled every 100 ms for the peak).
//
// The protocol: the child sends `{ type: 'listening', port, ...extra }` once it listens; every question the
// parent sends gets an `id`, and the child's message carrying that id is its answer; `{ type: 'shutdown' }` asks
// it to finish what is in flight and exit.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function procStatusKb(pid: number, field: 'VmRSS'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** What a server under test sends once it listens. */
export interface Listening {
  type: 'listening';
  port: number;
}

/** A question to the child: anything with a `type`; the handle adds the `id` its answer will carry. */
export type Question = { type: string } & Record<string, unknown>;

export interface StartOptions {
  /** for messages, e.g. "gateway (idle streams)" */
  label: string;
  /** the server's entry file (absolute) */
  entry: string;
  /** added to this process's environment (NODE_ENV is `production` unless given) */
  env?: Record<string, string>;
  /** node flags after `--import tsx` */
  execArgv?: string[];
}

/** `L`: the child's `listening` message; `S`: the stats it answers with. */
export class ServerHandle<L extends Listening = Listening, S = unknown> {
  private nextId = 1;
  private readonly pending = new Map<number, (msg: unknown) => void>();
  private readonly sampler: NodeJS.Timeout;
  private peakKb = 0;
  private exited = false;

  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
    /** the child's `listening` message, with whatever it added */
    readonly listening: L,
  ) {
    child.on('message', (msg: { id?: unknown }) => {
      if (typeof msg.id !== 'number') return;
      this.pending.get(msg.id)?.(msg);
      this.pending.delete(msg.id);
    });
    child.on('exit', () => (this.exited = true));
    this.sampler = setInterval(() => this.sampleRss(), 100);
    this.sampler.unref();
  }

  static start<L extends Listening = Listening, S = unknown>(
    opts: StartOptions,
  ): Promise<ServerHandle<L, S>> {
    const child = fork(opts.entry, [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', ...(opts.execArgv ?? [])],
      env: { ...process.env, NODE_ENV: 'production', ...opts.env },
      // stdout (request logs) goes to /dev/null; errors still show.
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${opts.label} server did not start in 30 s`));
      }, 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${opts.label} server exited with code ${code} before listening`));
      });
      child.on('message', (msg: { type?: unknown }) => {
        if (msg.type === 'listening') {
          clearTimeout(timer);
          child.removeAllListeners('exit');
          resolve(new ServerHandle<L, S>(opts.label, child, msg as L));
        }
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get port(): number {
    return this.listening.port;
  }

  get alive(): boolean {
    return !this.exited;
  }

  url(pathAndQuery = ''): string {
    return `http://127.0.0.1:${this.port}${pathAndQuery}`;
  }

  /** Sends a question and resolves with the child's answer (the message carrying the same id). */
  ask<A>(question: Question, timeoutMs = 30_000): Promise<A> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.label} server did not answer ${question.type}`)),
        timeoutMs,
      );
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer as A);
      });
      this.child.send({ ...question, id });
    });
  }

  /** The child's `{ type: 'stats', id, stats }` answer to `{ type: 'stats', ...extra }`. */
  async stats(extra: Record<string, unknown> = {}): Promise<S> {
    return (await this.ask<{ stats: S }>({ ...extra, type: 'stats' })).stats;
  }

  /** The resident set size now (MB). */
  rssMb(): number {
    return procStatusKb(this.pid, 'VmRSS') / 1024;
  }

  private sampleRss(): void {
    if (this.exited) return;
    try {
      this.peakKb = Math.max(this.peakKb, procStatusKb(this.pid, 'VmRSS'));
    } catch {
      // the process is going away
    }
  }

  /** Peak RSS sampled since the previous call (MB); starts a new window. */
  takePeakRssMb(): number {
    this.sampleRss();
    const peak = this.peakKb;
    this.peakKb = 0;
    return peak / 1024;
  }

  /** Asks the child to shut down and waits for it to exit, killing it after 10 s. */
  async stop(): Promise<void> {
    clearInterval(this.sampler);
    if (this.exited) return;
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ type: 'shutdown' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await done;
    clearTimeout(timer);
  }

  /** Last resort when the run fails: ends this child only. */
  kill(): void {
    clearInterval(this.sampler);
    if (!this.exited) this.child.kill('SIGKILL');
  }
}
