import { randomBytes } from 'node:crypto';
import type { ComplianceResponse, EmailActivity, PortfolioProperty } from '@pa/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPlatformBridgeClient,
  type PlatformBridgeClient,
} from '../src/clients/bridge/platform-bridge-client.ts';
import {
  processSummaryJob,
  slotOf,
  type SummaryJobLike,
  type SummaryProcessorDeps,
} from '../src/features/daily-summary/summary-processor.ts';
import { composeGateway } from '../src/compose/gateway.ts';
import { type BoundWorker, bindWorker } from './support/bound-worker.ts';
import { type BridgeProxy, startBridgeProxy } from './support/bridge-proxy.ts';
import { channelWorker, connectTelegram, pairChat, startChannelGateway } from './support/channels.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { GATEWAY_BACKENDS, type TestGateway } from './support/test-app.ts';
import { scaled } from '@pa/http-kit/testing';

// The daily summary's processor as a plain function of the job, against the REAL platform bridge's
// demo tenant (behind a loopback proxy that counts the calls and injects failures), the real database, and the
// fake Telegram Bot API for channel delivery. No queue here: summary-runs.test.ts runs it under BullMQ.

describe.each(GATEWAY_BACKENDS)('summary runs on %s', (_name, backend) => {
  let platform: PlatformForGateway;
  let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
  let proxy: BridgeProxy;
  let fake: FakeTelegram;
  let g: TestGateway;
  let direct: PlatformBridgeClient;
  let deliveries: { workerId: string; channel: string; briefing: string }[];
  let deps: SummaryProcessorDeps;

  const ENV = {
    AI_WORKERS_ENABLED: 'true',
    PLATFORM_BRIDGE_ENABLED: 'true',
    ASSISTANT_DAILY_SUMMARY_ENABLED: 'true',
  };

  beforeAll(async () => {
    platform = await startPlatformForGateway({ rateLimitPerMin: 100_000 });
    demo = await platform.seedDemo();
    proxy = await startBridgeProxy(platform.baseUrl);
    fake = await FakeTelegram.start();
    g = await startChannelGateway(fake, { backend, env: { ...ENV, PLATFORM_BASE_URL: proxy.baseUrl } });
    direct = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(demo.key);
    const real = composeGateway(g.deps).summaryProcessor;
    deps = {
      ...real,
      // counts what leaves, then delivers for real
      deliver: async (workerId, channel, briefing) => {
        await real.deliver(workerId, channel, briefing);
        deliveries.push({ workerId, channel, briefing });
      },
    };
  }, scaled(60_000));
  afterAll(async () => {
    await g?.close();
    await fake?.close();
    await proxy?.close();
    await platform?.close();
  });
  beforeEach(() => {
    deliveries = [];
  });

  async function enabledWorker(channel = 'web'): Promise<BoundWorker> {
    const worker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
    await g.db.summaryConfig.create({
      data: {
        workerId: worker.workerId,
        enabled: true,
        deliveryChannel: channel,
        schedule: '0 8 * * *',
        timezone: 'Europe/London',
      },
    });
    return worker;
  }

  /** A job as the scheduler makes it: added ahead of its slot, fired at it. */
  function scheduledJob(workerId: string, slot: string, attemptsMade = 0): SummaryJobLike {
    const at = Date.parse(slot);
    return {
      id: `repeat:summary:${workerId}:${at}`,
      data: { workerId },
      timestamp: at - 60_000,
      attemptsMade,
      attemptsStarted: attemptsMade + 1,
      opts: { attempts: 3, delay: 60_000, prevMillis: at, repeatJobKey: `summary:${workerId}` },
    };
  }

  const runsOf = (workerId: string) => g.db.summaryRun.findMany({ where: { workerId } });

  describe('a scheduled run against the real bridge', () => {
    it('writes a briefing of the bridge’s own facts, delivers it on the web and records the run', async () => {
      const worker = await enabledWorker();
      const before = proxy.requests.length;
      const outcome = await processSummaryJob(scheduledJob(worker.workerId, '2026-06-15T07:00:00Z'), deps);
      expect(outcome).toMatchObject({ status: 'delivered' });
      const calls = proxy.requests.length - before;
      expect(outcome.status === 'delivered' && outcome.bridgeCalls).toBe(calls);

      const [run] = await runsOf(worker.workerId);
      expect(run).toMatchObject({
        trigger: 'schedule',
        status: 'delivered',
        attempts: 1,
        deliveryChannel: 'web',
        error: null,
      });
      expect(run!.scheduledFor.toISOString()).toBe('2026-06-15T07:00:00.000Z');
      expect(run!.startedAt).not.toBeNull();
      expect(run!.finishedAt!.getTime()).toBeGreaterThanOrEqual(run!.startedAt!.getTime());
      expect(deliveries).toEqual([{ workerId: worker.workerId, channel: 'web', briefing: run!.briefing }]);

      const briefing = run!.briefing!;
      expect(briefing.length).toBeGreaterThan(200);
      expect(briefing.length).toBeLessThanOrEqual(4000);

      // the facts, checked against what the bridge itself answers
      const portfolio = await direct.getPortfolio({ limit: 500 });
      expect(briefing).toContain(portfolio.tenant.name);
      expect(briefing).toContain('15 Jun 2026');
      const byId = new Map<number, PortfolioProperty>(portfolio.properties.map((p) => [p.id, p]));
      const notValid = portfolio.properties.filter((p) => p.compliance_status !== 'valid');
      const compliance: ComplianceResponse[] = await Promise.all(
        notValid.map((p) => direct.getCompliance(p.id)),
      );
      // every expired gas, electrical and alarm item the bridge reports is named, never cut, safety first
      const SAFETY = {
        gas_safety: 'Gas safety',
        eicr: 'EICR',
        smoke_co_alarms: 'Smoke and CO alarms',
      } as const;
      const expiredSafety = compliance.flatMap((c) =>
        c.items
          .filter((i) => i.status === 'expired' && i.type in SAFETY)
          .map((i) => `- **${byId.get(c.property_id)!.ref}** ${SAFETY[i.type as keyof typeof SAFETY]}`),
      );
      expect(expiredSafety.length).toBeGreaterThan(0);
      const safetyLines = listed(briefing, 'Safety: gas, electrical, smoke and CO alarms');
      for (const start of expiredSafety)
        expect(
          safetyLines.some((l) => l.startsWith(start)),
          start,
        ).toBe(true);
      expect(briefing.indexOf('**Safety')).toBeLessThan(briefing.indexOf('**Other certificates'));

      // every arrears line is a property's arrears as the bridge states them, with how they moved in 30 days
      // (arrears_30_days_ago_pence), those that grew first, then the largest first
      const rise = (p: (typeof portfolio.properties)[number]) =>
        p.arrears_30_days_ago_pence === null ? 0 : Math.max(0, p.arrears_pence - p.arrears_30_days_ago_pence);
      const inArrears = portfolio.properties
        .filter((p) => p.arrears_pence > 0)
        .sort((a, b) => rise(b) - rise(a) || b.arrears_pence - a.arrears_pence);
      expect(inArrears.length).toBeGreaterThan(0);
      expect(rise(inArrears[0]!)).toBeGreaterThan(0);
      const stateOf = (p: (typeof inArrears)[number]) => {
        const before = p.arrears_30_days_ago_pence;
        const now = pounds(p.arrears_pence);
        if (before === null) return `${now} owed`;
        if (before === p.arrears_pence) return `${now} owed, unchanged in 30 days`;
        const moved = p.arrears_pence > before ? 'up' : 'down';
        return `${moved} ${pounds(Math.abs(p.arrears_pence - before))} in 30 days, now ${now}`;
      };
      const arrearsLines = listed(briefing, 'Rent arrears', inArrears.length);
      const stated = new Set(inArrears.map((p) => `- **${p.ref}** ${stateOf(p)}`));
      for (const line of arrearsLines) expect(stated).toContain(line);
      expect(arrearsLines[0]).toBe(`- **${inArrears[0]!.ref}** ${stateOf(inArrears[0]!)}`);

      // the open deals whose next action is overdue or due within 7 days of the platform's today, with their ref
      const deals = (await direct.getDeals({ status: 'open', limit: 500 })).deals;
      const due = deals.filter(
        (d) => d.next_action && d.next_action_due && d.next_action_due <= '2026-06-22',
      );
      expect(due.length).toBeGreaterThan(0);
      const dealLines = listed(briefing, 'Deal actions', due.length);
      for (const line of dealLines) {
        const deal = due.find((d) => line.includes(d.next_action!.slice(0, 15)));
        expect(deal, line).toBeDefined();
        if (deal!.property_id) expect(line).toContain(`- **${byId.get(deal!.property_id)!.ref}** `);
      }

      const emails = (await direct.getEmailActivity({ hours: 24 })).items;
      const awaiting = emails.filter(
        (e) =>
          e.direction === 'inbound' &&
          e.requires_response &&
          !emails.some(
            (o: EmailActivity) =>
              o.direction === 'outbound' && o.thread_id === e.thread_id && o.received_at > e.received_at,
          ),
      );
      expect(awaiting.length).toBeGreaterThan(0);
      const emailLines = listed(briefing, 'Email awaiting a reply', awaiting.length);
      for (const line of emailLines) {
        expect(
          awaiting.some((e) => line.includes(e.subject.slice(0, 30))),
          line,
        ).toBe(true);
      }
    });

    it('reads the bridge in five calls, however many properties are let: the portfolio, open deals, a day of email, the compliance and the tenant copies owed', async () => {
      const worker = await enabledWorker();
      const before = proxy.requests.length;
      const outcome = await processSummaryJob(scheduledJob(worker.workerId, '2026-06-15T07:00:00Z'), deps);
      expect(outcome).toEqual({ status: 'delivered', runId: expect.any(String), bridgeCalls: 5 });
      // counted at the bridge (the proxy in front of it): no compliance read per property any more
      const paths = proxy.requests.slice(before).map((r) => r.path.replace(/\?.*$/, ''));
      expect(paths.sort()).toEqual([
        '/api/assistant-bridge/compliance/tenant-copies',
        '/api/assistant-bridge/deals',
        '/api/assistant-bridge/email-activity',
        '/api/assistant-bridge/portfolio',
        '/api/assistant-bridge/portfolio/compliance',
      ]);
      const let_ = (await direct.getPortfolio({ limit: 500 })).properties.filter(
        (p) => p.tenancy_status === 'active' || p.tenancy_status === 'notice_given',
      );
      expect(let_.length).toBeGreaterThan(5);
    });
  });

  describe('one run per worker and slot', () => {
    it('two processes handed the same job at once: one run, one delivery', async () => {
      const worker = await enabledWorker();
      const job = scheduledJob(worker.workerId, '2026-06-16T07:00:00Z');
      const outcomes = await Promise.all([processSummaryJob(job, deps), processSummaryJob(job, deps)]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['delivered', 'not-claimed']);
      expect(outcomes[0]!.runId).toBe(outcomes[1]!.runId);
      expect(deliveries).toHaveLength(1);
      // and once it has ended, the same job again does nothing
      expect(await processSummaryJob(job, deps)).toMatchObject({ status: 'not-claimed' });
      const runs = await runsOf(worker.workerId);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    });

    it('another slot of the same worker is another run', async () => {
      const worker = await enabledWorker();
      await processSummaryJob(scheduledJob(worker.workerId, '2026-06-16T07:00:00Z'), deps);
      await processSummaryJob(scheduledJob(worker.workerId, '2026-06-17T07:00:00Z'), deps);
      expect(deliveries).toHaveLength(2);
      expect((await runsOf(worker.workerId)).map((r) => r.scheduledFor.toISOString()).sort()).toEqual([
        '2026-06-16T07:00:00.000Z',
        '2026-06-17T07:00:00.000Z',
      ]);
    });
  });

  describe('failures', () => {
    it('a bridge 5xx fails the attempt (the run waits, queued, with why); the retry delivers once', async () => {
      const worker = await enabledWorker();
      // the client's own retries (two) see 503 too, so the whole attempt fails
      proxy.script(...Array.from({ length: 3 }, () => ({ status: 503, code: 'unavailable' })));
      const first = scheduledJob(worker.workerId, '2026-06-18T07:00:00Z', 0);
      await expect(processSummaryJob(first, deps)).rejects.toThrow(/could not be reached.*HTTP 503/);
      const [waiting] = await runsOf(worker.workerId);
      expect(waiting).toMatchObject({ status: 'queued', attempts: 1, briefing: null });
      expect(waiting!.error).toMatch(
        /^attempt 1 of 3 failed: platform-get-portfolio failed: the platform could not be reached/,
      );
      expect(deliveries).toHaveLength(0);

      const retry = scheduledJob(worker.workerId, '2026-06-18T07:00:00Z', 1);
      expect(await processSummaryJob(retry, deps)).toMatchObject({ status: 'delivered' });
      expect(deliveries).toHaveLength(1);
      const [run] = await runsOf(worker.workerId);
      expect(run).toMatchObject({ status: 'delivered', attempts: 2, error: null });
      expect(run!.briefing).toContain('Daily briefing');
    });

    it('after the last attempt the run is failed, with the reason in words (no stack, no key)', async () => {
      const worker = await enabledWorker();
      const slot = '2026-06-19T07:00:00Z';
      for (let made = 0; made < 3; made++) {
        proxy.script(...Array.from({ length: 3 }, () => ({ status: 502, code: 'bad-gateway' })));
        await expect(processSummaryJob(scheduledJob(worker.workerId, slot, made), deps)).rejects.toThrow();
      }
      const [run] = await runsOf(worker.workerId);
      expect(run).toMatchObject({ status: 'failed', attempts: 3, briefing: null });
      expect(run!.error).toMatch(
        /the platform could not be reached \(server-error, HTTP 502\).*\(after 3 attempts\)$/,
      );
      expect(run!.error).not.toMatch(/\bat \w+ \(|Error:|plat_/);
      expect(run!.error).not.toContain(demo.key);
      expect(run!.finishedAt).not.toBeNull();
      expect(deliveries).toHaveLength(0);
    });

    it('a key the platform refuses fails at once: retrying cannot help', async () => {
      const worker = await enabledWorker();
      proxy.script({ status: 401, code: 'invalid-key' });
      await expect(
        processSummaryJob(scheduledJob(worker.workerId, '2026-06-20T07:00:00Z'), deps),
      ).rejects.toMatchObject({ name: 'UnrecoverableError' });
      const [run] = await runsOf(worker.workerId);
      expect(run).toMatchObject({ status: 'failed', attempts: 1 });
      expect(run!.error).toMatch(/refused the API key/);
    });

    it('a key sealed with another GATEWAY_SECRET_KEY fails at once, saying so', async () => {
      const worker = await enabledWorker();
      // the same database opened with another secret key, as after GATEWAY_SECRET_KEY was changed
      const other = { ...g.deps, secretKey: randomBytes(32) };
      const before = proxy.requests.length;
      await expect(
        processSummaryJob(
          scheduledJob(worker.workerId, '2026-06-20T07:30:00Z'),
          composeGateway(other).summaryProcessor,
        ),
      ).rejects.toMatchObject({ name: 'UnrecoverableError' });
      expect(proxy.requests.length).toBe(before);
      const [run] = await runsOf(worker.workerId);
      expect(run).toMatchObject({ status: 'failed', attempts: 1 });
      expect(run!.error).toBe(
        'the stored platform key could not be opened (was GATEWAY_SECRET_KEY changed?): bind the assistant again.',
      );
    });

    it('a worker whose binding was removed is skipped, with why', async () => {
      const worker = await enabledWorker();
      const res = await fetch(`${g.baseUrl}/api/assistant/workers/${worker.workerId}/platform/bind`, {
        method: 'DELETE',
        headers: { 'X-Workspace-Id': worker.workspaceId },
      });
      expect(res.status).toBe(200);
      const before = proxy.requests.length;
      expect(
        await processSummaryJob(scheduledJob(worker.workerId, '2026-06-21T07:00:00Z'), deps),
      ).toMatchObject({ status: 'skipped', reason: 'the worker is no longer bound to a platform tenant.' });
      expect(proxy.requests.length).toBe(before);
      const [run] = await runsOf(worker.workerId);
      expect(run).toMatchObject({
        status: 'skipped',
        error: 'the worker is no longer bound to a platform tenant.',
      });
      expect(deliveries).toHaveLength(0);
    });

    it('a scheduled job of a summary turned off meanwhile is skipped; a deleted worker leaves nothing', async () => {
      const worker = await enabledWorker();
      await g.db.summaryConfig.update({ where: { workerId: worker.workerId }, data: { enabled: false } });
      expect(
        await processSummaryJob(scheduledJob(worker.workerId, '2026-06-22T07:00:00Z'), deps),
      ).toMatchObject({ status: 'skipped', reason: 'the daily summary was turned off for this worker.' });

      await g.db.worker.delete({ where: { id: worker.workerId } });
      expect(await processSummaryJob(scheduledJob(worker.workerId, '2026-06-23T07:00:00Z'), deps)).toEqual({
        status: 'gone',
        runId: null,
      });
      expect(await runsOf(worker.workerId)).toEqual([]);
    });
  });

  describe('delivery on Telegram', () => {
    it('sends the briefing to the chat paired with the worker’s Telegram channel, and keeps it with the run', async () => {
      const bound = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
      const worker = await channelWorker(g, bound);
      const bot = fake.addBot();
      const channel = await connectTelegram(worker, bot);
      await pairChat(fake, bot, 640_001, channel.pairingCode!);
      await g.db.summaryConfig.create({
        data: {
          workerId: bound.workerId,
          enabled: true,
          deliveryChannel: 'telegram',
          schedule: '0 8 * * *',
          timezone: 'Europe/London',
        },
      });
      const before = fake.messagesTo(640_001).length;
      expect(
        await processSummaryJob(scheduledJob(bound.workerId, '2026-06-15T07:00:00Z'), deps),
      ).toMatchObject({ status: 'delivered' });
      const sent = fake.messagesTo(640_001).slice(before);
      expect(sent.length).toBeGreaterThanOrEqual(1);
      const text = sent.map((m) => m.text).join('\n');
      expect(text).toContain('Daily briefing');
      expect(text).toContain(demo.tenant.name);
      const [run] = await runsOf(bound.workerId);
      expect(run).toMatchObject({ status: 'delivered', deliveryChannel: 'telegram' });
      expect(run!.briefing).toContain('Daily briefing');
    });

    it('a Telegram summary without a paired chat fails at once, saying so', async () => {
      const worker = await enabledWorker('telegram');
      await expect(
        processSummaryJob(scheduledJob(worker.workerId, '2026-06-15T07:00:00Z'), deps),
      ).rejects.toMatchObject({ name: 'UnrecoverableError' });
      const [run] = await runsOf(worker.workerId);
      expect(run).toMatchObject({ status: 'failed', attempts: 1 });
      expect(run!.error).toBe(
        'the worker has no telegram chat paired to deliver to: connect the channel and pair a chat, or deliver on the web.',
      );
    });
  });

  describe('the slot of a job', () => {
    it('is the scheduler’s fire time, else the time in its id, else when it was due', () => {
      const base = { data: { workerId: 'w' }, attemptsMade: 0, timestamp: 1_000 };
      expect(slotOf({ ...base, opts: { prevMillis: 1_781_506_800_000 } }).toISOString()).toBe(
        '2026-06-15T07:00:00.000Z',
      );
      expect(slotOf({ ...base, id: 'repeat:summary:w:1781506800000', opts: {} }).toISOString()).toBe(
        '2026-06-15T07:00:00.000Z',
      );
      expect(slotOf({ ...base, opts: { delay: 500 } }).getTime()).toBe(1_500);
    });
  });

  /**
   * The items a briefing lists under a heading: the heading counts `total`, the first ten are listed, the rest are
   * "and N more".
   */
  /** The lines of a section; with `total`, its heading counts them all and what is not shown says how to see it. */
  function listed(briefing: string, title: string, total?: number): string[] {
    const start = briefing.indexOf(`**${title}`);
    expect(start, `section "${title}" in:\n${briefing}`).toBeGreaterThanOrEqual(0);
    const next = briefing.indexOf('\n**', start + 2);
    const [heading, ...lines] = briefing
      .slice(start, next === -1 ? undefined : next)
      .trim()
      .split('\n');
    const more = /^- and (\d+) more: ask “[^”]+”$/;
    const items = lines.filter((l) => l.startsWith('- ') && !more.test(l));
    if (total !== undefined) {
      expect(heading).toMatch(new RegExp(`\\(${total}\\)\\*\\*$`));
      const left = Number(more.exec(lines.at(-1) ?? '')?.[1] ?? 0);
      expect(items.length + left).toBe(total);
    }
    return items;
  }

  /** £1,395 or £1,395.50, written here independently of the briefing's own formatter. */
  function pounds(pence: number): string {
    const whole = pence % 100 === 0;
    return `£${(pence / 100).toLocaleString('en-GB', {
      minimumFractionDigits: whole ? 0 : 2,
      maximumFractionDigits: whole ? 0 : 2,
    })}`;
  }
});
