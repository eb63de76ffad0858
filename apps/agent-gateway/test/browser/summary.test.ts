import { randomBytes } from 'node:crypto';
import { type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformBridgeClient } from '../../src/clients/bridge/platform-bridge-client.ts';
import { composeGateway } from '../../src/compose/gateway.ts';
import { startWorkerProcess, type WorkerProcess } from '../../src/compose/worker-process.ts';
import { bindWorker, type BoundWorker } from '../support/bound-worker.ts';
import { type PlatformForGateway, startPlatformForGateway } from '../support/platform.ts';
import { saveSettingsScreenshots } from '../support/settings-screenshots.ts';
import { dropQueueKeys, summaryEnv, uniqueQueuePrefix } from '../support/summary-config.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';
import {
  BrowserHarness,
  DEFAULT_VIEWPORT,
  type DeviceOptions,
  expectNoPageProblems,
  PHONE_VIEWPORT,
  scaled,
  type Viewport,
} from '@pa/http-kit/testing';
import { expectFitsScreen } from '../support/phone-fit.ts';

// The Settings tab's daily briefing in a real browser against the real gateway (its queue on the real
// Redis under this file's own prefix, the worker process running) and the REAL platform-bridge's demo tenant.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = uniqueQueuePrefix('browser-summary');
let browser: BrowserHarness;
let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let setup: TestGateway; // owns the database; bound the worker
let gateway: TestGateway; // the gateway under test, WEB_WORKER_ID set
let off: TestGateway; // the same database with the daily summary turned off
let processes: WorkerProcess;
let worker: BoundWorker;

beforeAll(async () => {
  [browser, platform] = await Promise.all([BrowserHarness.launch(), startPlatformForGateway()]);
  demo = await platform.seedDemo();
  const env = summaryEnv(platform.baseUrl, prefix);
  // one secret key for the three gateways: the platform key sealed by one is opened by another
  const secretKey = randomBytes(32);
  setup = await startTestGateway({ redis: 'required', env, secretKey });
  worker = await bindWorker(setup, { slug: demo.tenant.slug, key: demo.key });
  gateway = await startTestGateway({
    redis: 'required',
    databaseUrl: setup.databaseUrl,
    secretKey,
    env: { ...env, WEB_WORKER_ID: worker.workerId },
  });
  off = await startTestGateway({
    redis: 'required',
    databaseUrl: setup.databaseUrl,
    secretKey,
    env: { ...env, ASSISTANT_DAILY_SUMMARY_ENABLED: 'false', WEB_WORKER_ID: worker.workerId },
  });
  processes = startWorkerProcess(composeGateway(gateway.deps), { scanMs: 60_000 });
}, scaled(90_000));

afterAll(async () => {
  await browser?.close();
  await processes?.stop();
  await off?.close();
  await gateway?.close();
  await setup?.close(); // owns the database: last
  await platform?.close();
  await dropQueueKeys(REDIS_URL, prefix);
});

afterEach(async () => {
  expectNoPageProblems(await browser.endTest());
});

async function openSettings(
  target: TestGateway = gateway,
  viewport: Viewport = DEFAULT_VIEWPORT,
  extra: DeviceOptions = {},
): Promise<Page> {
  const page = await browser.openPage(`${target.baseUrl}/`, viewport, extra);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect.poll(() => page.locator('#settings-root').getAttribute('aria-busy')).toBe('false');
  return page;
}

const section = (page: Page) => page.getByRole('region', { name: 'Daily briefing' });
const settled = async (page: Page) => {
  await expect.poll(() => section(page).getAttribute('aria-busy')).toBe('false');
  return section(page);
};

describe('settings tab: daily briefing', () => {
  it('says so in one line when daily briefings are turned off on the gateway', async () => {
    const page = await openSettings(off);
    const s = await settled(page);
    expect(await s.textContent()).toContain('Daily briefings are turned off in this installation of Porter.');
    expect(await s.locator('form').count()).toBe(0);
    await saveSettingsScreenshots(page, 'summary-off');
  });

  it(
    'saves the schedule and shows the next briefing in words; a bad custom schedule is refused in words',
    async () => {
      const page = await openSettings();
      const s = await settled(page);
      expect(await s.getByLabel('Send me a daily briefing').isChecked()).toBe(false);
      expect(await s.locator('[data-summary-next]').textContent()).toBe('Daily briefings are off.');
      await saveSettingsScreenshots(page, 'summary-not-set');

      await s.getByLabel('Send me a daily briefing').check();
      await s.getByLabel('Hour (24-hour clock)').selectOption('07');
      await s.getByLabel('Minutes').selectOption('30');
      await s.getByLabel('On', { exact: true }).selectOption('weekdays');
      await s.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => s.getByRole('status').first().textContent()).toBe('Saved.');
      // what the server kept and when it says the next one is, in London time
      const saved = (await (
        await fetch(`${gateway.baseUrl}/api/assistant/email/summary/config/${worker.workerId}`, {
          headers: { 'X-Workspace-Id': worker.workspaceId },
        })
      ).json()) as { enabled: boolean; summarySchedule: string; timezone: string; nextRunAt: string };
      expect(saved).toMatchObject({
        enabled: true,
        summarySchedule: '30 7 * * 1-5',
        timezone: 'Europe/London',
      });
      const next = new Date(saved.nextRunAt);
      const day = next.toLocaleDateString('en-GB', {
        timeZone: 'Europe/London',
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
      });
      expect(await s.locator('[data-summary-next]').textContent()).toBe(
        `Next briefing: ${day} at 07:30 (London time), on this page.`,
      );
      await saveSettingsScreenshots(page, 'summary-on');

      browser.allowConsoleErrors(/status of 400/); // the refused schedule
      // A custom schedule under Advanced, wrong: the error in words, at the field, nothing changed.
      await s.locator('.summary-advanced > summary').click();
      await s.getByLabel('Schedule (cron expression)').fill('0 25 * * *');
      await s.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(() => s.getByRole('status').first().textContent())
        .toMatch(/^The schedule (is not|must be) .+\.$/);
      expect(await s.getByLabel('Schedule (cron expression)').getAttribute('aria-invalid')).toBe('true');
      expect(await s.getByLabel('On', { exact: true }).inputValue()).toBe('custom');
      await saveSettingsScreenshots(page, 'summary-error');
    },
    scaled(60_000),
  );

  it(
    'sends a briefing now and shows it with the bridge’s own facts',
    async () => {
      const page = await openSettings();
      const s = await settled(page);
      await s.getByRole('button', { name: 'Send a briefing now' }).click();
      await expect
        .poll(() => s.getByRole('status').nth(1).textContent(), { timeout: scaled(30_000) })
        .toBe('Briefing sent: it is below.');
      const newest = s.locator('.summary-run').first();
      expect(await newest.locator('.summary-run-status').textContent()).toBe('Sent');
      const briefing = newest.locator('.summary-briefing');
      expect(await briefing.isVisible()).toBe(true);
      // Facts checked against the bridge: the properties with arrears (from the portfolio page) are named.
      const portfolio = await createPlatformBridgeClient({ baseUrl: platform.baseUrl })
        .forKey(demo.key)
        .getPortfolio({ limit: 500 });
      const inArrears = portfolio.properties.filter((p) => p.arrears_pence > 0).map((p) => p.ref);
      expect(inArrears.length).toBeGreaterThan(0);
      const text = (await briefing.textContent()) ?? '';
      for (const ref of inArrears) expect(text).toContain(ref);
      expect(text).toContain(`Daily briefing: ${demo.tenant.name}`);
      await saveSettingsScreenshots(page, 'summary-delivered');
      // on a phone nothing scrolls sideways, the briefing open
      await page.setViewportSize(PHONE_VIEWPORT);
      await expectFitsScreen(page, 'panel-settings');
    },
    scaled(60_000),
  );
  it(
    'shows and takes the briefing time on the 24-hour clock in a browser set to US English',
    async () => {
      const configUrl = `${gateway.baseUrl}/api/assistant/email/summary/config/${worker.workerId}`;
      const headers = { 'X-Workspace-Id': worker.workspaceId, 'Content-Type': 'application/json' };
      const put = await fetch(configUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          enabled: true,
          deliveryChannel: 'web',
          summarySchedule: '35 17 * * *',
          timezone: 'Europe/London',
        }),
      });
      expect(put.status).toBe(200);
      const page = await openSettings(gateway, DEFAULT_VIEWPORT, {
        locale: 'en-US',
        timezoneId: 'America/New_York',
      });
      // the browser really is American: its own time format has AM/PM
      expect(await page.evaluate(() => new Date(2026, 0, 1, 17, 35).toLocaleTimeString())).toMatch(/PM/);
      const s = await settled(page);
      const hour = s.getByLabel('Hour (24-hour clock)');
      const minutes = s.getByLabel('Minutes');
      expect(await hour.inputValue()).toBe('17');
      expect(await minutes.inputValue()).toBe('35');
      // what is on screen: the options' own text, 17 and 35, not 5 PM
      expect(await hour.evaluate((e) => (e as HTMLSelectElement).selectedOptions[0]!.text)).toBe('17');
      expect(await s.locator('[data-summary-next]').textContent()).toMatch(
        /^Next briefing: \w{3},? \d{1,2} \w{3} \d{4} at 17:35 \(London time\), on this page\.$/,
      );
      expect(await s.textContent()).not.toMatch(/\b(AM|PM)\b/);
      await saveSettingsScreenshots(page, 'summary-24-hour-en-US');

      // an evening time chosen with the two lists is saved as such
      await hour.selectOption('21');
      await minutes.selectOption('05');
      await s.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => s.getByRole('status').first().textContent()).toBe('Saved.');
      const saved = (await (await fetch(configUrl, { headers })).json()) as { summarySchedule: string };
      expect(saved.summarySchedule).toBe('5 21 * * *');
      expect(await s.locator('[data-summary-next]').textContent()).toContain(' at 21:05 (London time)');

      // a custom schedule between the five-minute steps shows as it is
      await s.locator('.summary-advanced > summary').click();
      await s.getByLabel('Schedule (cron expression)').fill('32 6 * * 1-5');
      expect(await hour.inputValue()).toBe('06');
      expect(await minutes.inputValue()).toBe('32');
      expect(await s.getByLabel('On', { exact: true }).inputValue()).toBe('weekdays');

      // on a phone the two lists fit beside each other
      await page.setViewportSize(PHONE_VIEWPORT);
      await expectFitsScreen(page, 'panel-settings');
      const [h, m] = [(await hour.boundingBox())!, (await minutes.boundingBox())!];
      expect(Math.abs(h.y - m.y)).toBeLessThan(2);
      expect(h.height).toBeGreaterThanOrEqual(44);
    },
    scaled(60_000),
  );
});
