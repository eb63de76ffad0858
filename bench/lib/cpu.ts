// Where the machine's CPU goes during a load run, for both benchmarks, from /proc: the server under test, PostgreSQL (the backends and
// autovacuum workers of the benchmark's database, whose process titles name it, plus the server's shared
// processes: postmaster, WAL writer, checkpointer...), redis-server, this process (the load generator) and the
// rest of the machine — including other databases' backends on the same PostgreSQL server, e.g. another test
// suite. A large "other" share means the phase was disturbed and its figures should not be compared.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** [comm, state, ppid, ...] of /proc/<pid>/stat, or undefined when the process is gone. */
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

/** utime+stime of a process in ms; fields: [comm, state, ppid, ...]. */
function cpuMs(f: string[]): number {
  // after comm: state(0) ppid(1) pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(11) stime(12)
  return (Number(f[12]) + Number(f[13])) * TICK_MS;
}

/** CPU ms of this process (the load generator). */
function ownCpuMs(): number {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000;
}

/** Busy and total CPU time of the whole machine (all cores) from /proc/stat, ms. */
function machineCpuMs(): { machineBusyMs: number; machineTotalMs: number } {
  const [, ...cpu] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const ticks = cpu.map(Number);
  // user nice system idle iowait irq softirq steal
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { machineBusyMs: (total - idle) * TICK_MS, machineTotalMs: total * TICK_MS };
}

// More than this share of the machine's CPU used by other processes during a load run marks it as disturbed.
export const DISTURBED_SHARE = 0.15;

export interface CpuSnapshot {
  serverMs: number;
  /** per process: a backend that exits between two snapshots (an idle pool connection closing) must not count */
  postgresMs: Map<string, number>;
  redisMs: number;
  loadMs: number;
  machineBusyMs: number;
  machineTotalMs: number;
}

export interface CpuSplit {
  /** CPU ms per unit of work (request or stream) */
  serverMsPerUnit: number;
  postgresMsPerUnit: number;
  redisMsPerUnit: number;
  loadMsPerUnit: number;
  /** shares of the machine's CPU capacity (all cores) during the phase */
  serverShare: number;
  postgresShare: number;
  redisShare: number;
  loadShare: number;
  otherShare: number;
  idleShare: number;
}

function title(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

// A backend's title is `postgres: <cluster>: <user> <database> <client> <state>`; an autovacuum worker's
// `postgres: <cluster>: autovacuum worker <database>`; the shared processes name no database.
const SHARED =
  /: (checkpointer|background writer|walwriter|autovacuum launcher|logical replication launcher|archiver|stats collector)/;

/** `database`: the benchmark's database; PostgreSQL processes working for others count as "other". */
export function snapshot(serverPid: number, database: string): CpuSnapshot {
  const postgresMs = new Map<string, number>();
  let redisMs = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const f = statFields(pid);
    if (!f) continue;
    if (f[0] === 'postgres') {
      const parent = f[2] ? statFields(f[2]) : undefined;
      const t = title(pid);
      // the postmaster itself (its reaped children, cutime, are other databases' short-lived backends too)
      if (parent?.[0] !== 'postgres' || SHARED.test(t) || t.split(/\s+/).includes(database))
        postgresMs.set(pid, cpuMs(f));
    } else if (f[0] === 'redis-server') {
      redisMs += cpuMs(f);
    }
  }
  const server = statFields(String(serverPid));
  const loadMs = ownCpuMs();
  const machine = machineCpuMs();
  return {
    serverMs: server ? cpuMs(server) : NaN,
    postgresMs,
    redisMs,
    loadMs,
    ...machine,
  };
}

export function split(a: CpuSnapshot, b: CpuSnapshot, units: number): CpuSplit {
  const d = (k: Exclude<keyof CpuSnapshot, 'postgresMs'>) => b[k] - a[k];
  // processes started meanwhile count in full; those gone meanwhile are lost (not negative)
  let postgres = 0;
  for (const [pid, ms] of b.postgresMs) postgres += ms - (a.postgresMs.get(pid) ?? 0);
  const total = d('machineTotalMs') || 1;
  const n = Math.max(1, units);
  const other = d('machineBusyMs') - d('serverMs') - postgres - d('redisMs') - d('loadMs');
  return {
    serverMsPerUnit: d('serverMs') / n,
    postgresMsPerUnit: postgres / n,
    redisMsPerUnit: d('redisMs') / n,
    loadMsPerUnit: d('loadMs') / n,
    serverShare: d('serverMs') / total,
    postgresShare: postgres / total,
    redisShare: d('redisMs') / total,
    loadShare: d('loadMs') / total,
    otherShare: Math.max(0, other) / total,
    idleShare: Math.max(0, total - d('machineBusyMs')) / total,
  };
}
