// /proc readers shared by both benchmarks' CPU accounting (bench/cpu.ts, bench/gateway/cpu.ts).
import { readFileSync } from 'node:fs';

export const TICK_MS = 10; // USER_HZ is 100 on Linux

/** [comm, state, ppid, ...] of /proc/<pid>/stat, or undefined when the process is gone. */
export function statFields(pid: string): string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name is in parentheses and may contain spaces; fields after it are space-separated
    const close = raw.lastIndexOf(')');
    return [raw.slice(raw.indexOf('(') + 1, close), ...raw.slice(close + 2).split(' ')];
  } catch {
    return undefined;
  }
}

/** utime+stime (and optionally cutime+cstime) of a process in ms; fields: [comm, state, ppid, ...]. */
export function cpuMs(f: string[], withChildren: boolean): number {
  // after comm: state(0) ppid(1) pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(11) stime(12)
  // cutime(13) cstime(14)
  const at = (i: number) => Number(f[1 + i]);
  return (at(11) + at(12) + (withChildren ? at(13) + at(14) : 0)) * TICK_MS;
}

/** CPU ms of this process (the load generator). */
export function ownCpuMs(): number {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000;
}

/** Busy and total CPU time of the whole machine (all cores) from /proc/stat, ms. */
export function machineCpuMs(): { machineBusyMs: number; machineTotalMs: number } {
  const [, ...cpu] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const ticks = cpu.map(Number);
  // user nice system idle iowait irq softirq steal
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { machineBusyMs: (total - idle) * TICK_MS, machineTotalMs: total * TICK_MS };
}
