// Where the machine's CPU goes during a load run, from /proc: the server under test, PostgreSQL (every
// `postgres` process plus what the postmaster has reaped from exited backends and parallel workers), this
// process (autocannon), and the rest of the machine (anything else running — a sign the run was disturbed).
import { readdirSync } from 'node:fs';
import { cpuMs, machineCpuMs, ownCpuMs, statFields } from '../lib/cpu.ts';

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
  const benchMs = ownCpuMs();
  const machine = machineCpuMs();
  return {
    serverMs: server ? cpuMs(server, false) : NaN,
    postgresMs,
    benchMs,
    ...machine,
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
