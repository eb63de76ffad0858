import { randomBytes } from 'node:crypto';
import { type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { composeGateway } from '../../src/compose/gateway.ts';
import { startWorkerProcess, type WorkerProcess } from '../../src/compose/worker-process.ts';
import { bindWorker, type BoundWorker } from '../support/bound-worker.ts';
import { message, startDovecot, type TestImap } from '../support/dovecot.ts';
import { expectFitsScreen } from '../support/phone-fit.ts';
import { type PlatformForGateway, startPlatformForGateway } from '../support/platform.ts';
import { saveSettingsScreenshots } from '../support/settings-screenshots.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';
import {
  BrowserHarness,
  DEFAULT_VIEWPORT,
  expectNoPageProblems,
  PHONE_VIEWPORT,
  scaled,
} from '@pa/http-kit/testing';

// The Settings tab's Email section (docs/email.md) in a real browser against the real gateway (its worker process
// syncing), the REAL platform-bridge's demo tenant (whose mailboxes the platform reads) and a real Dovecot.

let browser: BrowserHarness;
let platform: PlatformForGateway;
let imap: TestImap;
let setup: TestGateway; // owns the database; bound the worker
let gateway: TestGateway; // the gateway under test, WEB_WORKER_ID set
let processes: WorkerProcess;
let worker: BoundWorker;
let tenantSlug: string;

const ENV = {
  AI_WORKERS_ENABLED: 'true',
  PLATFORM_BRIDGE_ENABLED: 'true',
  EMAIL_INGESTION_ENABLED: 'true',
  IMAP_TIMEOUT_MS: '3000',
  // the test's Dovecot on loopback stands for a mail server on the operator's own network
  IMAP_INTERNAL_HOSTS: '127.0.0.1',
  EMAIL_POLL_MS: '500',
  RUN_WORKER_IN_PROCESS: 'false',
};

beforeAll(async () => {
  [browser, platform, imap] = await Promise.all([
    BrowserHarness.launch(),
    startPlatformForGateway(),
    startDovecot(),
  ]);
  const demo = await platform.seedDemo();
  tenantSlug = demo.tenant.slug;
  const env = { ...ENV, PLATFORM_BASE_URL: platform.baseUrl };
  // one secret key for both gateways: the platform key and the mailbox password sealed by one open in the other
  const secretKey = randomBytes(32);
  setup = await startTestGateway({ redis: 'none', env, secretKey });
  worker = await bindWorker(setup, { slug: demo.tenant.slug, key: demo.key });
  gateway = await startTestGateway({
    redis: 'none',
    databaseUrl: setup.databaseUrl,
    secretKey,
    env: { ...env, WEB_WORKER_ID: worker.workerId },
  });
  processes = startWorkerProcess(composeGateway(gateway.deps), { scanMs: 60_000 });
  await imap.append(
    message({
      from: 'tenant@flat3.test',
      to: imap.user,
      subject: 'Dripping tap',
      body: 'Can you send someone?',
    }),
  );
  await imap.append(
    message({ from: 'gutters@trade.test', to: imap.user, subject: 'Invoice 88', body: 'Attached.' }),
  );
}, scaled(90_000));

afterAll(async () => {
  await browser?.close();
  await processes?.stop();
  await gateway?.close();
  await setup?.close(); // owns the database: last
  await imap?.close();
  await platform?.close();
});

afterEach(async () => {
  expectNoPageProblems(await browser.endTest());
});

async function openSettings(viewport = DEFAULT_VIEWPORT): Promise<Page> {
  const page = await browser.openPage(`${gateway.baseUrl}/`, viewport);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect.poll(() => page.locator('#settings-root').getAttribute('aria-busy')).toBe('false');
  return page;
}

const section = (page: Page) => page.getByRole('region', { name: 'Email', exact: true });
async function settled(page: Page) {
  await expect.poll(() => section(page).getAttribute('aria-busy'), { timeout: scaled(10_000) }).toBe('false');
  return section(page);
}
const statusText = (page: Page) => section(page).locator('.form-status').textContent();

/** Fills the connect form; `password` defaults to the Dovecot user's. */
async function fill(page: Page, o: { address: string; password?: string }) {
  const s = section(page);
  await s.getByLabel('Email address').fill(o.address);
  await s.getByLabel('Incoming mail (IMAP) server').fill(imap.host);
  await s.getByLabel('Secure connection (TLS)').uncheck();
  await s.getByLabel('Port').fill(String(imap.port));
  await s.getByLabel('Username').fill(imap.user);
  await s.getByLabel('Password').fill(o.password ?? imap.password);
  await s.getByRole('button', { name: 'Connect mailbox' }).click();
}

describe('settings tab: the mailboxes Porter reads itself', () => {
  it(
    'refuses a mailbox the platform already reads, in words, whatever its case or +tag',
    async () => {
      const page = await openSettings();
      const s = await settled(page);
      expect(await s.textContent()).toContain('Porter reads the mailboxes your property platform reads');
      browser.allowConsoleErrors(/status of 409/);
      await fill(page, { address: 'Lettings+Leads@Demo-Lettings.co.uk' });
      await expect
        .poll(() => statusText(page), { timeout: scaled(10_000) })
        .toContain('Your property platform already reads lettings@demo-lettings.co.uk');
      expect(await s.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');
      // the password never stays in the page
      expect(await s.getByLabel('Password').inputValue()).toBe('');
      expect(await gateway.db.mailbox.count()).toBe(0);
      await saveSettingsScreenshots(page, 'email-owned-by-platform');
    },
    scaled(60_000),
  );

  it(
    'says why a login failed, at the password',
    async () => {
      const page = await openSettings();
      await settled(page);
      browser.allowConsoleErrors(/status of 422/);
      await fill(page, { address: imap.user, password: 'not-the-password' });
      await expect
        .poll(() => statusText(page), { timeout: scaled(10_000) })
        .toMatch(/^Could not log in to .+: the server refused the username or password\. Check the server/);
      expect(await section(page).getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
      expect(await gateway.db.mailbox.count()).toBe(0);
      await saveSettingsScreenshots(page, 'email-login-failed');
    },
    scaled(60_000),
  );

  it(
    'connects a mailbox, shows its first check and the messages kept, and removes it when asked',
    async () => {
      const page = await openSettings();
      const s = await settled(page);
      await fill(page, { address: imap.user });
      await expect
        .poll(() => statusText(page), { timeout: scaled(10_000) })
        .toBe(`Connected ${imap.user}. Porter reads new mail there from now on.`);
      const row = s.locator('.mailbox');
      expect(await row.locator('.mailbox-address').textContent()).toBe(imap.user);
      // the worker process reads it; the section checks again until it has, without a reload
      await expect
        .poll(() => row.locator('[data-fact="mailbox-state"]').textContent(), { timeout: scaled(15_000) })
        .toMatch(/^Last checked .+ · 2 messages kept$/);
      expect(await s.getByRole('button', { name: 'Connect another mailbox' }).isVisible()).toBe(true);
      await saveSettingsScreenshots(page, 'email-connected');

      // The platform starts reading the address: the next sync stops, and the card says so in words.
      await platform.admin.addMailbox(tenantSlug, imap.user);
      await expect
        .poll(async () => (await gateway.db.mailbox.findFirst())?.status, { timeout: scaled(15_000) })
        .toBe('stopped');
      await page.reload();
      await page.getByRole('tab', { name: 'Settings' }).click();
      const again = await settled(page);
      expect(await again.locator('[data-fact="mailbox-state"]').textContent()).toMatch(
        /^Your property platform now reads .+, so Porter stopped reading it/,
      );
      await saveSettingsScreenshots(page, 'email-stopped');

      await again.getByRole('button', { name: `Remove ${imap.user}` }).click();
      expect(await again.locator('.confirm-question').textContent()).toContain('Porter stops reading it');
      await again.getByRole('button', { name: 'Yes, remove' }).click();
      await expect
        .poll(() => again.locator('.form-status').textContent())
        .toBe(`${imap.user} was removed. Porter no longer reads it.`);
      expect(await again.locator('.mailbox').count()).toBe(0);
      expect(await again.getByRole('button', { name: 'Connect mailbox' }).isVisible()).toBe(true);
      expect(await gateway.db.mailbox.count()).toBe(0);
    },
    scaled(90_000),
  );

  it(
    'fits a phone',
    async () => {
      const page = await openSettings(PHONE_VIEWPORT);
      await settled(page);
      await expectFitsScreen(page, 'panel-settings');
    },
    scaled(60_000),
  );
});
