import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.ts';
import { recordEvents } from '../src/features/webhooks/record-events.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';
import { approvedEvent, TEST_SECRET_KEY, webhookTenant } from './support/webhooks.ts';
import { scaled } from '@pa/http-kit/testing';

// Real platform processes (a sender each) on one database: killed with SIGKILL mid-drain, and two at once.

let t: TestBridge;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  t = await startTestBridge();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await t?.close();
});

function startSender(env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'apps/platform-bridge/test/support/sender-process.ts'],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        SENDER_DATABASE_URL: t.databaseUrl,
        SENDER_SECRET_KEY: TEST_SECRET_KEY.toString('hex'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.add(child);
  child.on('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('ready\n')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`the sender process exited (${code}) before it was ready`)));
  });
}

/** The stats line a sender process prints when it stops on SIGTERM. */
function stopAndReport(child: ChildProcess): Promise<{ attempts: number; succeeded: number }> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d));
    child.on('exit', () => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as { attempts: number; succeeded: number });
      } catch {
        reject(new Error(`no stats from the sender process: ${out}`));
      }
    });
    child.kill('SIGTERM');
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) =>
    child.exitCode !== null || child.signalCode ? resolve() : child.on('exit', () => resolve()),
  );
}

async function setup(events: number, receiver: WebhookReceiver, setSecret: (s: string) => void) {
  const { tenant, endpoint } = await webhookTenant(t, receiver.url);
  setSecret(endpoint.secret);
  const all = Array.from({ length: events }, () => approvedEvent(tenant.slug));
  // committed in a few transactions, as producers would
  for (let i = 0; i < all.length; i += 50) {
    await t.db.$transaction((tx) => recordEvents(tx, tenant.id, all.slice(i, i + 50)));
  }
  const ids = (
    await t.db.webhookDelivery.findMany({ where: { tenantId: tenant.id }, select: { webhookId: true } })
  ).map((d) => d.webhookId);
  return { tenant, ids };
}

async function allSucceeded(tenantId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await t.db.webhookDelivery.count({ where: { tenantId, status: { not: 'succeeded' } } });
    if (left === 0) return;
    if (Date.now() > deadline) throw new Error(`${left} deliveries were not delivered in time`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('platform processes', { timeout: scaled(120_000) }, () => {
  it('kill -9 mid-drain: a new process delivers everything; duplicates only with the same webhook-id', async () => {
    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    // slow enough that the kill finds requests in flight
    receiver.respond(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 40));
      res.statusCode = 204;
      res.end();
    });
    const { tenant, ids } = await setup(300, receiver, (s) => (secret = s));

    const first = await startSender({ SENDER_LEASE_MS: '3000' });
    await receiver.waitFor(() => receiver.received.length >= 60, 60_000);
    first.kill('SIGKILL');
    await exited(first);
    const seenBeforeKill = receiver.received.length;
    expect(seenBeforeKill).toBeLessThan(300);
    // leases of the requests cut off are still held: rows claimed but not finished
    const stranded = await t.db.webhookDelivery.count({
      where: { tenantId: tenant.id, status: 'pending', lockToken: { not: null } },
    });
    expect(stranded).toBeGreaterThan(0);

    const second = await startSender({ SENDER_LEASE_MS: '3000' });
    try {
      await allSucceeded(tenant.id, 90_000);
    } finally {
      second.kill('SIGTERM');
      await exited(second);
    }
    const received = new Set(receiver.received.map((r) => r.webhookId));
    // every delivery arrived at least once, and nothing arrived under an id that is not one of ours
    expect([...received].sort()).toEqual([...ids].sort());
    const duplicates = receiver.received.length - received.size;
    // only the requests cut off by the kill can arrive twice (at most one batch of the process's concurrency)
    expect(duplicates).toBeLessThanOrEqual(8);
    expect(receiver.rejected).toBe(0);
    await receiver.close();
  });

  it('two processes on one database never have one delivery in flight twice at the same time', async () => {
    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    receiver.respond(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 15));
      res.statusCode = 200;
      res.end();
    });
    const { tenant, ids } = await setup(400, receiver, (s) => (secret = s));
    const [a, b] = await Promise.all([startSender(), startSender()]);
    let stats: { attempts: number; succeeded: number }[];
    try {
      await allSucceeded(tenant.id, 90_000);
    } finally {
      stats = await Promise.all([stopAndReport(a), stopAndReport(b)]);
    }
    expect(receiver.maxConcurrentPerId).toBe(1);
    // both took part: the row locks shared the work out rather than one process doing it all
    expect(stats[0]!.succeeded).toBeGreaterThan(0);
    expect(stats[1]!.succeeded).toBeGreaterThan(0);
    expect(stats[0]!.succeeded + stats[1]!.succeeded).toBe(ids.length);
    // no crash, so exactly once each
    expect(receiver.received).toHaveLength(ids.length);
    expect(new Set(receiver.received.map((r) => r.webhookId)).size).toBe(ids.length);
    await receiver.close();
  });
});
