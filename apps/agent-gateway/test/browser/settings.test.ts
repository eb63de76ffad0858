import { type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type PlatformForGateway, startPlatformForGateway } from '../support/platform.ts';
import { saveSettingsScreenshots } from '../support/settings-screenshots.ts';
import { expectFitsScreen, expectTouchable } from '../support/phone-fit.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';
import {
  BrowserHarness,
  DEFAULT_VIEWPORT,
  type DeviceOptions,
  expectNoPageProblems,
  saveScreenshot,
  scaled,
  type Viewport,
} from '@pa/http-kit/testing';

// The Settings tab in a real browser (the system Chromium, driven by playwright-core) against the real gateway
// and the REAL platform-bridge (in-process, over HTTP): one browser for the file, a fresh context per test.

let browser: BrowserHarness;
let platform: PlatformForGateway;
let demoKey: string; // a bridge key of the seeded demo-lettings tenant (24 properties)
let setup: TestGateway; // owns the database; created the workspace and the worker
let gateway: TestGateway; // the gateway under test: workers and the bridge on, WEB_WORKER_ID set
let workspaceId: string;
let workerId: string;

const gatewayEnv = (baseUrl: string) => ({
  AI_WORKERS_ENABLED: 'true',
  PLATFORM_BRIDGE_ENABLED: 'true',
  PLATFORM_BASE_URL: baseUrl,
  CHAT_RATE_LIMIT_PER_MIN: '1000',
});

beforeAll(async () => {
  [browser, platform] = await Promise.all([BrowserHarness.launch(), startPlatformForGateway()]);
  demoKey = (await platform.seedDemo()).key;

  // The gateway reads WEB_WORKER_ID at start, so a first instance creates the workspace and the worker and a
  // second one, on the same database, is started knowing the worker.
  setup = await startTestGateway({ redis: 'none', env: gatewayEnv(platform.baseUrl) });
  workspaceId = (await setup.db.workspace.create({ data: { name: 'Lettings team' } })).id;
  const created = await fetch(`${setup.baseUrl}/api/assistant/workers`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Workspace-Id': workspaceId },
    body: JSON.stringify({ name: 'Property Manager', template: 'property-manager' }),
  });
  expect(created.status).toBe(201);
  workerId = ((await created.json()) as { id: string }).id;
  gateway = await startTestGateway({
    redis: 'none',
    databaseUrl: setup.databaseUrl,
    env: { ...gatewayEnv(platform.baseUrl), WEB_WORKER_ID: workerId },
  });
}, scaled(60_000));

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await setup?.close(); // owns the database: last
  await platform?.close();
});

afterEach(async () => {
  const unexpected = await browser.endTest();
  // Each test starts from an unbound worker.
  await fetch(`${gateway.baseUrl}/api/assistant/workers/${workerId}/platform/bind`, {
    method: 'DELETE',
    headers: { 'X-Workspace-Id': workspaceId },
  });
  expectNoPageProblems(unexpected);
});

async function openPage(
  target: TestGateway = gateway,
  viewport: Viewport = DEFAULT_VIEWPORT,
  extra: DeviceOptions = {},
): Promise<Page> {
  const page = await browser.openPage(`${target.baseUrl}/`, viewport, extra);
  await expect.poll(() => page.locator('#active-provider').textContent()).toBe('local');
  return page;
}

/** Opens the Settings tab and waits until it has loaded. */
async function openSettings(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect.poll(() => page.locator('#settings-root').getAttribute('aria-busy')).toBe('false');
}

const worker = (page: Page) => page.locator('#settings-root article.worker');
const fact = (page: Page, name: string) => worker(page).locator(`[data-fact="${name}"]`);
const platformSection = (page: Page) => worker(page).getByRole('region', { name: 'Property platform' });
// where the connection stands, in a sentence
const connection = (page: Page) => platformSection(page).locator('.connection-state');
const advanced = (page: Page) => worker(page).locator('details[data-advanced]');
// the connection form's status (the card also holds the Telegram section's)
const status = (page: Page) => platformSection(page).getByRole('status');
const slugField = (page: Page) => page.getByLabel('Account name');
const keyField = (page: Page) => page.getByLabel('API key');
const connectButton = (page: Page) =>
  platformSection(page).getByRole('button', { name: 'Connect', exact: true });
const disconnectButton = (page: Page) => platformSection(page).getByRole('button', { name: 'Disconnect' });
const changeButton = (page: Page) =>
  platformSection(page).getByRole('button', { name: 'Change account or key' });
// Words a property manager should not meet outside Advanced.
const JARGON = /gateway|worker|skill pack|tenant|slug|provider|binding|\bbind|\bbound\b|workspace id/i;
const UK_DAY = /since \d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}\./;

async function bind(page: Page, slug: string, key: string): Promise<void> {
  await slugField(page).fill(slug);
  await keyField(page).fill(key);
  await connectButton(page).click();
}

/** Waits for the form's status to settle (not "Checking…") and returns it. */
async function settledStatus(page: Page): Promise<string> {
  await expect
    .poll(() => status(page).getAttribute('data-kind'), { timeout: scaled(10_000) })
    .not.toBe('pending');
  return (await status(page).textContent()) ?? '';
}

/** The tab's text as rendered: a closed <details> contributes only its summary. */
const shownText = (page: Page) => page.locator('#panel-settings').innerText();

describe('settings tab', () => {
  it('shows the assistant, refuses a wrong key in words, connects the right one, and the chat uses the platform', async () => {
    browser.allowConsoleErrors(/status of 422/);
    const page = await openPage();
    const requests: { url: string; body: string | null }[] = [];
    page.on('request', (r) => requests.push({ url: r.url(), body: r.postData() }));
    await openSettings(page);

    // The assistant, in words; not connected; it is the one answering the chat.
    await expect.poll(() => worker(page).count()).toBe(1);
    expect(await worker(page).getByRole('heading', { level: 3 }).textContent()).toBe('Property Manager');
    expect(await worker(page).textContent()).toContain('Answers this chat');
    expect(await worker(page).textContent()).toContain('Your assistant');
    expect(await connection(page).getAttribute('data-state')).toBe('not-connected');
    expect(await connection(page).textContent()).toMatch(/^Not connected: connect your platform account/);
    expect(await worker(page).getAttribute('data-bound')).toBe('false');
    expect(await keyField(page).getAttribute('type')).toBe('password');
    expect(await disconnectButton(page).isVisible()).toBe(false);
    expect(await status(page).getAttribute('aria-live')).toBe('polite');
    expect(await shownText(page)).not.toMatch(JARGON);
    await saveSettingsScreenshots(page, 'settings-not-connected');

    // A wrong key: refused, in words; nothing is connected.
    await bind(page, 'demo-lettings', 'pak_wrong_0000000000000000000000');
    expect(await settledStatus(page)).toContain('The platform refused this API key');
    expect(await status(page).getAttribute('data-kind')).toBe('error');
    expect(await keyField(page).getAttribute('aria-invalid')).toBe('true');
    expect(await connection(page).getAttribute('data-state')).toBe('not-connected');
    await saveSettingsScreenshots(page, 'settings-connect-error');

    // The right key: connected, with the platform's property count; the key field is emptied.
    await bind(page, 'demo-lettings', demoKey);
    const connected = await settledStatus(page);
    expect(connected).toContain('demo-lettings');
    expect(connected).toContain('24 properties');
    expect(await status(page).getAttribute('data-kind')).toBe('success');
    expect(await keyField(page).inputValue()).toBe('');
    expect(await keyField(page).getAttribute('aria-invalid')).toBeNull();
    expect(await connection(page).getAttribute('data-state')).toBe('connected');
    expect(await connection(page).locator('[data-account]').textContent()).toBe('demo-lettings');
    expect(await connection(page).textContent()).toMatch(UK_DAY);
    expect(await connection(page).textContent()).toContain('Porter can see 24 properties');
    expect(await worker(page).getAttribute('data-bound')).toBe('true');
    expect(await fact(page, 'tenant').textContent()).toBe('demo-lettings');
    expect(await fact(page, 'properties').textContent()).toBe('24');
    const preview = (await fact(page, 'key').textContent()) ?? '';
    expect(preview.length).toBeGreaterThan(0);
    expect(preview).not.toBe(demoKey);
    expect(await disconnectButton(page).isVisible()).toBe(true);
    expect(await shownText(page)).not.toMatch(JARGON);

    // The key went only in the body of the bind request: not in a URL, not in storage, not in the page.
    const withKey = requests.filter((r) => r.url.includes(demoKey) || (r.body ?? '').includes(demoKey));
    expect(withKey.map((r) => new URL(r.url).pathname)).toEqual([
      `/api/assistant/workers/${workerId}/platform/bind`,
    ]);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(stored).not.toContain(demoKey);
    expect(await page.content()).not.toContain(demoKey);

    await saveSettingsScreenshots(page, 'settings-connected');

    // Connected, the fields stay hidden until asked for; Cancel hides them again.
    expect(await slugField(page).isVisible()).toBe(false);
    expect(await connectButton(page).isVisible()).toBe(false);
    await changeButton(page).click();
    expect(await slugField(page).inputValue()).toBe('demo-lettings');
    expect(await keyField(page).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('apiKey');
    expect(await connectButton(page).isVisible()).toBe(true);
    await platformSection(page).getByRole('button', { name: 'Cancel' }).click();
    expect(await keyField(page).isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Change account or key');

    // A reload shows the connection as the server has it.
    await page.reload();
    await openSettings(page);
    await expect.poll(() => connection(page).getAttribute('data-state')).toBe('connected');
    expect(await connection(page).locator('[data-account]').textContent()).toBe('demo-lettings');
    expect(await fact(page, 'properties').textContent()).toBe('24');
    expect(await slugField(page).inputValue()).toBe('demo-lettings');

    // The chat now answers from the platform.
    await page.getByRole('tab', { name: 'Chat' }).click();
    await page.getByRole('combobox', { name: 'Message' }).fill('give me a portfolio overview');
    await page.getByRole('combobox', { name: 'Message' }).press('Enter');
    const reply = page.locator('#log [data-role="assistant"]').last();
    await expect.poll(() => reply.getAttribute('data-state'), { timeout: scaled(15_000) }).toBe('complete');
    const answer = (await reply.locator('.message-body').textContent()) ?? '';
    expect(answer).toContain('Demo Lettings');
    expect(answer).toMatch(/\b24 properties\b|\bProperties:\s*24\b/); // "Properties: 24 (4 HMOs) …"
  });

  it('keeps the technical facts in an Advanced section, closed until opened', async () => {
    const page = await openPage();
    await openSettings(page);
    await expect.poll(() => worker(page).count()).toBe(1);

    // Closed: only its title shows.
    expect(await advanced(page).getAttribute('open')).toBeNull();
    expect(await advanced(page).locator('summary').textContent()).toBe('Advanced');
    expect(await fact(page, 'worker-id').isVisible()).toBe(false);
    expect(await shownText(page)).not.toContain(workerId);

    // Opened from the keyboard: the ids, the skill pack, the template and the answering engine.
    await advanced(page).locator('summary').focus();
    await page.keyboard.press('Enter');
    expect(await advanced(page).getAttribute('open')).toBe('');
    expect(await fact(page, 'worker-id').isVisible()).toBe(true);
    expect(await fact(page, 'worker-id').textContent()).toBe(workerId);
    expect(await fact(page, 'workspace-id').textContent()).toBe(workspaceId);
    expect(await fact(page, 'packs').textContent()).toBe('property-uk');
    expect(await fact(page, 'template').textContent()).toBe('property-manager');
    expect(await fact(page, 'engine').textContent()).toBe('built-in assistant (offline)');
    expect(await fact(page, 'provider').textContent()).toBe('local');
    expect(await fact(page, 'binding').textContent()).toBe('none');
    expect(await fact(page, 'key').count()).toBe(0);

    // Connecting fills in the account's slug and the key's preview, and the section stays open.
    await bind(page, 'demo-lettings', demoKey);
    expect(await settledStatus(page)).toContain('24 properties');
    expect(await advanced(page).getAttribute('open')).toBe('');
    expect(await fact(page, 'tenant').textContent()).toBe('demo-lettings');
    const preview = (await fact(page, 'key').textContent()) ?? '';
    expect(preview.length).toBeGreaterThan(1);
    expect(preview.length).toBeLessThan(demoKey.length); // a preview, never the key
    expect(demoKey.startsWith(preview.replace(/…$/, ''))).toBe(true);
    expect(await fact(page, 'bound-at').textContent()).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/);
    expect(await fact(page, 'binding').count()).toBe(0);
    await saveSettingsScreenshots(page, 'settings-advanced');
  });

  it('shows each connection error in words and disconnects, from the keyboard', async () => {
    browser.allowConsoleErrors(/status of 422/);
    const other = await platform.createTenant(); // bridge on, a key of its own
    const closed = await platform.createTenant({ bridge: false });
    const page = await openPage();
    await openSettings(page);
    await expect.poll(() => worker(page).count()).toBe(1);

    // Keyboard only: the account field, the key field, then Enter submits.
    await slugField(page).focus();
    await page.keyboard.type('Not An Account');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('apiKey');
    await page.keyboard.type('whatever');
    await page.keyboard.press('Enter');
    expect(await settledStatus(page)).toContain('The account name is not valid');
    expect(await slugField(page).getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('tenantSlug');

    await bind(page, 'demo-lettings', '');
    expect(await settledStatus(page)).toBe('Enter the API key.');
    expect(await keyField(page).getAttribute('aria-invalid')).toBe('true');

    await bind(page, 'demo-lettings', other.key);
    expect(await settledStatus(page)).toContain(
      'This API key belongs to another account, not “demo-lettings”',
    );

    await bind(page, closed.slug, closed.key);
    const notEnabled = await settledStatus(page);
    expect(notEnabled).toContain('has not turned on assistant access');
    expect(notEnabled).toContain(`“${closed.slug}”`);
    expect(await connection(page).getAttribute('data-state')).toBe('not-connected');

    // Connect with Enter in the key field, then Disconnect with the keyboard.
    await slugField(page).fill('demo-lettings');
    await keyField(page).fill(demoKey);
    await keyField(page).press('Enter');
    expect(await settledStatus(page)).toContain('24 properties');
    await disconnectButton(page).focus();
    await page.keyboard.press('Enter');
    const disconnected = await settledStatus(page);
    expect(disconnected).toContain('Disconnected from demo-lettings');
    expect(disconnected).toContain('no longer reads your platform');
    expect(await connection(page).getAttribute('data-state')).toBe('not-connected');
    expect(await disconnectButton(page).isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('tenantSlug');
    const res = await fetch(`${gateway.baseUrl}/api/assistant/workers/${workerId}/platform`, {
      headers: { 'X-Workspace-Id': workspaceId },
    });
    expect(res.status).toBe(404);
  });

  it('says when the platform is unreachable and when assistants are off', async () => {
    browser.allowConsoleErrors(/status of 502/);
    const unreachable = await startTestGateway({
      redis: 'none',
      databaseUrl: setup.databaseUrl,
      env: { ...gatewayEnv('http://127.0.0.1:9'), WEB_WORKER_ID: workerId, PLATFORM_TIMEOUT_MS: '1000' },
    });
    const off = await startTestGateway({ redis: 'none', databaseUrl: setup.databaseUrl });
    try {
      let page = await openPage(unreachable);
      await openSettings(page);
      await expect.poll(() => worker(page).count()).toBe(1);
      await bind(page, 'demo-lettings', demoKey);
      expect(await settledStatus(page)).toBe(
        'The platform could not be reached, so nothing was changed. Try again in a moment.',
      );
      expect(await connection(page).getAttribute('data-state')).toBe('not-connected');
      await browser.closeContext();

      page = await openPage(off);
      await openSettings(page);
      const text = await shownText(page);
      expect(text).toContain('Settings are not available yet');
      expect(text).toContain('assistants are turned off');
      expect(text).not.toMatch(JARGON);
      expect(await worker(page).count()).toBe(0);
    } finally {
      await browser.closeContext();
      await unreachable.close();
      await off.close();
    }
  });

  it('fits a phone-sized screen', async () => {
    const page = await openPage(gateway, { width: 375, height: 667 }, { isMobile: true, hasTouch: true });
    await openSettings(page);
    await expect.poll(() => worker(page).count()).toBe(1);
    const fits = () => expectFitsScreen(page, 'panel-settings');
    const touchable = (locator: Locator) => expectTouchable(locator, 375);
    await fits();
    for (const el of [slugField(page), keyField(page), connectButton(page)]) await touchable(el);

    await bind(page, 'demo-lettings', demoKey);
    expect(await settledStatus(page)).toContain('24 properties');
    await advanced(page).locator('summary').click(); // the long ids must wrap too
    await fits();
    for (const el of [changeButton(page), disconnectButton(page), advanced(page).locator('summary')]) {
      await touchable(el);
    }
    await connection(page).scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'settings-phone.png');
  });
});
