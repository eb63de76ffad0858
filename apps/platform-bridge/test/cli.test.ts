import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@pa/db-tools/testing';
import { PrismaPg } from '@prisma/adapter-pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { runCli } from '../src/cli/run-cli.ts';
import { MIGRATIONS_DIR, REPO_ROOT } from '../src/config.ts';
import { createPrismaClient, type Db } from '../src/lib/db.ts';
import { createLogger } from '@pa/http-kit';
import { bearer, uniqueSlug } from './support/factories.ts';
import { scaled } from '@pa/http-kit/testing';

// The CLI as an operator runs it: a child process per command against a real database. Each spawn costs
// about a second, so independent commands run side by side and argument checks that never reach the
// database are also exercised in-process.

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let database: { url: string; drop(): Promise<void> };
let db: Db;
let app: ReturnType<typeof createApp>;

function cli(args: string[], overrides: Record<string, string | undefined> = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, PLATFORM_DATABASE_URL: database.url, ...overrides };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'apps/platform-bridge/src/cli/main.ts', ...args],
      {
        cwd: REPO_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the CLI with its stdout closed by the reader before anything is written (`… | head -c 100`). */
function cliClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'apps/platform-bridge/src/cli/main.ts', ...args],
      { cwd: REPO_ROOT, env: { ...process.env, PLATFORM_DATABASE_URL: database.url }, stdio: 'pipe' },
    );
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** The one JSON object a `--json` run prints, and proof that nothing else went to stdout. */
function json<T = Record<string, unknown>>(run: Run): T {
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout) as T;
}

function ok(run: Run): Run {
  if (run.code !== 0) expect.fail(`exit ${run.code}: ${run.stderr}`);
  return run;
}

beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'cli_test', migrationsDir: MIGRATIONS_DIR });
  db = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 2 }));
  app = createApp({ db, logger: createLogger('platform-bridge', 'silent'), rateLimitPerMin: 10_000 });
});
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

// CLI processes (a tsx start-up each, seconds on a busy machine): a minute per test.
describe('npm run platform -- (PostgreSQL URL)', { timeout: scaled(60_000) }, () => {
  const slug = uniqueSlug('cli');
  let key: { id: number; key: string; preview: string; scopes: string[]; tenant: string; label: string };

  it('tenants create, then every command that works on a tenant', { timeout: scaled(120_000) }, async () => {
    const created = json<{ id: number; slug: string; name: string }>(
      ok(await cli(['tenants', 'create', '--slug', slug, '--name', 'CLI Lettings', '--json'])),
    );
    expect(created).toMatchObject({ id: expect.any(Number), slug, name: 'CLI Lettings' });

    const demoSlug = uniqueSlug('demo');
    const [flag, keyRun, adminRun, mailbox, demo] = await Promise.all([
      cli(['flags', 'set', '--tenant', slug, '--flag', 'assistant_external_bridge', '--on', '--json']),
      cli([
        'keys',
        'create',
        '--tenant',
        slug,
        '--scopes',
        'bridge:read,bridge:propose',
        '--label',
        'ci',
        '--json',
      ]),
      cli(['admins', 'create', '--tenant', slug, '--email', 'ops@cli.example']),
      cli(['mailboxes', 'add', '--tenant', slug, '--address', 'Lettings@CLI.example', '--json']),
      cli(['demo', 'seed', '--tenant', demoSlug, '--json']),
    ]);
    expect(json(ok(flag))).toEqual({ tenant: slug, flag: 'assistant_external_bridge', enabled: true });

    key = json(ok(keyRun));
    expect(key.key).toMatch(/^plat_[0-9A-Za-z]{38}$/);
    expect(key).toMatchObject({ tenant: slug, scopes: ['bridge:read', 'bridge:propose'], label: 'ci' });
    expect(key.key.startsWith(key.preview.replace('…', ''))).toBe(true);
    expect(keyRun.stderr).toMatch(/will not be shown again/);

    expect(ok(adminRun).stdout).toMatch(/^ {2}padm_[0-9A-Za-z]{38}$/m);
    expect(adminRun.stdout).toContain('ops@cli.example');
    expect(adminRun.stderr).toMatch(/will not be shown again/);

    expect(json(ok(mailbox))).toEqual({ tenant: slug, address: 'lettings@cli.example' });

    expect(json(ok(demo))).toMatchObject({
      tenant: { slug: demoSlug },
      created: true,
      counts: { properties: 24, deals: 8 },
      flagsTurnedOn: [
        'assistant_external_bridge',
        'assistant_bridge_writes',
        'assistant_bridge_review_queue',
      ],
    });
    const demoTenant = await db.tenant.findUniqueOrThrow({ where: { slug: demoSlug } });
    expect(await db.property.count({ where: { tenantId: demoTenant.id } })).toBe(24);

    const [tenants, flags, keys] = await Promise.all([
      cli(['tenants', 'list']),
      cli(['flags', 'list', '--tenant', slug, '--json']),
      cli(['keys', 'list', '--tenant', slug]),
    ]);
    expect(ok(tenants).stdout).toMatch(new RegExp(`^\\d+\\s+${slug}\\s+CLI Lettings`, 'm'));
    expect(tenants.stdout).toMatch(new RegExp(`\\s${demoSlug}\\s`));
    expect(json<{ flags: Record<string, boolean> }>(ok(flags)).flags).toEqual({
      assistant_external_bridge: true,
      assistant_bridge_writes: false,
      assistant_bridge_review_queue: false,
      platform_event_webhooks: false,
    });
    // Secrets are shown once, at creation, and never listed.
    expect(ok(keys).stdout).toMatch(new RegExp(`^${key.id}\\s+remote\\s+${key.preview}`, 'm'));
    expect(keys.stdout).toMatch(/\sadmin\s+padm_\w{8}….*ops@cli\.example/);
    expect(keys.stdout).not.toContain(key.key);
  });

  it(
    'demo seed says which flags it turned on, in its output and its help',
    { timeout: scaled(120_000) },
    async () => {
      const demoSlug = uniqueSlug('demo-text');
      const first = ok(await cli(['demo', 'seed', '--tenant', demoSlug]));
      expect(first.stdout).toContain(
        `Turned on the tenant's flags assistant_external_bridge, assistant_bridge_writes, assistant_bridge_review_queue`,
      );
      const [again, help] = await Promise.all([
        cli(['demo', 'seed', '--tenant', demoSlug, '--json']),
        cli(['--help']),
      ]);
      expect(json(ok(again))).toMatchObject({ created: false, flagsTurnedOn: [] });
      expect(ok(help).stdout).toMatch(
        /demo seed \[--tenant S\][\s\S]*turn on its flags assistant_external_bridge, assistant_bridge_writes, assistant_bridge_review_queue/,
      );
    },
  );

  it('a reader that closes the pipe early: exit 0, no stack trace; an unknown option: exit 2', async () => {
    const [closed, unknown] = await Promise.all([
      cliClosedStdout(['tenants', 'list', '--json']),
      cli(['demo', 'seed', '--colour', 'red']),
    ]);
    expect(closed).toEqual({ code: 0, stderr: '' });
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/Unknown option '--colour'/);
    expect(unknown.stderr).toMatch(/Usage: npm run platform -- /);
  });

  it('a created key authenticates until keys revoke', { timeout: scaled(60_000) }, async () => {
    const portfolio = () =>
      request(app)
        .get('/api/assistant-bridge/portfolio')
        .set(...bearer(key.key));
    expect((await portfolio()).status).toBe(200);

    const revoked = json(ok(await cli(['keys', 'revoke', '--id', String(key.id), '--json'])));
    expect(revoked).toEqual({ id: key.id, revoked_at: expect.any(String) });
    const denied = await portfolio();
    expect(denied.status).toBe(401);
    expect(denied.body.code).toBe('invalid-api-key');
  });

  it(
    'exits 1 with the reason, not a stack trace, for an unknown tenant; 2 with usage for bad arguments',
    {
      timeout: scaled(60_000),
    },
    async () => {
      const [unknown, missing, invalid] = await Promise.all([
        cli(['keys', 'create', '--tenant', 'no-such-tenant', '--json']),
        cli(['keys', 'create', '--label', 'x']),
        cli(['tenants', 'create', '--slug', 'Not A Slug', '--name', 'X']),
      ]);
      expect(unknown.code).toBe(1);
      expect(json(unknown)).toEqual({
        error: { code: 'tenant-not-found', message: 'No tenant with slug "no-such-tenant".' },
      });
      expect(unknown.stderr.trim()).toBe('error: No tenant with slug "no-such-tenant".');

      expect(missing.code).toBe(2);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toMatch(/Missing --tenant/);
      expect(missing.stderr).toMatch(/Usage: npm run platform -- keys create --tenant S/);

      // A value the service rejects is a bad argument too.
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toMatch(/Slug "Not A Slug" must match/);
      expect(invalid.stderr).toMatch(/Usage: npm run platform -- tenants create --slug S --name N/);
    },
  );
});

// The admins commands in-process against the same PostgreSQL database (runCli as main.ts runs it, without the
// start-up of a process each; the spawned CLI's `admins create` is covered above).
describe('npm run platform -- admins (in-process, PostgreSQL URL)', () => {
  async function platform(argv: string[]): Promise<Run> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: { PLATFORM_DATABASE_URL: database.url },
    });
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  }

  it('admins create (both scopes by default, or --scopes), list and revoke; the key works until revoked', async () => {
    const slug = uniqueSlug('adm');
    ok(await platform(['tenants', 'create', '--slug', slug, '--name', 'Admins Co']));
    ok(await platform(['flags', 'set', '--tenant', slug, '--flag', 'assistant_bridge_review_queue', '--on']));
    const remote = json<{ id: number }>(ok(await platform(['keys', 'create', '--tenant', slug, '--json'])));

    const lead = await platform([
      'admins',
      'create',
      '--tenant',
      slug,
      '--email',
      'lead@cli.example',
      '--json',
    ]);
    const admin = json<{ id: number; key: string; email: string; scopes: string[]; tenant: string }>(
      ok(lead),
    );
    expect(admin).toMatchObject({
      tenant: slug,
      email: 'lead@cli.example',
      scopes: ['review:read', 'review:write'],
    });
    expect(admin.key).toMatch(/^padm_[0-9A-Za-z]{38}$/);
    expect(lead.stderr).toMatch(/will not be shown again/);
    const viewer = await platform([
      'admins',
      'create',
      '--tenant',
      slug,
      '--email',
      'viewer@cli.example',
      '--scopes',
      'review:read',
      '--json',
    ]);
    expect(json(ok(viewer))).toMatchObject({ email: 'viewer@cli.example', scopes: ['review:read'] });

    const badEmail = await platform(['admins', 'create', '--tenant', slug, '--email', 'not an email']);
    expect(badEmail.code).toBe(2);
    expect(badEmail.stderr).toMatch(/"not an email" is not an email address/);
    const badScope = await platform([
      'admins',
      'create',
      '--tenant',
      slug,
      '--email',
      'x@cli.example',
      '--scopes',
      'bridge:read',
    ]);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toMatch(/Scopes must be among review:read, review:write/);

    const listed = json<{ tenant: string; admins: Array<Record<string, unknown>> }>(
      ok(await platform(['admins', 'list', '--tenant', slug, '--json'])),
    );
    expect(listed.admins.map((a) => a.email)).toEqual(['lead@cli.example', 'viewer@cli.example']);
    // never the secret; remote keys are not admins
    expect(JSON.stringify(listed)).not.toContain(admin.key);
    expect(listed.admins.map((a) => a.id)).not.toContain(remote.id);

    const queue = () =>
      request(app)
        .get('/api/admin/review-queue')
        .set(...bearer(admin.key));
    expect((await queue()).status).toBe(200);
    expect(json(ok(await platform(['admins', 'revoke', '--id', String(admin.id), '--json'])))).toEqual({
      id: admin.id,
      revoked_at: expect.any(String),
    });
    expect((await queue()).status).toBe(401);

    const notAnAdmin = await platform(['admins', 'revoke', '--id', String(remote.id), '--json']);
    expect(notAnAdmin.code).toBe(1);
    expect(json(notAnAdmin)).toEqual({
      error: { code: 'key-not-found', message: `No admin key with id ${remote.id}.` },
    });
    const table = ok(await platform(['admins', 'list', '--tenant', slug]));
    expect(table.stdout).toMatch(/^ID\s+EMAIL\s+KEY\s+SCOPES/);
    expect(table.stdout).toMatch(/lead@cli\.example\s+padm_\w{8}….*revoked/);
    expect(table.stdout).toMatch(/viewer@cli\.example\s+padm_\w{8}…\s+review:read\s+never\s+active/);
  });
});

describe('argument checks (in-process; they never open a database)', () => {
  async function run(argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    // No database URL and a data directory that must never be created: these all fail before opening one.
    const dataDir = path.join(tmpdir(), `never-${uniqueSlug()}`);
    const code = await runCli(argv, {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: { PLATFORM_DATA_DIR: dataDir },
    });
    expect(existsSync(dataDir)).toBe(false);
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  }

  it('--help prints the usage on stdout', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: npm run platform -- <command>/);
    for (const name of [
      'tenants create',
      'flags set',
      'keys revoke',
      'admins create',
      'admins list',
      'admins revoke',
      'mailboxes add',
      'demo seed',
    ]) {
      expect(r.stdout).toContain(name);
    }
  });

  it.each([
    [[], /No command given/],
    [['tenants', 'explode'], /Unknown command "tenants explode"/],
    [['tenants'], /Unknown command "tenants"/],
    [['tenants', 'create', '--slug', 'x'], /Missing --name/],
    [['tenants', 'create', '--slug'], /argument missing/],
    [['tenants', 'list', '--tenant', 'x'], /"tenants list" does not take --tenant/],
    [['tenants', 'list', 'extra'], /Unexpected argument "extra"/],
    [['flags', 'set', '--tenant', 'x', '--flag', 'y'], /exactly one of --on or --off/],
    [['flags', 'set', '--tenant', 'x', '--flag', 'y', '--on', '--off'], /exactly one of --on or --off/],
    [['keys', 'revoke', '--id', 'abc'], /positive integer/],
    [['admins', 'revoke', '--id', '0'], /positive integer/],
    [['admins', 'revoke', '--id', '99999999999'], /positive integer/],
    [['admins', 'list'], /Missing --tenant/],
    [
      ['admins', 'create', '--tenant', 'x', '--email', 'a@b.example', '--label', 'l'],
      /does not take --label/,
    ],
    [['keys', 'revoke', '--id', '0'], /positive integer/],
    [['keys', 'list', '--bogus'], /Unknown option '--bogus'/],
  ])('%j → exit 2 with usage', async (argv, message) => {
    const r = await run(argv as string[]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/Usage: npm run platform -- /);
  });

  it('--json turns a usage error into one JSON object on stdout', async () => {
    const r = await run(['keys', 'revoke', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'usage', message: 'Missing --id.' } });
  });
});

describe('npm run platform -- (embedded database, app not running)', { timeout: scaled(60_000) }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'platform-cli-')), 'data');
  });
  afterAll(() => rmSync(path.dirname(dataDir), { recursive: true, force: true }));

  it(
    'creates the data directory, migrates it, and sees its own writes',
    { timeout: scaled(90_000) },
    async () => {
      const env = { PLATFORM_DATABASE_URL: undefined, PLATFORM_DATA_DIR: dataDir };
      const created = await cli(
        ['tenants', 'create', '--slug', 'embedded-co', '--name', 'Embedded Co', '--json'],
        env,
      );
      expect(json(ok(created))).toMatchObject({ slug: 'embedded-co', name: 'Embedded Co' });
      expect(existsSync(path.join(dataDir, 'platform', 'PG_VERSION'))).toBe(true);

      const listed = await cli(['tenants', 'list', '--json'], env);
      expect(json<{ tenants: Array<{ slug: string }> }>(ok(listed)).tenants.map((t) => t.slug)).toEqual([
        'embedded-co',
      ]);
    },
  );
});
