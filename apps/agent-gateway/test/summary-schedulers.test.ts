import { randomUUID } from 'node:crypto';
import { createLogger } from '@pa/http-kit';
import { type RedisServer, startRedisServer, until } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSummaryConfigRepository } from '../src/features/daily-summary/summary-config-repository.ts';
import {
  schedulerIdOf,
  SUMMARY_ATTEMPTS,
  SUMMARY_JOB_NAME,
  type SummaryQueue,
} from '../src/features/daily-summary/summary-queue.ts';
import {
  createSummaryScheduling,
  startSummaryReconciler,
} from '../src/features/daily-summary/summary-scheduling.ts';
import { expectProblem, postJson } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway, type TestTenant } from './support/platform.ts';
import {
  boundWorker,
  configure,
  dropQueueKeys,
  summaryEnv,
  uniqueQueuePrefix,
} from './support/summary-config.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// The daily summary's BullMQ job schedulers (docs/daily-summary.md): one per enabled, bound worker, with the id
// summary:<workerId>, following the configuration, the worker's deletion and its binding, and reconciled with the
// database. Real Redis under a queue prefix of this file's own, read back with BullMQ's own getters.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = uniqueQueuePrefix('summary-schedulers');
let platform: PlatformForGateway;
let g: TestGateway;
let tenant: TestTenant;
const silent = createLogger('test', 'silent');
beforeAll(async () => {
  platform = await startPlatformForGateway();
  tenant = await platform.createTenant({ name: 'Scheduler Lettings' });
  g = await startTestGateway({
    redis: 'required',
    env: { ...summaryEnv(platform.baseUrl, prefix), SUMMARY_RETRY_BACKOFF_MS: '1500' },
  });
});
afterAll(async () => {
  await g?.close();
  await platform?.close();
  await dropQueueKeys(REDIS_URL, prefix);
});

const queueOf = (gw: TestGateway): SummaryQueue => gw.deps.summaryQueue!;
const scheduler = (workerId: string, gw = g) => queueOf(gw).queue.getJobScheduler(schedulerIdOf(workerId));
const api = (gw: TestGateway, workspaceId: string, method: string, path: string) =>
  fetch(`${gw.baseUrl}/api/assistant${path}`, { method, headers: { 'X-Workspace-Id': workspaceId } });
/** The delayed jobs of one worker's scheduler (its next run). */
async function nextJobs(workerId: string, gw = g) {
  const delayed = await queueOf(gw).queue.getDelayed(0, -1);
  return delayed.filter((j) => j.repeatJobKey === schedulerIdOf(workerId));
}
const scheduling = (gw: TestGateway) =>
  createSummaryScheduling({
    queue: queueOf(gw),
    configs: createSummaryConfigRepository(gw.db),
    logger: silent,
  });

describe('the job scheduler of a worker', () => {
  it('is created when the summary is turned on: its pattern, zone, job name, data and retry options', async () => {
    const w = await boundWorker(g, tenant);
    const config = await configure(g, w, {
      enabled: true,
      deliveryChannel: 'web',
      summarySchedule: '0 8 * * *',
      timezone: 'Europe/London',
    });
    const s = await scheduler(w.workerId);
    expect(s).toMatchObject({
      key: `summary:${w.workerId}`,
      name: SUMMARY_JOB_NAME,
      pattern: '0 8 * * *',
      tz: 'Europe/London',
      template: {
        data: { workerId: w.workerId },
        opts: { attempts: SUMMARY_ATTEMPTS, backoff: { type: 'exponential', delay: 1500 } },
      },
    });
    expect(new Date(s!.next!).toISOString()).toBe(config.nextRunAt);
    // its next run waits as one delayed job, due at that time
    const jobs = await nextJobs(w.workerId);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.data).toEqual({ workerId: w.workerId });
    expect(jobs[0]!.timestamp + jobs[0]!.delay).toBe(Date.parse(config.nextRunAt!));
  });

  it('is changed, not duplicated, when the schedule or zone changes', async () => {
    const w = await boundWorker(g, tenant);
    await configure(g, w, { enabled: true, deliveryChannel: 'web', summarySchedule: '0 8 * * *' });
    const changed = await configure(g, w, {
      enabled: true,
      deliveryChannel: 'web',
      summarySchedule: '45 6 * * 1-5',
      timezone: 'Asia/Tokyo',
    });
    expect(await scheduler(w.workerId)).toMatchObject({ pattern: '45 6 * * 1-5', tz: 'Asia/Tokyo' });
    const ours = [...(await queueOf(g).schedulers()).keys()].filter((id) => id === w.workerId);
    expect(ours).toHaveLength(1);
    const jobs = await nextJobs(w.workerId);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.timestamp + jobs[0]!.delay).toBe(Date.parse(changed.nextRunAt!));
    expect(
      new Date(changed.nextRunAt!).toLocaleTimeString('en-GB', {
        timeZone: 'Asia/Tokyo',
        timeStyle: 'short',
      }),
    ).toBe('06:45');
  });

  it('is removed with its next job when the summary is turned off', async () => {
    const w = await boundWorker(g, tenant);
    await configure(g, w, { enabled: true, deliveryChannel: 'web' });
    expect(await nextJobs(w.workerId)).toHaveLength(1);
    await configure(g, w, { enabled: false, deliveryChannel: 'web' });
    expect(await scheduler(w.workerId)).toBeUndefined();
    expect(await nextJobs(w.workerId)).toHaveLength(0);
  });

  it('is removed when the worker is deleted', async () => {
    const w = await boundWorker(g, tenant);
    await configure(g, w, { enabled: true, deliveryChannel: 'web' });
    expect((await api(g, w.workspaceId, 'DELETE', `/workers/${w.workerId}`)).status).toBe(204);
    expect(await scheduler(w.workerId)).toBeUndefined();
    expect(await nextJobs(w.workerId)).toHaveLength(0);
  });

  it('is removed when the worker is unbound, and comes back when it is bound again (still enabled)', async () => {
    const w = await boundWorker(g, tenant);
    await configure(g, w, { enabled: true, deliveryChannel: 'web', summarySchedule: '0 7 * * *' });
    const unbound = await api(g, w.workspaceId, 'DELETE', `/workers/${w.workerId}/platform/bind`);
    expect(unbound.status, await unbound.clone().text()).toBe(200);
    expect(await scheduler(w.workerId)).toBeUndefined();
    // the configuration stays on, but with no scheduler there is no next run
    const got = await (
      await fetch(`${g.baseUrl}/api/assistant/email/summary/config/${w.workerId}`, {
        headers: { 'X-Workspace-Id': w.workspaceId },
      })
    ).json();
    expect(got).toMatchObject({ enabled: true, nextRunAt: null });

    const rebound = await postJson(
      g.baseUrl,
      `/api/assistant/workers/${w.workerId}/platform/bind`,
      { tenantSlug: tenant.slug, apiKey: tenant.key },
      { 'X-Workspace-Id': w.workspaceId },
    );
    expect(rebound.status, await rebound.clone().text()).toBe(200);
    expect(await scheduler(w.workerId)).toMatchObject({ pattern: '0 7 * * *', tz: 'Europe/London' });
  });

  it('is not created by binding a worker whose summary is off', async () => {
    const w = await boundWorker(g, tenant);
    await configure(g, w, { enabled: false, deliveryChannel: 'web' });
    const rebound = await postJson(
      g.baseUrl,
      `/api/assistant/workers/${w.workerId}/platform/bind`,
      { tenantSlug: tenant.slug, apiKey: tenant.key },
      { 'X-Workspace-Id': w.workspaceId },
    );
    expect(rebound.status).toBe(200);
    expect(await scheduler(w.workerId)).toBeUndefined();
  });
});

describe('two app instances on the same database, Redis and prefix', () => {
  it('make one scheduler and one next job per worker, whichever configures or reconciles', async () => {
    const second = await startTestGateway({
      databaseUrl: g.databaseUrl,
      secretKey: g.deps.secretKey,
      redis: 'required',
      env: { ...summaryEnv(platform.baseUrl, prefix), SUMMARY_RETRY_BACKOFF_MS: '1500' },
    });
    try {
      const workers = [await boundWorker(g, tenant), await boundWorker(second, tenant)];
      // each instance configures both workers, at the same time
      await Promise.all(
        [g, second].flatMap((gw) =>
          workers.map((w) =>
            configure(gw, w, { enabled: true, deliveryChannel: 'web', summarySchedule: '0 8 * * *' }),
          ),
        ),
      );
      // and both reconcile at once, as two processes starting together do
      await Promise.all([scheduling(g).reconcile(), scheduling(second).reconcile()]);
      const all = await queueOf(second).queue.getJobSchedulers(0, -1);
      for (const w of workers) {
        expect(all.filter((s) => s.key === schedulerIdOf(w.workerId))).toHaveLength(1);
        expect(await nextJobs(w.workerId, second)).toHaveLength(1);
      }
    } finally {
      await second.close();
    }
  });
});

describe('reconciliation with the database', () => {
  it('recreates a scheduler removed behind the app’s back', async () => {
    const w = await boundWorker(g, tenant);
    await configure(g, w, { enabled: true, deliveryChannel: 'web', summarySchedule: '10 8 * * *' });
    await queueOf(g).queue.removeJobScheduler(schedulerIdOf(w.workerId));
    expect(await scheduler(w.workerId)).toBeUndefined();
    const report = await scheduling(g).reconcile();
    expect(report.created).toContain(w.workerId);
    expect(await scheduler(w.workerId)).toMatchObject({ pattern: '10 8 * * *', tz: 'Europe/London' });
    expect(await nextJobs(w.workerId)).toHaveLength(1);
  });

  it('puts back a scheduler changed behind the app’s back', async () => {
    const w = await boundWorker(g, tenant);
    await configure(g, w, { enabled: true, deliveryChannel: 'web', summarySchedule: '20 8 * * *' });
    await queueOf(g).queue.upsertJobScheduler(
      schedulerIdOf(w.workerId),
      { pattern: '* * * * *', tz: 'UTC' },
      { name: SUMMARY_JOB_NAME, data: { workerId: w.workerId } },
    );
    const report = await scheduling(g).reconcile();
    expect(report.updated).toContain(w.workerId);
    expect(await scheduler(w.workerId)).toMatchObject({
      pattern: '20 8 * * *',
      tz: 'Europe/London',
      template: { opts: { attempts: SUMMARY_ATTEMPTS } },
    });
    expect(await nextJobs(w.workerId)).toHaveLength(1);
  });

  it('removes orphans: a worker gone, a summary turned off or a worker unbound in the database alone', async () => {
    const gone = await boundWorker(g, tenant);
    const disabled = await boundWorker(g, tenant);
    const unbound = await boundWorker(g, tenant);
    const kept = await boundWorker(g, tenant);
    for (const w of [gone, disabled, unbound, kept])
      await configure(g, w, { enabled: true, deliveryChannel: 'web' });
    // changes made straight in the database, which the hooks did not see
    await g.db.worker.delete({ where: { id: gone.workerId } });
    await g.db.summaryConfig.update({ where: { workerId: disabled.workerId }, data: { enabled: false } });
    await g.db.platformBinding.delete({ where: { workerId: unbound.workerId } });
    // and a scheduler for a worker this database never had
    const stranger = randomUUID();
    await queueOf(g).queue.upsertJobScheduler(
      schedulerIdOf(stranger),
      { pattern: '0 8 * * *', tz: 'Europe/London' },
      { name: SUMMARY_JOB_NAME, data: { workerId: stranger } },
    );

    const report = await scheduling(g).reconcile();
    expect(report.removed).toEqual(
      expect.arrayContaining([gone.workerId, disabled.workerId, unbound.workerId, stranger]),
    );
    for (const id of [gone.workerId, disabled.workerId, unbound.workerId, stranger]) {
      expect(await scheduler(id), id).toBeUndefined();
      expect(await nextJobs(id), id).toHaveLength(0);
    }
    expect(report.removed).not.toContain(kept.workerId);
    expect(await scheduler(kept.workerId)).toBeDefined();
    // a second pass has nothing left to do
    const again = await scheduling(g).reconcile();
    expect(again).toMatchObject({ created: [], updated: [], removed: [] });
    expect(again.unchanged).toBe(
      await g.db.summaryConfig.count({ where: { enabled: true, worker: { binding: { isNot: null } } } }),
    );
  });

  it('leaves schedulers that are not the summary’s alone', async () => {
    await queueOf(g).queue.upsertJobScheduler('other:job', { every: 3_600_000 }, { name: 'other' });
    await scheduling(g).reconcile();
    expect(await queueOf(g).queue.getJobScheduler('other:job')).toBeDefined();
    await queueOf(g).queue.removeJobScheduler('other:job');
  });
});

describe('the reconciler (main.ts and worker.ts)', () => {
  let server: RedisServer;
  let own: TestGateway;
  beforeAll(async () => {
    server = await startRedisServer();
    own = await startTestGateway({
      databaseUrl: g.databaseUrl,
      secretKey: g.deps.secretKey,
      redis: 'none',
      env: { ...summaryEnv(platform.baseUrl, prefix), REDIS_URL: server.url },
    });
  });
  afterAll(async () => {
    await own?.close();
    await server?.stop();
  });

  it('reconciles at start, and again when Redis comes back empty after a crash', async () => {
    const w = await boundWorker(own, tenant);
    // saved while no reconciler runs, then its scheduler lost behind the app's back
    await configure(own, w, { enabled: true, deliveryChannel: 'web', summarySchedule: '5 8 * * *' });
    await queueOf(own).unschedule(w.workerId);

    const reconciler = startSummaryReconciler({
      scheduling: scheduling(own),
      queue: queueOf(own),
      logger: silent,
    });
    try {
      await reconciler.first;
      expect(await scheduler(w.workerId, own)).toMatchObject({ pattern: '5 8 * * *' });

      // Redis dies and comes back with nothing (no persistence): every scheduler is gone
      await server.stop();
      await server.start();
      await until('the scheduler to be restored', async () =>
        queueOf(own).ready() ? scheduler(w.workerId, own) : false,
      );
      expect(await scheduler(w.workerId, own)).toMatchObject({ pattern: '5 8 * * *', tz: 'Europe/London' });
    } finally {
      reconciler.stop();
    }
  });

  it('started while Redis is down, reconciles as soon as it is up', async () => {
    const w = await boundWorker(own, tenant);
    await configure(own, w, { enabled: true, deliveryChannel: 'web', summarySchedule: '25 8 * * *' });
    await server.stop();
    await until('the queue to see Redis gone', () => !queueOf(own).ready());
    const reconciler = startSummaryReconciler({
      scheduling: scheduling(own),
      queue: queueOf(own),
      logger: silent,
    });
    try {
      await reconciler.first;
      expect(queueOf(own).ready()).toBe(false);
      await server.start(); // empty: the scheduler saved above is gone with the old server
      await until('the scheduler to be reconciled', async () =>
        queueOf(own).ready() ? scheduler(w.workerId, own) : false,
      );
      expect(await scheduler(w.workerId, own)).toMatchObject({ pattern: '25 8 * * *' });
    } finally {
      reconciler.stop();
    }
  });

  it('answers 503 redis-unavailable from the queue while Redis is down, and a deleted worker still goes', async () => {
    const w = await boundWorker(own, tenant);
    await configure(own, w, { enabled: true, deliveryChannel: 'web' });
    await server.stop();
    try {
      await expect(queueOf(own).schedulers()).rejects.toMatchObject({ code: 'redis-unavailable' });
      // deleting the worker does not wait for Redis: its scheduler is left for reconciliation to remove
      expect((await api(own, w.workspaceId, 'DELETE', `/workers/${w.workerId}`)).status).toBe(204);
      expect(await own.db.worker.count({ where: { id: w.workerId } })).toBe(0);
      await expectProblem(
        await postJson(
          own.baseUrl,
          `/api/assistant/email/summary/config/${w.workerId}`,
          { enabled: false, deliveryChannel: 'web' },
          { 'X-Workspace-Id': w.workspaceId },
        ),
        404,
        'worker-not-found',
      );
    } finally {
      await server.start();
    }
  });
});
