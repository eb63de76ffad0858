import { randomBytes, randomUUID } from 'node:crypto';
import { SummaryConfig } from '@pa/contracts';
import { freePort, type RedisServer, startRedisServer, until } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextRunAt } from '../src/features/daily-summary/next-run.ts';
import { schedulerIdOf } from '../src/features/daily-summary/summary-queue.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway, type TestTenant } from './support/platform.ts';
import {
  boundWorker,
  configPath,
  configure,
  dropQueueKeys,
  getConfig,
  postConfig,
  summaryEnv,
  unboundWorker,
  uniqueQueuePrefix,
} from './support/summary-config.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// POST/GET /api/assistant/email/summary/config/{workerId} on the real bridge, real PostgreSQL and the
// real Redis under a queue prefix of this file's own.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = uniqueQueuePrefix('summary-config');
let platform: PlatformForGateway;
let g: TestGateway;
let tenant: TestTenant;
beforeAll(async () => {
  platform = await startPlatformForGateway();
  tenant = await platform.createTenant({ name: 'Summary Lettings' });
  g = await startTestGateway({ redis: 'required', env: summaryEnv(platform.baseUrl, prefix) });
});
afterAll(async () => {
  await g?.close();
  await platform?.close();
  await dropQueueKeys(REDIS_URL, prefix);
});

const scheduler = (workerId: string) => g.deps.summaryQueue!.queue.getJobScheduler(schedulerIdOf(workerId));

async function connectedChannel(workerId: string, type: 'telegram' | 'whatsapp', status = 'connected') {
  await g.db.channel.create({
    data: {
      workerId,
      type,
      mode: type === 'telegram' ? 'polling' : 'webhook',
      status,
      externalId: randomBytes(6).toString('hex'),
      secretsCiphertext: new Uint8Array(randomBytes(32)),
      chatId: status === 'connected' ? '4242' : null,
    },
  });
}

describe('GET /api/assistant/email/summary/config/{workerId}', () => {
  it('answers the defaults, disabled, for a worker never configured', async () => {
    const w = await boundWorker(g, tenant);
    const res = await getConfig(g, w.workspaceId, w.workerId);
    expect(res.status).toBe(200);
    const config = expectContract(SummaryConfig, await res.json());
    const worker = await g.db.worker.findUniqueOrThrow({ where: { id: w.workerId } });
    expect(config).toEqual({
      workerId: w.workerId,
      enabled: false,
      deliveryChannel: 'web',
      summarySchedule: '0 8 * * *',
      timezone: 'Europe/London',
      nextRunAt: null,
      updatedAt: worker.createdAt.toISOString(),
    });
    expect(await g.db.summaryConfig.count({ where: { workerId: w.workerId } })).toBe(0);
  });

  it('answers what was saved, with the next run', async () => {
    const w = await boundWorker(g, tenant);
    const saved = await configure(g, w, {
      enabled: true,
      deliveryChannel: 'web',
      summarySchedule: '30 7 * * 1-5',
      timezone: 'Europe/Paris',
    });
    const config = expectContract(
      SummaryConfig,
      await (await getConfig(g, w.workspaceId, w.workerId)).json(),
    );
    expect(config).toMatchObject({
      enabled: true,
      summarySchedule: '30 7 * * 1-5',
      timezone: 'Europe/Paris',
      updatedAt: saved.updatedAt,
    });
    expect(config.nextRunAt).toBe(saved.nextRunAt);
  });
});

describe('POST /api/assistant/email/summary/config/{workerId}', () => {
  it('turns the summary on with the defaults: saved, scheduled in Redis, and the next 08:00 London in the answer', async () => {
    const w = await boundWorker(g, tenant);
    const before = new Date();
    const config = await configure(g, w, { enabled: true, deliveryChannel: 'web' });
    expect(config).toMatchObject({
      workerId: w.workerId,
      enabled: true,
      deliveryChannel: 'web',
      summarySchedule: '0 8 * * *',
      timezone: 'Europe/London',
    });
    // the next fire time from now: between the one computed just before the call and the one just after
    const expected = nextRunAt('0 8 * * *', 'Europe/London', before).toISOString();
    expect(config.nextRunAt).toBe(expected);
    const london = new Date(config.nextRunAt!).toLocaleTimeString('en-GB', {
      timeZone: 'Europe/London',
      timeStyle: 'short',
    });
    expect(london).toBe('08:00');

    const row = await g.db.summaryConfig.findUniqueOrThrow({ where: { workerId: w.workerId } });
    expect(row).toMatchObject({
      enabled: true,
      deliveryChannel: 'web',
      schedule: '0 8 * * *',
      timezone: 'Europe/London',
    });
    const s = await scheduler(w.workerId);
    expect(s).toMatchObject({ pattern: '0 8 * * *', tz: 'Europe/London' });
    // BullMQ's own next fire time agrees with the answer's
    expect(new Date(s!.next!).toISOString()).toBe(config.nextRunAt);
  });

  it('stores the schedule with its spacing normalised', async () => {
    const w = await boundWorker(g, tenant);
    const config = await configure(g, w, {
      enabled: true,
      deliveryChannel: 'web',
      summarySchedule: '  0   9 * *  1-5 ',
    });
    expect(config.summarySchedule).toBe('0 9 * * 1-5');
    expect((await scheduler(w.workerId))?.pattern).toBe('0 9 * * 1-5');
  });

  it('turning it off keeps the row, removes the scheduler and answers nextRunAt null', async () => {
    const w = await boundWorker(g, tenant);
    await configure(g, w, { enabled: true, deliveryChannel: 'web', summarySchedule: '15 6 * * *' });
    expect(await scheduler(w.workerId)).toBeDefined();
    const off = await configure(g, w, {
      enabled: false,
      deliveryChannel: 'web',
      summarySchedule: '15 6 * * *',
    });
    expect(off).toMatchObject({ enabled: false, summarySchedule: '15 6 * * *', nextRunAt: null });
    const row = await g.db.summaryConfig.findUniqueOrThrow({ where: { workerId: w.workerId } });
    expect(row).toMatchObject({ enabled: false, schedule: '15 6 * * *' });
    expect(await scheduler(w.workerId)).toBeUndefined();
  });

  it('400 validation-failed at /summarySchedule for an expression cron-parser refuses, and saves nothing', async () => {
    const w = await boundWorker(g, tenant);
    for (const bad of ['60 8 * * *', '0 25 * * *', '0 8 30 2 *', 'H 8 * * *', 'every day']) {
      const res = await postConfig(g, w.workspaceId, w.workerId, {
        enabled: true,
        deliveryChannel: 'web',
        summarySchedule: bad,
      });
      const p = await expectProblem(res, 400, 'validation-failed');
      expect(
        p.errors?.map((e) => e.pointer),
        bad,
      ).toEqual(['#/summarySchedule']);
    }
    expect(await g.db.summaryConfig.count({ where: { workerId: w.workerId } })).toBe(0);
    expect(await scheduler(w.workerId)).toBeUndefined();
  });

  it('400 at /summarySchedule for fewer or more than five fields', async () => {
    const w = await boundWorker(g, tenant);
    for (const bad of ['0 8 * *', '0 0 8 * * *', '']) {
      const res = await postConfig(g, w.workspaceId, w.workerId, {
        enabled: true,
        deliveryChannel: 'web',
        summarySchedule: bad,
      });
      const p = await expectProblem(res, 400, 'validation-failed');
      expect(
        p.errors?.map((e) => e.pointer),
        bad,
      ).toEqual(['#/summarySchedule']);
    }
  });

  it('400 at /timezone for a zone that is not IANA', async () => {
    const w = await boundWorker(g, tenant);
    for (const bad of ['Mars/Olympus_Mons', '+01:00', 'GMT+1', 'London']) {
      const res = await postConfig(g, w.workspaceId, w.workerId, {
        enabled: true,
        deliveryChannel: 'web',
        timezone: bad,
      });
      const p = await expectProblem(res, 400, 'validation-failed');
      expect(
        p.errors?.map((e) => e.pointer),
        bad,
      ).toEqual(['#/timezone']);
    }
    expect(await g.db.summaryConfig.count({ where: { workerId: w.workerId } })).toBe(0);
  });

  it('400 for an unknown channel, a missing field, an unknown field; 400 malformed-json; 415 without JSON; 413 too big', async () => {
    const w = await boundWorker(g, tenant);
    const cases: Array<[unknown, string]> = [
      [{ enabled: true, deliveryChannel: 'email' }, '#/deliveryChannel'],
      [{ deliveryChannel: 'web' }, '#/enabled'],
      [{ enabled: 'yes', deliveryChannel: 'web' }, '#/enabled'],
      [{ enabled: true, deliveryChannel: 'web', hour: 8 }, '#/hour'],
    ];
    for (const [body, pointer] of cases) {
      const p = await expectProblem(
        await postConfig(g, w.workspaceId, w.workerId, body),
        400,
        'validation-failed',
      );
      expect(p.errors?.map((e) => e.pointer)).toEqual([pointer]);
    }
    await expectProblem(await postConfig(g, w.workspaceId, w.workerId, '{"enabled":'), 400, 'malformed-json');
    const text = await fetch(`${g.baseUrl}${configPath(w.workerId)}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'X-Workspace-Id': w.workspaceId },
      body: 'enabled',
    });
    await expectProblem(text, 415, 'unsupported-media-type');
    const huge = await postConfig(g, w.workspaceId, w.workerId, {
      enabled: true,
      deliveryChannel: 'web',
      summarySchedule: 'x'.repeat(70_000),
    });
    await expectProblem(huge, 413, 'payload-too-large');
    expect(await g.db.summaryConfig.count({ where: { workerId: w.workerId } })).toBe(0);
  });

  it('400 for a worker id that is not a UUID, or a missing X-Workspace-Id', async () => {
    const w = await boundWorker(g, tenant);
    await expectProblem(await getConfig(g, w.workspaceId, 'not-a-uuid'), 400, 'validation-failed');
    const noHeader = await postJson(g.baseUrl, configPath(w.workerId), {
      enabled: false,
      deliveryChannel: 'web',
    });
    const p = await expectProblem(noHeader, 400, 'validation-failed');
    expect(p.errors?.map((e) => e.pointer)).toEqual(['#/x-workspace-id']);
  });

  it('404 workspace-not-found, and 404 worker-not-found for an unknown worker or another workspace’s', async () => {
    const w = await boundWorker(g, tenant);
    const other = await unboundWorker(g);
    const body = { enabled: false, deliveryChannel: 'web' };
    await expectProblem(await postConfig(g, randomUUID(), w.workerId, body), 404, 'workspace-not-found');
    await expectProblem(await postConfig(g, w.workspaceId, randomUUID(), body), 404, 'worker-not-found');
    await expectProblem(await postConfig(g, other.workspaceId, w.workerId, body), 404, 'worker-not-found');
    await expectProblem(await getConfig(g, other.workspaceId, w.workerId), 404, 'worker-not-found');
    expect(await g.db.summaryConfig.count({ where: { workerId: w.workerId } })).toBe(0);
  });

  it('422 worker-not-bound when turning it on for an unbound worker; turning it off is allowed', async () => {
    const w = await unboundWorker(g);
    const res = await postConfig(g, w.workspaceId, w.workerId, { enabled: true, deliveryChannel: 'web' });
    await expectProblem(res, 422, 'worker-not-bound');
    expect(await g.db.summaryConfig.count({ where: { workerId: w.workerId } })).toBe(0);
    const off = await configure(g, w, { enabled: false, deliveryChannel: 'web' });
    expect(off).toMatchObject({ enabled: false, nextRunAt: null });
    expect(await scheduler(w.workerId)).toBeUndefined();
  });

  it('422 channel-not-connected for telegram or whatsapp without a connected channel of that type', async () => {
    const w = await boundWorker(g, tenant);
    for (const channel of ['telegram', 'whatsapp']) {
      const res = await postConfig(g, w.workspaceId, w.workerId, { enabled: true, deliveryChannel: channel });
      await expectProblem(res, 422, 'channel-not-connected');
    }
    // a channel waiting for its pairing is not connected; a connected channel of the other type does not count
    await connectedChannel(w.workerId, 'telegram', 'pending_pairing');
    await connectedChannel(w.workerId, 'whatsapp');
    await expectProblem(
      await postConfig(g, w.workspaceId, w.workerId, { enabled: true, deliveryChannel: 'telegram' }),
      422,
      'channel-not-connected',
    );
    expect(await g.db.summaryConfig.count({ where: { workerId: w.workerId } })).toBe(0);
    expect(await scheduler(w.workerId)).toBeUndefined();
    // turning it off is not refused whatever became of the channel
    await configure(g, w, { enabled: false, deliveryChannel: 'telegram' });
  });

  it('delivers on a connected channel of the worker', async () => {
    const w = await boundWorker(g, tenant);
    await connectedChannel(w.workerId, 'telegram');
    const config = await configure(g, w, { enabled: true, deliveryChannel: 'telegram' });
    expect(config).toMatchObject({ enabled: true, deliveryChannel: 'telegram' });
    expect(config.nextRunAt).not.toBeNull();
    expect(await scheduler(w.workerId)).toBeDefined();
  });
});

describe('the flags', () => {
  it('404 summary-disabled on both routes while ASSISTANT_DAILY_SUMMARY_ENABLED is off', async () => {
    const off = await startTestGateway({
      databaseUrl: g.databaseUrl,
      redis: 'none',
      env: { ...summaryEnv(platform.baseUrl, prefix), ASSISTANT_DAILY_SUMMARY_ENABLED: 'false' },
    });
    try {
      const w = await unboundWorker(off);
      await expectProblem(await getConfig(off, w.workspaceId, w.workerId), 404, 'summary-disabled');
      await expectProblem(
        await postConfig(off, w.workspaceId, w.workerId, { enabled: false, deliveryChannel: 'web' }),
        404,
        'summary-disabled',
      );
      expect(off.deps.summaryQueue).toBeNull();
    } finally {
      await off.close();
    }
  });

  it('404 workers-disabled while AI_WORKERS_ENABLED is off', async () => {
    const off = await startTestGateway({
      databaseUrl: g.databaseUrl,
      redis: 'none',
      env: { ...summaryEnv(platform.baseUrl, prefix), AI_WORKERS_ENABLED: 'false' },
    });
    try {
      const w = await unboundWorker(off);
      await expectProblem(await getConfig(off, w.workspaceId, w.workerId), 404, 'workers-disabled');
    } finally {
      await off.close();
    }
  });
});

describe('without Redis', () => {
  it('503 redis-unavailable when nothing listens at REDIS_URL; nothing saved; GET still answers', async () => {
    const port = await freePort();
    const down = await startTestGateway({
      databaseUrl: g.databaseUrl,
      redis: 'none',
      env: { ...summaryEnv(platform.baseUrl, prefix), REDIS_URL: `redis://127.0.0.1:${port}` },
    });
    try {
      const w = await boundWorker(down, tenant);
      const res = await postConfig(down, w.workspaceId, w.workerId, {
        enabled: true,
        deliveryChannel: 'web',
      });
      const p = await expectProblem(res, 503, 'redis-unavailable');
      expect(p.detail).toMatch(/Redis/);
      expect(await down.db.summaryConfig.count({ where: { workerId: w.workerId } })).toBe(0);
      const got = expectContract(
        SummaryConfig,
        await (await getConfig(down, w.workspaceId, w.workerId)).json(),
      );
      expect(got.enabled).toBe(false);
    } finally {
      await down.close();
    }
  });

  describe('a Redis that goes away after start', () => {
    let server: RedisServer;
    let own: TestGateway;
    beforeAll(async () => {
      server = await startRedisServer();
      own = await startTestGateway({
        databaseUrl: g.databaseUrl,
        redis: 'none',
        env: { ...summaryEnv(platform.baseUrl, prefix), REDIS_URL: server.url },
      });
    });
    afterAll(async () => {
      await own?.close();
      await server?.stop();
    });

    it('503 redis-unavailable while it is down, the saved row unchanged; works again once it is back', async () => {
      const w = await boundWorker(own, tenant);
      await configure(own, w, { enabled: true, deliveryChannel: 'web', summarySchedule: '0 7 * * *' });
      await server.stop();
      const res = await postConfig(own, w.workspaceId, w.workerId, {
        enabled: true,
        deliveryChannel: 'web',
        summarySchedule: '0 9 * * *',
      });
      await expectProblem(res, 503, 'redis-unavailable');
      const off = await postConfig(own, w.workspaceId, w.workerId, {
        enabled: false,
        deliveryChannel: 'web',
      });
      await expectProblem(off, 503, 'redis-unavailable');
      const row = await own.db.summaryConfig.findUniqueOrThrow({ where: { workerId: w.workerId } });
      expect(row).toMatchObject({ enabled: true, schedule: '0 7 * * *' });

      await server.start();
      // the queue's connection reconnects by itself: the same change goes through once it has
      const again = await until('the summary queue to reconnect', async () => {
        const r = await postConfig(own, w.workspaceId, w.workerId, {
          enabled: true,
          deliveryChannel: 'web',
          summarySchedule: '0 9 * * *',
        });
        if (r.status === 200) return r;
        await expectProblem(r, 503, 'redis-unavailable');
        return false;
      });
      expect(expectContract(SummaryConfig, await again.json()).summarySchedule).toBe('0 9 * * *');
      const s = await own.deps.summaryQueue!.queue.getJobScheduler(schedulerIdOf(w.workerId));
      expect(s).toMatchObject({ pattern: '0 9 * * *', tz: 'Europe/London' });
    });
  });
});
