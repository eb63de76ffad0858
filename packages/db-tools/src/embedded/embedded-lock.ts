// Ownership of an embedded (PGlite) data directory. PGlite has no postmaster and no postmaster.pid:
// two processes opening the same directory would both write to it and corrupt it. The owner file is
// that missing lock, and it doubles as the "where is the running app serving it" record for the CLI.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const OWNER_FILE = '.owner.json';

export interface OwnerRecord {
  pid: number;
  hostname: string;
  role: 'app' | 'cli';
  /** `starting` while PGlite opens (a fresh directory takes seconds); `ready` once it is usable. */
  state: 'starting' | 'ready';
  /** Where the owner serves the directory over the PostgreSQL wire protocol, if it does. */
  socket: { host: string; port: number } | null;
  startedAt: string;
  /** The process's start time from /proc (Linux), so a recycled pid is not taken for the owner. */
  procStart?: string | null;
  /** Tells our own file apart from a successor's written by a process with a recycled pid. */
  token: string;
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: OwnerRecord,
  ) {
    const who = owner.role === 'app' ? 'a running app' : 'a CLI';
    const where = owner.socket ? `, serving it on ${owner.socket.host}:${owner.socket.port}` : '';
    const host = owner.hostname === os.hostname() ? '' : ` on host ${owner.hostname}`;
    super(
      `Embedded database ${dataDir} is already open in ${who} (pid ${owner.pid}${host}${where}, since ${owner.startedAt}). ` +
        'An embedded data directory must be opened by one process only. Stop that process first' +
        (owner.role === 'app' ? ', or use the CLI, which connects to the running app.' : '.') +
        ` If no such process exists, delete ${path.join(dataDir, OWNER_FILE)}.`,
    );
    this.name = 'DataDirInUseError';
  }
}

export function ownerFilePath(dataDir: string): string {
  return path.join(dataDir, OWNER_FILE);
}

/** Fields after the command name in /proc/<pid>/stat (state first), or null without procfs. */
function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function procStart(pid: number): string | null {
  return procStat(pid)?.[19] ?? null; // field 22 of stat: start time in clock ticks since boot
}

export function isProcessAlive(pid: number, expectedStart?: string | null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = procStat(pid);
  if (!stat) return true; // no procfs: trust kill(0)
  // A killed child that its parent has not reaped yet still answers kill(0); it holds nothing.
  if (stat[0] === 'Z' || stat[0] === 'X') return false;
  // Same pid, different start time: the owner died and the pid was handed to another process.
  return !expectedStart || stat[19] === expectedStart;
}

/** Alive, or unknowable (another host sharing the directory): either way it must be respected. */
export function ownerIsLive(owner: OwnerRecord): boolean {
  if (owner.hostname !== os.hostname()) return true;
  return isProcessAlive(owner.pid, owner.procStart);
}

function parseOwner(text: string): OwnerRecord | null {
  try {
    const v = JSON.parse(text) as Partial<OwnerRecord>;
    if (typeof v.pid !== 'number' || typeof v.hostname !== 'string' || typeof v.token !== 'string')
      return null;
    return v as OwnerRecord;
  } catch {
    return null;
  }
}

export function readOwner(dataDir: string): OwnerRecord | null {
  try {
    return parseOwner(fs.readFileSync(ownerFilePath(dataDir), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function tempPath(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

export class DirLock {
  #released = false;

  constructor(
    readonly dataDir: string,
    public record: OwnerRecord,
  ) {}

  /** Atomic replace, so a reader never sees a half-written file. */
  update(patch: Partial<Pick<OwnerRecord, 'state' | 'socket'>>): void {
    if (this.#released) throw new Error('lock already released');
    this.record = { ...this.record, ...patch };
    const file = ownerFilePath(this.dataDir);
    const tmp = tempPath(file);
    fs.writeFileSync(tmp, JSON.stringify(this.record, null, 2));
    fs.renameSync(tmp, file);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    const current = readOwner(this.dataDir);
    // Never delete a file that is not ours (e.g. removed by hand and re-taken by another process).
    if (current?.token === this.record.token) fs.rmSync(ownerFilePath(this.dataDir), { force: true });
  }
}

/**
 * Takes the directory, or throws DataDirInUseError naming the live owner. An owner file left by a
 * process that no longer exists (crash, kill -9) is taken over.
 */
export function acquireDirLock(
  dataDir: string,
  init: Pick<OwnerRecord, 'role' | 'state' | 'socket'>,
): DirLock {
  const file = ownerFilePath(dataDir);
  const record: OwnerRecord = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: new Date().toISOString(),
    procStart: procStart(process.pid),
    token: randomBytes(8).toString('hex'),
    ...init,
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    if (createExclusive(file, JSON.stringify(record, null, 2))) return new DirLock(dataDir, record);

    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
      throw err;
    }
    const owner = parseOwner(text);
    if (owner && ownerIsLive(owner)) throw new DataDirInUseError(dataDir, owner);
    if (!owner && isYoung(file)) {
      sleepSync(50); // probably being written right now (the no-hard-link fallback is not atomic)
      continue;
    }
    takeOverStale(file, text);
  }
  throw new Error(
    `Could not take the owner file ${file}: it keeps changing; is something else racing for it?`,
  );
}

const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** Creates `file` with `content` unless it exists. */
function createExclusive(file: string, content: string): boolean {
  // Write the full content first and then link it into place: link() fails if the name exists, so
  // creation is atomic and a reader never sees an empty or partial owner file.
  const tmp = tempPath(file);
  fs.writeFileSync(tmp, content);
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(code)) throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  try {
    fs.writeFileSync(file, content, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function isYoung(file: string): boolean {
  try {
    return Date.now() - fs.statSync(file).mtimeMs < 2_000;
  } catch {
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Two processes may find the same stale file at once. Renaming it away is atomic, and only the one
// that renamed the stale content deletes it; whoever grabbed a fresh successor's file puts it back.
function takeOverStale(file: string, staleText: string): void {
  const aside = tempPath(file);
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const movedText = fs.readFileSync(aside, 'utf8');
  if (movedText !== staleText) {
    // Yet another owner may have appeared meanwhile; then its file wins and the next attempt reports it.
    createExclusive(file, movedText);
  }
  fs.rmSync(aside, { force: true });
}
