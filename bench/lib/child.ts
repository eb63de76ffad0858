// Parent-side helpers shared by both benchmarks' server handles (bench/child.ts, bench/gateway/child.ts):
// resident memory from /proc/<pid>/status, and the orderly stop of a forked server.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** Samples a process's VmRSS every 100 ms for the peak between calls to `takePeakMb`. */
export class RssSampler {
  private readonly timer: NodeJS.Timeout;
  private peakKb = 0;

  constructor(
    private readonly pid: () => number,
    private readonly exited: () => boolean,
  ) {
    this.timer = setInterval(() => this.sample(), 100);
    this.timer.unref();
  }

  sample(): void {
    if (this.exited()) return;
    try {
      this.peakKb = Math.max(this.peakKb, procStatusKb(this.pid(), 'VmRSS'));
    } catch {
      // the process is going away
    }
  }

  /** Peak RSS sampled since the previous call (MB); starts a new window. */
  takePeakMb(): number {
    this.sample();
    const peak = this.peakKb;
    this.peakKb = 0;
    return peak / 1024;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Asks the child to shut down and waits for it to exit, killing it after 10 s. */
export async function stopChild(child: ChildProcess, exited: boolean): Promise<void> {
  if (exited) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send({ type: 'shutdown' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await done;
  clearTimeout(timer);
}
