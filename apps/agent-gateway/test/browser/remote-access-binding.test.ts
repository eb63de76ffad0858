import { REMOTE_ACCESS_PAGE } from '@pa/contracts';
import { type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { composeGateway, type Gateway } from '../../src/compose/gateway.ts';
import { type PlatformForGateway, startPlatformForGateway } from '../support/platform.ts';
import { saveSettingsScreenshots } from '../support/settings-screenshots.ts';
import type { TestGateway } from '../support/test-app.ts';
import { startWebWorkerGateway, type WebWorkerGateway } from '../support/web-worker-gateway.ts';
import { BrowserHarness, expectNoPageProblems, saveScreenshot, scaled, until } from '@pa/http-kit/testing';

// The binding procedure end to end, in one browser tab per app: a workspace admin creates a remote key on the
// platform's remote-access page, pastes it into the gateway's Settings tab, and the worker is bound (the bridge's
// smoke test accepts the key); revoking the key on the page makes the worker's next bridge call fail, and the
// Settings tab says so in words. The REAL platform-bridge (in-process, over HTTP) and the real gateway.

let browser: BrowserHarness;
let platform: PlatformForGateway;
let tenantSlug: string;
let adminKey: string; // a padm_ key that may manage remote access
let web: WebWorkerGateway; // the gateway under test and the one owning its database
let gateway: TestGateway; // the gateway under test, started knowing the worker (WEB_WORKER_ID)
let gw: Gateway;
let workspaceId: string;
let workerId: string;

const gatewayEnv = (baseUrl: string) => ({
  AI_WORKERS_ENABLED: 'true',
  PLATFORM_BRIDGE_ENABLED: 'true',
  PLATFORM_BASE_URL: baseUrl,
  CHAT_RATE_LIMIT_PER_MIN: '1000',
  RUN_WORKER_IN_PROCESS: 'false', // the test runs the worker's knowledge sync itself, so that it knows when
});

beforeAll(async () => {
  // the platform's clock at the real time, as the browser's is: the page says when a key was last used
  [browser, platform] = await Promise.all([
    BrowserHarness.launch(),
    startPlatformForGateway({ now: new Date().toISOString() }),
  ]);
  tenantSlug = (await platform.seedDemo()).tenant.slug;
  adminKey = (
    await platform.admin.createAdmin(tenantSlug, 'sam.admin@demo-lettings.example', [
      'review:read',
      'review:write',
      'access:manage',
    ])
  ).key;
  web = await startWebWorkerGateway(gatewayEnv(platform.baseUrl));
  ({ gateway, workspaceId, workerId } = web);
  gw = composeGateway(gateway.deps);
}, scaled(60_000));

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await platform?.close();
});

afterEach(async () => {
  expectNoPageProblems(await browser.endTest());
});

// the platform's remote-access page
const keyRow = (page: Page, label: string) => page.locator('#keys-list tr', { hasText: label });
// the gateway's Settings tab
const platformSection = (page: Page) =>
  page.locator('#settings-root article.worker').getByRole('region', { name: 'Property platform' });
const connection = (page: Page) => platformSection(page).locator('.connection-state');
const knowledgeLine = (page: Page) => page.locator('#settings-root article.worker [data-fact="knowledge"]');
// the words settings.test.ts keeps out of what a letting agent reads, and the bridge's scope names
const SETTINGS_JARGON =
  /gateway|worker|skill pack|tenant|slug|provider|binding|\bbind|\bbound\b|bridge|scope|:read/i;

async function openGatewaySettings(page: Page): Promise<void> {
  await expect.poll(() => page.locator('#active-provider').textContent()).toBe('local');
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect.poll(() => page.locator('#settings-root').getAttribute('aria-busy')).toBe('false');
  await expect.poll(() => page.locator('#settings-root article.worker').count()).toBe(1);
}

describe('binding a worker with a key created on the platform’s remote-access page', () => {
  it('binds with the pasted key, then revoking it on the page fails the worker’s next call, said in Settings', async () => {
    browser.allowConsoleErrors(/status of 401/);

    // 1. The platform's page: the admin creates a key for the assistant; it is shown once.
    const settings = await browser.openPage(`${platform.baseUrl}${REMOTE_ACCESS_PAGE}`);
    const keyField = settings.getByRole('textbox', { name: 'Admin key' });
    await keyField.fill(adminKey);
    await keyField.press('Enter');
    await expect.poll(() => settings.getByRole('switch').count()).toBe(4);
    await settings.getByLabel('What is it for?').fill('Porter – lettings team');
    await settings.getByRole('button', { name: 'Create key' }).click();
    const shownKey = settings.locator('#new-key [data-line="key"]');
    await expect.poll(() => shownKey.isVisible()).toBe(true);
    const apiKey = await shownKey.inputValue();
    const account = await settings.locator('#new-key [data-line="account"]').inputValue();
    expect(account).toBe(tenantSlug);
    expect(await settings.locator('#new-key [data-line="platform-line"]').inputValue()).toBe(
      `PLATFORM_BASE_URL=${platform.baseUrl}`,
    );
    await expect.poll(() => keyRow(settings, 'Porter – lettings team').count()).toBe(1);
    expect(
      await keyRow(settings, 'Porter – lettings team').locator('[data-col="last-used"]').textContent(),
    ).toBe('Never');
    await saveScreenshot(settings, 'remote-access-binding-key.png', { fullPage: true });

    // 2. The gateway's Settings tab: the account name and the key, pasted; the smoke test accepts it.
    const chat = await browser.openTab(`${gateway.baseUrl}/`);
    await openGatewaySettings(chat);
    await chat.getByLabel('Account name').fill(account);
    await chat.getByLabel('API key').fill(apiKey);
    await platformSection(chat).getByRole('button', { name: 'Connect', exact: true }).click();
    await expect
      .poll(() => connection(chat).getAttribute('data-state'), { timeout: scaled(10_000) })
      .toBe('connected');
    expect(await connection(chat).locator('[data-account]').textContent()).toBe(tenantSlug);
    expect(await connection(chat).textContent()).toContain('Porter can see 24 properties');
    const binding = await fetch(`${gateway.baseUrl}/api/assistant/workers/${workerId}/platform`, {
      headers: { 'X-Workspace-Id': workspaceId },
    });
    expect(((await binding.json()) as { tenantSlug: string }).tenantSlug).toBe(tenantSlug);
    // the worker's first bridge calls, its knowledge sync, work with the key
    await until('the worker’s first knowledge sync', async () => {
      await gw.knowledge.syncNow(workerId);
      return (await gw.knowledge.status(workerId)).lastSyncedAt !== null;
    });
    expect((await gw.knowledge.status(workerId)).lastError).toBeNull();
    await saveSettingsScreenshots(chat, 'remote-access-binding-connected');

    // Back on the platform's page: the key has been used (the smoke test and the sync).
    await settings.bringToFront();
    await settings.getByRole('button', { name: 'Refresh' }).first().click();
    const row = keyRow(settings, 'Porter – lettings team');
    await expect.poll(() => row.locator('[data-col="last-used"]').textContent()).toBe('just now');
    // the key box stays open in this tab until "I have copied it"; then the key is gone from the page
    await settings.getByRole('button', { name: 'I have copied it' }).click();
    expect(await settings.content()).not.toContain(apiKey);

    // 3. Revoke it on the page, confirmed in place.
    await row.getByRole('button', { name: 'Revoke “Porter – lettings team”' }).click();
    await settings.locator('#keys-list .confirm').getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => row.getAttribute('data-state')).toBe('revoked');
    await saveScreenshot(settings, 'remote-access-binding-revoked.png', { fullPage: true });

    // The worker's next bridge call is refused, and the Settings tab says so in words.
    const outcome = await gw.knowledge.syncNow(workerId);
    expect(outcome).toMatchObject({ outcome: 'failed' });
    await chat.bringToFront();
    await chat.reload();
    await openGatewaySettings(chat);
    // the connection itself, in words and not green: the refusal was recorded on the binding by the failed sync
    await expect.poll(() => connection(chat).getAttribute('data-state')).toBe('refused');
    const said = await connection(chat).textContent();
    expect(said).toBe(
      `The platform no longer accepts Porter’s key for the account ${tenantSlug} — it may have been revoked. ` +
        'Connect again with a new key from the platform’s Remote access settings.',
    );
    expect(said).not.toMatch(/Connected|can see/);
    expect(said).not.toMatch(SETTINGS_JARGON);
    // the fields are open for the new key, the account already filled in
    expect(await chat.getByLabel('API key').isVisible()).toBe(true);
    expect(await chat.getByLabel('Account name').inputValue()).toBe(tenantSlug);
    await expect.poll(() => knowledgeLine(chat).getAttribute('data-state')).toBe('error');
    const knowledgeSaid = await knowledgeLine(chat).textContent();
    expect(knowledgeSaid).toMatch(/The latest sync failed: The platform no longer accepts Porter’s key/);
    expect(knowledgeSaid).not.toMatch(SETTINGS_JARGON);
    await saveSettingsScreenshots(chat, 'remote-access-binding-refused');

    // The chat's next question reads the platform with the revoked key: refused, said in words too.
    await chat.getByRole('tab', { name: 'Chat' }).click();
    await chat.getByRole('combobox', { name: 'Message' }).fill('give me a portfolio overview');
    await chat.getByRole('combobox', { name: 'Message' }).press('Enter');
    const reply = chat.locator('#log [data-role="assistant"]').last();
    await expect
      .poll(() => reply.getAttribute('data-state'), { timeout: scaled(15_000) })
      .toMatch(/^(complete|error)$/);
    expect(await reply.locator('.message-body').textContent()).toMatch(/refused the API key/);
    await saveScreenshot(chat, 'remote-access-binding-chat-refused.png');
  });
});
