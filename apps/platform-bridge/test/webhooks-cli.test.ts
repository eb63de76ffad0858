import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createLogger } from '@pa/http-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run-cli.ts';
import { REPO_ROOT } from '../src/config.ts';
import { recordEvents } from '../src/features/webhooks/record-events.ts';
import { startWebhookSender } from '../src/features/webhooks/webhook-sender.ts';
import { makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { approvedEvent } from './support/webhooks.ts';
import { scaled } from '@pa/http-kit/testing';

// `npm run platform -- webhooks …` against a real database: `webhooks add` as a spawned process (as an operator
// runs it), the rest in-process through runCli, as main.ts runs it.

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const SECRET_KEY_HEX = randomBytes(32).toString('hex');
let t: TestBridge;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  t = await startTestBridge();
  env = { PLATFORM_DATABASE_URL: t.databaseUrl, PLATFORM_SECRET_KEY: SECRET_KEY_HEX };
});
afterAll(async () => {
  await t?.close();
});

function spawned(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'apps/platform-bridge/src/cli/main.ts', ...args],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, ...env },
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

async function platform(argv: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    env: { ...env, ...extraEnv },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

function ok(run: Run): Run {
  if (run.code !== 0) expect.fail(`exit ${run.code}: ${run.stderr}`);
  return run;
}

function json<T>(run: Run): T {
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout) as T;
}

describe('npm run platform -- webhooks', { timeout: scaled(60_000) }, () => {
  it('add prints the secret once; list, deliveries, redeliver and remove work on what it made', async () => {
    const tenant = await makeTenant(t, { flags: ['platform_event_webhooks'] });
    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    receiver.respond((_req, res, n) => {
      res.statusCode = n === 1 ? 500 : 204;
      res.end();
    });

    const added = ok(await spawned(['webhooks', 'add', '--tenant', tenant.slug, '--url', receiver.url]));
    secret = /^ {2}(whsec_\S+)$/m.exec(added.stdout)?.[1] ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(added.stderr).toMatch(/will not be shown again/);
    const stored = await t.db.webhookEndpoint.findFirstOrThrow({ where: { tenantId: tenant.id } });
    // encrypted at rest: the secret's bytes are nowhere in the row
    expect(Buffer.from(stored.secretEncrypted).includes(Buffer.from(secret))).toBe(false);

    // the app's sender, with the same PLATFORM_SECRET_KEY, signs with the secret the CLI printed
    const sender = await startWebhookSender({
      statements: t.statements,
      secretKey: Buffer.from(SECRET_KEY_HEX, 'hex'),
      policy: { allowHttpLoopback: true },
      logger: createLogger('platform-bridge', 'silent'),
      // the real clock, as the CLI's redeliver uses
    });
    try {
      await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
      await sender.drain();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.rejected).toBe(0);

      const list = json<{ endpoints: { id: number; url: string; enabled: boolean; deliveries: object }[] }>(
        ok(await platform(['webhooks', 'list', '--tenant', tenant.slug, '--json'])),
      );
      expect(list.endpoints).toEqual([
        expect.objectContaining({
          id: stored.id,
          url: receiver.url,
          enabled: true,
          deliveries: { pending: 1, succeeded: 0, failed: 0 },
        }),
      ]);
      expect(JSON.stringify(list)).not.toContain('whsec_');
      expect(ok(await platform(['webhooks', 'list', '--tenant', tenant.slug])).stdout).toContain(
        receiver.url,
      );

      const pending = json<{ deliveries: { id: number; status: string; last_status_code: number }[] }>(
        ok(
          await platform([
            'webhooks',
            'deliveries',
            '--tenant',
            tenant.slug,
            '--status',
            'pending',
            '--json',
          ]),
        ),
      );
      expect(pending.deliveries).toEqual([
        expect.objectContaining({ status: 'pending', last_status_code: 500 }),
      ]);
      const id = pending.deliveries[0]!.id;
      // a pending delivery is sent without help
      const early = await platform(['webhooks', 'redeliver', '--id', String(id), '--json']);
      expect(early.code).toBe(1);
      expect(json<{ error: { code: string } }>(early).error.code).toBe('delivery-pending');

      await t.db.webhookDelivery.update({ where: { id }, data: { status: 'failed' } });
      const failed = json<{ deliveries: { id: number }[] }>(
        ok(
          await platform(['webhooks', 'deliveries', '--tenant', tenant.slug, '--status', 'failed', '--json']),
        ),
      );
      expect(failed.deliveries.map((d) => d.id)).toEqual([id]);
      expect(ok(await platform(['webhooks', 'deliveries', '--tenant', tenant.slug])).stdout).toContain(
        'failed',
      );

      const again = json<{ id: number; webhook_id: string; status: string }>(
        ok(await platform(['webhooks', 'redeliver', '--id', String(id), '--json'])),
      );
      expect(again).toMatchObject({ id, status: 'pending' });
      await sender.drain();
      const row = await t.db.webhookDelivery.findUniqueOrThrow({ where: { id } });
      expect(row).toMatchObject({ status: 'succeeded', attempts: 1 });
      // the same webhook-id both times
      expect(receiver.received.map((r) => r.webhookId)).toEqual([again.webhook_id, again.webhook_id]);

      const removed = json<{ id: number; removed: boolean }>(
        ok(await platform(['webhooks', 'remove', '--id', String(stored.id), '--json'])),
      );
      expect(removed).toMatchObject({ id: stored.id, removed: true });
      expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(0);
      const gone = await platform(['webhooks', 'remove', '--id', String(stored.id), '--json']);
      expect(gone.code).toBe(1);
      expect(json<{ error: { code: string } }>(gone).error.code).toBe('webhook-not-found');
    } finally {
      await sender.stop();
      await receiver.close();
    }
  });

  it('refuses URLs the SSRF guard refuses, and http when WEBHOOK_ALLOW_HTTP_LOOPBACK is false', async () => {
    const tenant = await makeTenant(t, { flags: [] });
    for (const url of [
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/hooks',
      'ftp://127.0.0.1/',
    ]) {
      const run = await platform(['webhooks', 'add', '--tenant', tenant.slug, '--url', url, '--json']);
      expect(run.code).toBe(2);
      expect(json<{ error: { code: string } }>(run).error.code).toBe('validation-failed');
    }
    const strict = await platform(
      ['webhooks', 'add', '--tenant', tenant.slug, '--url', 'http://127.0.0.1:9/x'],
      {
        WEBHOOK_ALLOW_HTTP_LOOPBACK: 'false',
      },
    );
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/https/);
    // the default for production is off as well
    const production = await platform(
      ['webhooks', 'add', '--tenant', tenant.slug, '--url', 'http://127.0.0.1:9/x'],
      {
        NODE_ENV: 'production',
      },
    );
    expect(production.code).toBe(2);
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(0);
    // one endpoint per URL and tenant
    ok(await platform(['webhooks', 'add', '--tenant', tenant.slug, '--url', 'http://127.0.0.1:9/once']));
    const twice = await platform([
      'webhooks',
      'add',
      '--tenant',
      tenant.slug,
      '--url',
      'http://127.0.0.1:9/once',
      '--json',
    ]);
    expect(twice.code).toBe(1);
    expect(json<{ error: { code: string } }>(twice).error.code).toBe('endpoint-exists');
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(1);
  });

  it('bad arguments print usage and exit 2; unknown tenants exit 1', async () => {
    const cases: [string[], RegExp][] = [
      [['webhooks', 'add', '--tenant', 'x'], /Missing --url/],
      [['webhooks', 'remove', '--id', 'abc'], /--id must be an endpoint id/],
      [['webhooks', 'redeliver', '--id', '0'], /--id must be a delivery id/],
      [
        ['webhooks', 'deliveries', '--tenant', 'x', '--status', 'lost'],
        /--status must be pending, succeeded or failed/,
      ],
      [['webhooks', 'list'], /Missing --tenant/],
      [['webhooks', 'list', '--tenant', 'x', '--url', 'y'], /does not take --url/],
      [['webhooks', 'purge'], /Unknown command "webhooks purge"/],
    ];
    for (const [argv, message] of cases) {
      const run = await platform(argv);
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/Usage: npm run platform -- /);
    }
    const unknown = await platform(['webhooks', 'list', '--tenant', 'no-such-tenant', '--json']);
    expect(unknown.code).toBe(1);
    expect(json<{ error: { code: string } }>(unknown).error.code).toBe('tenant-not-found');
    const help = await platform(['--help']);
    expect(help.stdout).toMatch(/webhooks add --tenant S --url U/);
    expect(help.stdout).toMatch(/webhooks redeliver --id N/);
  });
});
