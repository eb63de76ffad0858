// Where the machine's CPU goes during a load run, from /proc: the server under test, PostgreSQL (every
// `postgres` process plus what the postmaster has reaped from exited backends and parallel workers), this
// process (autocannon), and the rest of the machine (anything else running — a sign the run was disturbed).
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface CpuSnapshot {
  serverMs: number;
  postgresMs: number;
  benchMs: number;
  machineBusyMs: number;
  machineTotalMs: number;
}

export interface CpuSplit {
  /** CPU ms per request */
  serverMsPerRequest: number;
  postgresMsPerRequest: number;
  loadGeneratorMsPerRequest: number;
  /** share of the machine's CPU capacity used by each during the run */
  serverShare: number;
  postgresShare: number;
  loadGeneratorShare: number;
  otherShare: number;
  idleShare: number;
}

function statFields(pid: string): string[] | undefined {
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
function cpuMs(f: string[], withChildren: boolean): number {
  // after comm: state(0) ppid(1) pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(11) stime(12)
  // cutime(13) cstime(14)
  const at = (i: number) => Number(f[1 + i]);
  return (at(11) + at(12) + (withChildren ? at(13) + at(14) : 0)) * TICK_MS;
}

export function snapshot(serverPid: number): CpuSnapshot {
  let postgresMs = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const f = statFields(pid);
    if (!f || f[0] !== 'postgres') continue;
    const ppid = f[2];
    // the postmaster (parent is not postgres) also counts the CPU of the children it has reaped
    const parent = ppid ? statFields(ppid) : undefined;
    postgresMs += cpuMs(f, parent?.[0] !== 'postgres');
  }
  const server = statFields(String(serverPid));
  const own = process.cpuUsage();
  const [, ...cpu] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const ticks = cpu.map(Number);
  // user nice system idle iowait irq softirq steal
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return {
    serverMs: server ? cpuMs(server, false) : NaN,
    postgresMs,
    benchMs: (own.user + own.system) / 1000,
    machineBusyMs: (total - idle) * TICK_MS,
    machineTotalMs: total * TICK_MS,
  };
}

export function split(a: CpuSnapshot, b: CpuSnapshot, requests: number): CpuSplit {
  const d = (k: keyof CpuSnapshot) => b[k] - a[k];
  const total = d('machineTotalMs') || 1;
  const n = Math.max(1, requests);
  const other = d('machineBusyMs') - d('serverMs') - d('postgresMs') - d('benchMs');
  return {
    serverMsPerRequest: d('serverMs') / n,
    postgresMsPerRequest: d('postgresMs') / n,
    loadGeneratorMsPerRequest: d('benchMs') / n,
    serverShare: d('serverMs') / total,
    postgresShare: d('postgresMs') / total,
    loadGeneratorShare: d('benchMs') / total,
    otherShare: Math.max(0, other) / total,
    idleShare: (total - d('machineBusyMs')) / total,
  };
}
