// The embedded database's one-process rule, its socket for the CLI, and that the app's work and a
// socket client's work on the shared PGlite session never end up in each other's transactions.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ArgType, SqlDriverAdapter, SqlQuery } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DataDirInUseError,
  OWNER_FILE,
  type OpenedDatabase,
  openAppDatabase,
  openCliDatabase,
  readOwner,
} from '../src/runtime/index.ts';
import { applyMigrations, type SqlRunner } from '../src/migrations/index.ts';
import { md5Answer } from '../src/embedded/embedded-auth.ts';
import { readSocketPassword, SOCKET_PASSWORD_FILE } from '../src/embedded/index.ts';
// the shared test deadlines' load scaling (@pa/http-kit is a workspace of the same repository)
import { scaled } from '@pa/http-kit/testing';
import { fromDatabase } from '@pa/http-kit';

const TEXT: ArgType = { scalarType: 'string', arity: 'scalar' };
const q = (sql: string, ...args: string[]): SqlQuery => ({ sql, args, argTypes: args.map(() => TEXT) });

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'pa-db-test-'));
}

/** 'pending' if the promise has not settled after `ms`. */
async function stateAfter(p: Promise<unknown>, ms: number): Promise<'pending' | 'fulfilled' | 'rejected'> {
  const timeout = sleep(ms).then(() => 'pending' as const);
  return Promise.race([
    p.then(
      () => 'fulfilled' as const,
      () => 'rejected' as const,
    ),
    timeout,
  ]);
}

function socketClient(db: OpenedDatabase, password = readSocketPassword(db.dataDir!)): pg.Client {
  if (!db.socket) throw new Error('not served');
  return new pg.Client({
    host: db.socket.host,
    port: db.socket.port,
    user: 'postgres',
    password,
    database: 'postgres',
  });
}

async function values(db: OpenedDatabase): Promise<string[]> {
  const rows = await db.sql.query<{ v: string }>('SELECT v FROM t ORDER BY v');
  return rows.map((r) => r.v);
}

/** A migrations folder with one migration, as the apps' migration runner reads it. */
function migrationsDir(): string {
  const dir = path.join(tmpDir(), 'migrations');
  fs.mkdirSync(path.join(dir, '20260101000000_init'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n');
  fs.writeFileSync(
    path.join(dir, '20260101000000_init', 'migration.sql'),
    'CREATE TABLE "Thing" (id serial PRIMARY KEY, name text NOT NULL UNIQUE);\n',
  );
  return dir;
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  if (!child.pid) throw new Error('no pid');
  return child.pid;
}

describe('embedded database (PGlite)', () => {
  // Creating a data directory takes seconds; the tests share one and each reopens it (fast).
  let dir: string;

  beforeAll(async () => {
    dir = path.join(tmpDir(), 'nested', 'platform'); // parents do not exist yet
    const db = await openAppDatabase({ name: 'platform', dataDir: dir });
    await db.sql.exec('CREATE TABLE t (v text PRIMARY KEY)');
    await db.close();
  });

  afterAll(() => {
    fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true });
  });

  async function reset(db: OpenedDatabase) {
    await db.sql.exec('DELETE FROM t');
  }

  it('opens, writes and reads through sql and the Prisma adapter, and records its socket', async () => {
    const db = await openAppDatabase({ name: 'platform', dataDir: dir });
    try {
      expect(db.kind).toBe('embedded');
      expect(db.describe).toMatch(/^embedded PGlite at .*platform \(served on 127\.0\.0\.1:\d+\)$/);
      await reset(db);
      await db.sql.query('INSERT INTO t (v) VALUES ($1)', ['one']);
      expect(await values(db)).toEqual(['one']);

      const owner = readOwner(dir);
      expect(owner).toMatchObject({ pid: process.pid, role: 'app', state: 'ready', socket: db.socket });

      const adapter = await db.adapter.connect();
      expect(await adapter.executeRaw(q('INSERT INTO t (v) VALUES ($1)', 'two'))).toBe(1);
      const rs = await adapter.queryRaw(q('SELECT v FROM t WHERE v = $1', 'two'));
      expect(rs.rows).toEqual([['two']]);
      // Prisma turns this into P2002 only if it arrives as a DriverAdapterError with the mapped kind.
      const dup = await adapter
        .executeRaw(q('INSERT INTO t (v) VALUES ($1)', 'two'))
        .catch((e: unknown) => e);
      expect(dup).toMatchObject({
        name: 'DriverAdapterError',
        cause: { kind: 'UniqueConstraintViolation', originalCode: '23505' },
      });
      // Named by its index when PGlite reports the constraint, else by the key's fields from the detail, as
      // adapter-pg maps it: PGlite was seen (once in a full run under load) to leave the constraint name out.
      // Either is P2002; the apps look only at the kind (isUniqueViolation).
      expect([{ index: 't_pkey' }, { fields: ['v'] }]).toContainEqual(
        (dup as { cause: { constraint: unknown } }).cause.constraint,
      );

      const tx = await adapter.startTransaction();
      await tx.executeRaw(q('INSERT INTO t (v) VALUES ($1)', 'in-tx'));
      await tx.rollback();
      const tx2 = await adapter.startTransaction();
      await tx2.executeRaw(q('INSERT INTO t (v) VALUES ($1)', 'committed'));
      await tx2.commit();
      expect(await values(db)).toEqual(['committed', 'one', 'two']);
    } finally {
      await db.close();
    }
    expect(fs.existsSync(path.join(dir, OWNER_FILE))).toBe(false);
  });

  it('lets the CLI in through the running app, both ways, and refuses a second app', async () => {
    const app = await openAppDatabase({ name: 'platform', dataDir: dir });
    try {
      await reset(app);
      await app.sql.query('INSERT INTO t VALUES ($1)', ['from-app']);

      await expect(openAppDatabase({ name: 'platform', dataDir: dir })).rejects.toThrow(DataDirInUseError);
      await expect(openAppDatabase({ name: 'platform', dataDir: dir })).rejects.toThrow(
        /already open in a running app \(pid \d+, serving it on 127\.0\.0\.1:\d+/,
      );

      const cli = await openCliDatabase({ name: 'platform', dataDir: dir });
      try {
        expect(cli.kind).toBe('embedded-remote');
        expect(cli.describe).toContain(`via the running app (pid ${process.pid})`);
        expect(await values(cli)).toEqual(['from-app']);
        await cli.sql.query('INSERT INTO t VALUES ($1)', ['from-cli']);
        expect(await values(app)).toEqual(['from-app', 'from-cli']);

        // The same Prisma adapter as for a real PostgreSQL, over the one socket connection.
        const adapter = await cli.adapter.connect();
        expect((await adapter.queryRaw(q('SELECT count(*)::int AS n FROM t'))).rows).toEqual([[2]]);
        // adapter-pg sends BEGIN itself; Prisma sends COMMIT through the transaction, then commit().
        const tx = await adapter.startTransaction();
        await tx.executeRaw(q('INSERT INTO t VALUES ($1)', 'cli-prisma-tx'));
        await tx.executeRaw(q('COMMIT'));
        await tx.commit();
        expect(await values(app)).toContain('cli-prisma-tx');
        const dup = await adapter
          .executeRaw(q('INSERT INTO t VALUES ($1)', 'from-app'))
          .catch((e: unknown) => e);
        expect(dup).toMatchObject({
          name: 'DriverAdapterError',
          cause: { kind: 'UniqueConstraintViolation' },
        });
        await adapter.dispose();
      } finally {
        await cli.close();
      }
    } finally {
      await app.close();
    }
  });

  it("does not let a socket client's transaction swallow the app's writes, or the reverse", async () => {
    const app = await openAppDatabase({ name: 'platform', dataDir: dir });
    const client = socketClient(app);
    await client.connect();
    try {
      await reset(app);
      const adapter = await app.adapter.connect();

      // Socket client inside a transaction: the app's autocommit writes wait, then survive the ROLLBACK.
      await client.query('BEGIN');
      await client.query("INSERT INTO t VALUES ('socket-rolled-back')");
      const appWrite = adapter.executeRaw(q('INSERT INTO t VALUES ($1)', 'app-1'));
      const appSql = app.sql.query('INSERT INTO t VALUES ($1)', ['app-2']);
      expect(await stateAfter(appWrite, 200)).toBe('pending');
      await client.query("INSERT INTO t VALUES ('socket-still-alone')");
      await client.query('ROLLBACK');
      await Promise.all([appWrite, appSql]);
      expect(await values(app)).toEqual(['app-1', 'app-2']);

      // App inside a Prisma transaction: the client's write waits, then survives the app's rollback.
      const tx = await adapter.startTransaction();
      await tx.executeRaw(q('INSERT INTO t VALUES ($1)', 'app-rolled-back'));
      const socketWrite = client.query("INSERT INTO t VALUES ('socket-1')");
      expect(await stateAfter(socketWrite, 200)).toBe('pending');
      await tx.executeRaw(q('INSERT INTO t VALUES ($1)', 'app-still-alone'));
      await tx.rollback();
      await socketWrite;
      expect(await values(app)).toEqual(['app-1', 'app-2', 'socket-1']);

      // App BEGIN/COMMIT through `sql` (as the migration runner does) is just as exclusive.
      await app.sql.exec('BEGIN');
      await app.sql.query('INSERT INTO t VALUES ($1)', ['app-3']);
      const socketRead = client.query('SELECT count(*)::int AS n FROM t');
      expect(await stateAfter(socketRead, 200)).toBe('pending');
      await app.sql.exec('COMMIT');
      expect((await socketRead).rows).toEqual([{ n: 4 }]);
    } finally {
      await client.end();
      await app.close();
    }
  });

  it('keeps a client extended-query exchange whole when the app queries in the middle of it', async () => {
    const app = await openAppDatabase({ name: 'platform', dataDir: dir });
    const sock = net.connect(app.socket?.port ?? 0, '127.0.0.1');
    try {
      await new Promise((resolve) => sock.once('connect', resolve));
      let received = Buffer.alloc(0);
      sock.on('data', (d) => {
        received = Buffer.concat([received, d]);
      });
      const msg = (type: string, ...parts: Buffer[]) => {
        const body = Buffer.concat(parts);
        const head = Buffer.alloc(5);
        head.write(type, 0, 'latin1');
        head.writeInt32BE(body.length + 4, 1);
        return Buffer.concat([head, body]);
      };
      const cstr = (s: string) => Buffer.from(`${s}\0`);
      const int16 = (n: number) => Buffer.from([n >> 8, n & 255]);
      const startupBody = Buffer.concat([
        Buffer.from([0, 3, 0, 0]),
        cstr('user'),
        cstr('postgres'),
        cstr(''),
      ]);
      const startup = Buffer.concat([Buffer.alloc(4), startupBody]);
      startup.writeInt32BE(startup.length, 0);
      sock.write(startup);
      // the password, answering the server's MD5 challenge ('R', length 12, code 5, 4-byte salt)
      const deadline = Date.now() + 5_000;
      while (received.length < 13 && Date.now() < deadline) await sleep(10);
      expect(received[0]).toBe(0x52);
      expect(received.readInt32BE(5)).toBe(5);
      const answer = md5Answer('postgres', readSocketPassword(dir), received.subarray(9, 13));
      received = Buffer.alloc(0);
      sock.write(msg('p', cstr(answer)));
      while (!received.includes(Buffer.from([0x5a, 0, 0, 0, 5])) && Date.now() < deadline) await sleep(10);
      received = Buffer.alloc(0);

      // Parse now, Bind/Execute/Sync later: in between, the app runs a statement of its own.
      sock.write(msg('P', cstr(''), cstr("SELECT 'socket-answer' AS v"), int16(0)));
      await sleep(50);
      const appQuery = app.sql.query<{ w: string }>("SELECT 'app-answer' AS w");
      expect(await stateAfter(appQuery, 100)).toBe('pending');
      sock.write(
        Buffer.concat([
          msg('B', cstr(''), cstr(''), int16(0), int16(0), int16(0)),
          msg('E', cstr(''), Buffer.alloc(4)),
          msg('S'),
        ]),
      );
      expect(await appQuery).toEqual([{ w: 'app-answer' }]);
      await sleep(50);
      expect(received.toString('latin1')).toContain('socket-answer');
      expect(received.toString('latin1')).not.toContain('app-answer');
    } finally {
      sock.destroy();
      await app.close();
    }
  });

  it('survives a mixed concurrent load from both sides with exact results', async () => {
    const app = await openAppDatabase({ name: 'platform', dataDir: dir });
    const cli = await openCliDatabase({ name: 'platform', dataDir: dir });
    try {
      await reset(app);
      const appAdapter = await app.adapter.connect();
      const cliAdapter = await cli.adapter.connect();
      const rounds = 25;
      const appSide = async (p: string) => {
        for (let i = 0; i < rounds; i++) {
          await appAdapter.executeRaw(q('INSERT INTO t VALUES ($1)', `${p}-auto-${i}`));
          const tx = await appAdapter.startTransaction();
          await tx.executeRaw(q('INSERT INTO t VALUES ($1)', `${p}-tx-${i}`));
          await tx.executeRaw(q('INSERT INTO t VALUES ($1)', `${p}-tx-${i}-b`));
          if (i % 2 === 0) await tx.commit();
          else await tx.rollback();
        }
      };
      const cliSide = async () => {
        for (let i = 0; i < rounds; i++) {
          await cli.sql.query('INSERT INTO t VALUES ($1)', [`cli-auto-${i}`]);
          await cli.sql.exec('BEGIN');
          await cli.sql.query('INSERT INTO t VALUES ($1)', [`cli-tx-${i}`]);
          await cli.sql.exec(i % 2 === 0 ? 'COMMIT' : 'ROLLBACK');
          const tx = await cliAdapter.startTransaction();
          await tx.executeRaw(q('INSERT INTO t VALUES ($1)', `cli-prisma-${i}`));
          await tx.executeRaw(q(i % 3 === 0 ? 'ROLLBACK' : 'COMMIT'));
          await tx.commit();
        }
      };
      await Promise.all([appSide('app'), cliSide(), appSide('app2')]);
      const got = new Set(await values(app));
      for (let i = 0; i < rounds; i++) {
        for (const p of ['app', 'app2']) {
          expect(got.has(`${p}-auto-${i}`)).toBe(true);
          expect(got.has(`${p}-tx-${i}`)).toBe(i % 2 === 0);
          expect(got.has(`${p}-tx-${i}-b`)).toBe(i % 2 === 0);
        }
        expect(got.has(`cli-auto-${i}`)).toBe(true);
        expect(got.has(`cli-tx-${i}`)).toBe(i % 2 === 0);
        expect(got.has(`cli-prisma-${i}`)).toBe(i % 3 !== 0);
      }
      await cliAdapter.dispose();
    } finally {
      await cli.close();
      await app.close();
    }
  });

  it('serves several socket connections at once without mixing their sessions', async () => {
    const app = await openAppDatabase({ name: 'platform', dataDir: dir });
    const pool = new pg.Pool({
      host: '127.0.0.1',
      port: app.socket?.port,
      user: 'postgres',
      password: readSocketPassword(dir),
      max: 4,
    });
    try {
      await reset(app);
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const c = await pool.connect();
          try {
            await c.query('BEGIN');
            await c.query('INSERT INTO t VALUES ($1)', [`p-${i}`]);
            await c.query(i % 2 ? 'COMMIT' : 'ROLLBACK');
            const r = await c.query<{ v: string }>('SELECT $1::text AS v', [`echo-${i}`]);
            expect(r.rows[0]?.v).toBe(`echo-${i}`);
          } finally {
            c.release();
          }
        }),
      );
      expect((await values(app)).length).toBe(20);
    } finally {
      await pool.end();
      await app.close();
    }
  });

  it('rolls back and lets go of a socket client that disconnects or idles inside a transaction', async () => {
    const app = await openAppDatabase({
      name: 'platform',
      dataDir: dir,
      socketIdleTransactionTimeoutMs: 300,
    });
    try {
      await reset(app);
      const quitter = socketClient(app);
      quitter.on('error', () => {});
      await quitter.connect();
      await quitter.query('BEGIN');
      await quitter.query("INSERT INTO t VALUES ('quitter')");
      const blocked = app.sql.query('SELECT count(*)::int AS n FROM t');
      expect(await stateAfter(blocked, 100)).toBe('pending');
      (quitter as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
      expect(await blocked).toEqual([{ n: 0 }]);

      const idler = socketClient(app);
      idler.on('error', () => {});
      await idler.connect();
      await idler.query('BEGIN');
      await idler.query("INSERT INTO t VALUES ('idler')");
      const started = Date.now();
      expect(await app.sql.query('SELECT count(*)::int AS n FROM t')).toEqual([{ n: 0 }]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      await expect(idler.query('COMMIT')).rejects.toThrow();
      await idler.end().catch(() => {});
    } finally {
      await app.close();
    }
  });

  it('after the app closes, the CLI opens the directory itself and holds it', async () => {
    const app = await openAppDatabase({ name: 'platform', dataDir: dir });
    await reset(app);
    await app.sql.query('INSERT INTO t VALUES ($1)', ['persisted']);
    await app.close();

    const cli = await openCliDatabase({ name: 'platform', dataDir: dir });
    try {
      expect(cli.kind).toBe('embedded');
      expect(cli.socket).toBeUndefined();
      expect(await values(cli)).toEqual(['persisted']);
      expect(readOwner(dir)).toMatchObject({ role: 'cli', socket: null });
      await expect(openAppDatabase({ name: 'platform', dataDir: dir })).rejects.toThrow(
        /already open in a CLI/,
      );
      await expect(openCliDatabase({ name: 'platform', dataDir: dir })).rejects.toThrow(DataDirInUseError);
    } finally {
      await cli.close();
    }
    expect(readOwner(dir)).toBeNull();
  });

  it('is not blocked by an owner file left by a dead process or a recycled pid', async () => {
    const stale = {
      pid: await deadPid(),
      hostname: os.hostname(),
      role: 'app',
      state: 'ready',
      socket: { host: '127.0.0.1', port: 9 },
      startedAt: new Date(0).toISOString(),
      token: 'stale',
    };
    fs.writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(stale));
    const cli = await openCliDatabase({ name: 'platform', dataDir: dir, waitForAppMs: 0 });
    expect(cli.kind).toBe('embedded');
    await cli.close();

    fs.writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(stale));
    const app = await openAppDatabase({ name: 'platform', dataDir: dir });
    expect(readOwner(dir)?.pid).toBe(process.pid);
    await app.close();

    // The pid is alive again, but it is another process now (its start time differs).
    const recycled = { ...stale, pid: process.pid, procStart: '1', socket: null };
    fs.writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(recycled));
    const again = await openAppDatabase({ name: 'platform', dataDir: dir });
    expect(readOwner(dir)?.token).not.toBe('stale');
    await again.close();
  });

  it('recovers after the owning app is killed with SIGKILL', { timeout: scaled(60_000) }, async () => {
    const work = tmpDir();
    const child = path.join(work, 'child.mts'); // .mts: no package.json up there says ESM
    const dbModule = fileURLToPath(new URL('../src/runtime/open-database.ts', import.meta.url));
    fs.writeFileSync(
      child,
      `import { openAppDatabase } from ${JSON.stringify(dbModule)};
const db = await openAppDatabase({ name: 'platform', dataDir: ${JSON.stringify(dir)} });
await db.sql.query('INSERT INTO t VALUES ($1)', ['before-kill']);
console.log('READY');
process.stdin.once('data', async () => {
  await db.sql.exec('BEGIN');
  await db.sql.query('INSERT INTO t VALUES ($1)', ['uncommitted']);
  console.log('IN-TX');
});
`,
    );
    const app = await openAppDatabase({ name: 'platform', dataDir: dir });
    await reset(app);
    await app.close();

    const proc = spawn(process.execPath, ['--import', 'tsx', child], {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => proc.on('exit', resolve));
    const printed = (word: string) =>
      new Promise<void>((resolve, reject) => {
        proc.stdout.on('data', (d: Buffer) => d.toString().includes(word) && resolve());
        proc.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
      });
    try {
      await printed('READY');
      // While it lives, the CLI goes through it.
      const cli = await openCliDatabase({ name: 'platform', dataDir: dir });
      expect(cli.kind).toBe('embedded-remote');
      expect(await values(cli)).toEqual(['before-kill']);
      await cli.close();
      // Killed in the middle of a transaction.
      const inTx = printed('IN-TX');
      proc.stdin.write('go\n');
      await inTx;
    } finally {
      proc.kill('SIGKILL');
      await exited;
    }
    expect(readOwner(dir)?.pid).toBe(proc.pid); // left behind
    const after = await openCliDatabase({ name: 'platform', dataDir: dir, waitForAppMs: 0 });
    try {
      expect(after.kind).toBe('embedded');
      expect(await values(after)).toEqual(['before-kill']);
    } finally {
      await after.close();
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  it(
    "runs the migration runner on the app's sql and, through the socket, on the CLI's",
    { timeout: scaled(30_000) },
    async () => {
      const fresh = path.join(tmpDir(), 'gateway');
      const migrations = migrationsDir();
      const app = await openAppDatabase({ name: 'gateway', dataDir: fresh });
      try {
        const runner: SqlRunner = app.sql;
        expect(await applyMigrations(runner, migrations)).toEqual({
          applied: ['20260101000000_init'],
          alreadyApplied: 0,
        });
        const cli = await openCliDatabase({ name: 'gateway', dataDir: fresh });
        try {
          expect(cli.kind).toBe('embedded-remote');
          expect(await applyMigrations(cli.sql, migrations)).toEqual({ applied: [], alreadyApplied: 1 });
          await cli.sql.query('INSERT INTO "Thing" (name) VALUES ($1)', ['from-cli']);
        } finally {
          await cli.close();
        }
        expect(await app.sql.query('SELECT name FROM "Thing"')).toEqual([{ name: 'from-cli' }]);
      } finally {
        await app.close();
        fs.rmSync(path.dirname(fresh), { recursive: true, force: true });
        fs.rmSync(path.dirname(migrations), { recursive: true, force: true });
      }
    },
  );

  it('keeps the data directory 0700 and asks socket clients for the password kept there (0600)', async () => {
    // a directory made by an earlier version, open to all
    fs.chmodSync(dir, 0o755);
    const app = await openAppDatabase({ name: 'platform', dataDir: dir });
    try {
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dir, SOCKET_PASSWORD_FILE)).mode & 0o777).toBe(0o600);
      const fresh = path.join(tmpDir(), 'a', 'b');
      const other = await openAppDatabase({ name: 'platform', dataDir: fresh });
      try {
        expect(fs.statSync(fresh).mode & 0o777).toBe(0o700);
        expect(readSocketPassword(fresh)).not.toBe(readSocketPassword(dir));
      } finally {
        await other.close();
        fs.rmSync(path.dirname(path.dirname(fresh)), { recursive: true, force: true });
      }

      for (const password of [undefined, '', 'wrong', `${readSocketPassword(dir)}x`]) {
        const c = new pg.Client({
          host: app.socket!.host,
          port: app.socket!.port,
          user: 'postgres',
          password,
        });
        const err = await c.connect().then(
          () => null,
          (e: { code?: string; message: string }) => e,
        );
        await c.end().catch(() => {});
        expect(err, `password ${JSON.stringify(password)}`).not.toBeNull();
        if (password) expect(err!.code).toBe('28P01');
      }
      const wrongUser = new pg.Client({
        host: app.socket!.host,
        port: app.socket!.port,
        user: 'admin',
        password: readSocketPassword(dir),
      });
      await expect(wrongUser.connect()).rejects.toMatchObject({ code: '28P01' });
      await wrongUser.end().catch(() => {});

      const ok = socketClient(app);
      await ok.connect();
      expect((await ok.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
      await ok.end();
      // and the CLI finds it by itself
      const cli = await openCliDatabase({ name: 'platform', dataDir: dir });
      expect(cli.kind).toBe('embedded-remote');
      expect(await cli.sql.query('SELECT 1 AS n')).toEqual([{ n: 1 }]);
      await cli.close();
    } finally {
      await app.close();
    }
  });

  it('refuses to initialise a database in a directory holding other files', async () => {
    const other = tmpDir();
    fs.writeFileSync(path.join(other, 'notes.txt'), 'hello');
    await expect(openAppDatabase({ name: 'gateway', dataDir: other })).rejects.toThrow(
      /neither empty nor a PGlite/,
    );
    expect(readOwner(other)).toBeNull();
    fs.rmSync(other, { recursive: true, force: true });
  });
});

describe('PostgreSQL URL', () => {
  const server = process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432';
  const database = `pa_dbtools_${randomBytes(5).toString('hex')}`;
  const url = (() => {
    const u = new URL(server);
    u.pathname = `/${database}`;
    return u.toString();
  })();

  async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const u = new URL(server);
    u.pathname = '/postgres';
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  }

  beforeAll(() => admin((c) => c.query(`CREATE DATABASE ${database}`)));
  afterAll(() => admin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)));

  it('uses the URL for the app and the CLI, with a one-session sql and the pg adapter', async () => {
    const app = await openAppDatabase({ name: 'gateway', url, poolMax: 3 });
    try {
      expect(app.kind).toBe('postgres');
      expect(app.describe).toBe(`PostgreSQL ${url}`);
      const migrations = migrationsDir();
      expect((await applyMigrations(app.sql, migrations)).applied).toEqual(['20260101000000_init']);
      fs.rmSync(path.dirname(migrations), { recursive: true, force: true });
      await app.sql.exec('CREATE TABLE t (v text PRIMARY KEY)');
      // One session: a transaction spans calls, as the migration runner needs.
      await app.sql.exec('BEGIN');
      await app.sql.query('INSERT INTO t VALUES ($1)', ['tx']);
      await app.sql.exec('ROLLBACK');
      await app.sql.query('INSERT INTO t VALUES ($1)', ['kept']);

      const adapter: SqlDriverAdapter = await app.adapter.connect();
      expect((await adapter.queryRaw(q('SELECT v FROM t'))).rows).toEqual([['kept']]);
      const dup = await adapter.executeRaw(q('INSERT INTO t VALUES ($1)', 'kept')).catch((e: unknown) => e);
      expect(dup).toMatchObject({ name: 'DriverAdapterError', cause: { kind: 'UniqueConstraintViolation' } });
      await adapter.dispose();

      const cli = await openCliDatabase({ name: 'gateway', url });
      try {
        expect(cli.kind).toBe('postgres');
        expect(await cli.sql.query('SELECT v FROM t')).toEqual([{ v: 'kept' }]);
      } finally {
        await cli.close();
      }
    } finally {
      await app.close();
    }
  });

  it("honours Prisma's ?schema= like the migration runner does", async () => {
    const db = await openAppDatabase({ name: 'gateway', url: `${url}?schema=My%20Schema` });
    try {
      await db.sql.exec('CREATE SCHEMA "My Schema"');
      expect(await db.sql.query('SELECT current_schema() AS s')).toEqual([{ s: 'My Schema' }]);
      const adapter = await db.adapter.connect();
      expect(adapter.getConnectionInfo?.().schemaName).toBe('My Schema');
      await adapter.dispose();
    } finally {
      await db.close();
    }
  });

  // Issue 33, defect 2: with pg's defaults a query waited forever on a server that stopped answering.
  describe('timeouts', () => {
    it('a statement running past the statement timeout is cancelled by the server (57014), an outage to the apps', async () => {
      const db = await openAppDatabase({
        name: 'gateway',
        url,
        timeouts: { statementMs: 200, queryMs: 30_000 },
      });
      try {
        const adapter = await db.adapter.connect();
        const err = await adapter.queryRaw(q('SELECT pg_sleep(5)')).catch((e: unknown) => e);
        expect(err).toMatchObject({ name: 'DriverAdapterError', cause: { originalCode: '57014' } });
        expect(fromDatabase(err)?.code).toBe('database-unavailable');
        // the migrations' and operator's session is not cut short
        expect(await db.sql.query("SELECT current_setting('statement_timeout') AS t")).toEqual([{ t: '0' }]);
        await adapter.dispose();
      } finally {
        await db.close();
      }
    });

    it('a query on a connection whose server went silent fails after the query timeout, and the pool recovers', async () => {
      const proxy = await startFreezableProxy(new URL(url).port || '5432');
      const viaProxy = new URL(url);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      const db = await openAppDatabase({
        name: 'gateway',
        url: viaProxy.toString(),
        poolMax: 1,
        timeouts: { connectMs: scaled(1_000), statementMs: 500, queryMs: scaled(1_000) },
      });
      try {
        const adapter = await db.adapter.connect();
        expect((await adapter.queryRaw(q('SELECT 1 AS one'))).rows).toEqual([[1]]);
        proxy.freeze(); // the connection stays open; nothing comes back
        const err = await adapter.queryRaw(q('SELECT 2')).catch((e: unknown) => e);
        expect(String(err)).toMatch(/Query read timeout/);
        expect(fromDatabase(err)?.code).toBe('database-unavailable');
        // new connections reach a silent server too, and give up after the connect timeout
        const again = await adapter.queryRaw(q('SELECT 3')).catch((e: unknown) => e);
        expect(fromDatabase(again)?.code, String(again)).toBe('database-unavailable');
        proxy.thaw();
        // the stuck connection was dropped: the next query gets a fresh one
        expect((await adapter.queryRaw(q('SELECT 4 AS four'))).rows).toEqual([[4]]);
        await adapter.dispose();
      } finally {
        await db.close();
        await proxy.close();
      }
    });
  });

  it('keeps passwords out of describe', async () => {
    const u = new URL(url);
    u.username = 'someone';
    u.password = 's3cret';
    const db = await openAppDatabase({ name: 'platform', url: u.toString() });
    expect(db.describe).not.toContain('s3cret');
    expect(db.describe).toContain('someone:***@');
    await db.close();
  });
});

/**
 * A TCP proxy to PostgreSQL that can stop passing bytes either way while keeping its connections open (a server
 * that hangs), and refuse to answer new ones meanwhile.
 */
async function startFreezableProxy(targetPort: string) {
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    track(client);
    if (frozen) return; // accepted and ignored
    const upstream = net.connect(Number(targetPort), '127.0.0.1');
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk) => {
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!frozen) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
