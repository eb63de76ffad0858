import { type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformBridgeClient } from '../../src/clients/bridge/platform-bridge-client.ts';
import { composeGateway, type Gateway } from '../../src/compose/gateway.ts';
import { type PlatformForGateway, startPlatformForGateway } from '../support/platform.ts';
import { saveSettingsScreenshots } from '../support/settings-screenshots.ts';
import type { TestGateway } from '../support/test-app.ts';
import { startWebWorkerGateway, type WebWorkerGateway } from '../support/web-worker-gateway.ts';
import { BrowserHarness, DEFAULT_VIEWPORT, expectNoPageProblems, scaled, until } from '@pa/http-kit/testing';

// The Settings line that says how much of the agency's knowledge the assistant holds ("42 documents synced, last
// at 14:05."), in a real browser against the real gateway and the REAL platform-bridge with its demo corpus. The
// count is checked against the corpus the bridge itself publishes, the time against the gateway's own status.

let browser: BrowserHarness;
let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let web: WebWorkerGateway; // the gateway under test and the one owning its database
let gateway: TestGateway; // the gateway under test, started knowing the worker (WEB_WORKER_ID)
let gw: Gateway;
let workspaceId: string;
let workerId: string;

const gatewayEnv = (baseUrl: string) => ({
  AI_WORKERS_ENABLED: 'true',
  PLATFORM_BRIDGE_ENABLED: 'true',
  PLATFORM_BASE_URL: baseUrl,
  RUN_WORKER_IN_PROCESS: 'false', // the test syncs itself, so that it knows when
});

beforeAll(async () => {
  [browser, platform] = await Promise.all([BrowserHarness.launch(), startPlatformForGateway()]);
  demo = await platform.seedDemo();
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

const headers = () => ({ 'Content-Type': 'application/json', 'X-Workspace-Id': workspaceId });
const line = (page: Page) => page.locator('#settings-root article.worker [data-fact="knowledge"]');

async function openSettings(): Promise<Page> {
  // a London browser: the line's time is the property manager's wall clock
  const page = await browser.openPage(`${gateway.baseUrl}/`, DEFAULT_VIEWPORT, {
    timezoneId: 'Europe/London',
  });
  await expect.poll(() => page.locator('#active-provider').textContent()).toBe('local');
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect.poll(() => page.locator('#settings-root').getAttribute('aria-busy')).toBe('false');
  await expect.poll(() => page.locator('#settings-root article.worker').count()).toBe(1);
  return page;
}

/** How many live documents the bridge publishes for the demo tenant: the count the line must give. */
async function publishedDocuments(): Promise<number> {
  const bridge = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(demo.key);
  const live = new Set<number>();
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await bridge.getKnowledgeChanges({ limit: 500, ...(cursor ? { cursor } : {}) });
    for (const c of res.changes) {
      if (c.deleted) live.delete(c.id);
      else live.add(c.id);
    }
    cursor = res.next_cursor;
    if (!res.has_more) break;
  }
  return live.size;
}

describe('settings: the knowledge line', () => {
  it('is hidden while not connected, then says how many documents are synced and when', async () => {
    const page = await openSettings();
    expect(await line(page).isHidden()).toBe(true);

    const bound = await fetch(`${gateway.baseUrl}/api/assistant/workers/${workerId}/platform/bind`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ tenantSlug: demo.tenant.slug, apiKey: demo.key }),
    });
    expect(bound.status, await bound.clone().text()).toBe(200);
    const published = await publishedDocuments();
    expect(published).toBeGreaterThan(20);
    await until('the worker’s copy to hold the whole corpus', async () => {
      await gw.knowledge.syncNow(workerId);
      return (await gw.knowledge.status(workerId)).documents === published;
    });
    const status = await gw.knowledge.status(workerId);
    expect(status.lastError).toBeNull();
    const at = new Intl.DateTimeFormat('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZone: 'Europe/London',
    }).format(status.lastSyncedAt!);

    await page.reload();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect.poll(() => line(page).isVisible(), { timeout: scaled(10_000) }).toBe(true);
    // a sync that straddles midnight would say "yesterday at …"; the test takes either
    expect(await line(page).textContent()).toMatch(
      new RegExp(`^${published} documents synced, last (yesterday )?at ${at}\\.$`),
    );
    expect(await line(page).getAttribute('data-state')).toBe('ok');
    expect(await line(page).textContent()).not.toMatch(/gateway|worker|tenant|sync error/i);
    await saveSettingsScreenshots(page, 'settings-knowledge-synced');

    // Disconnected: the worker's copy goes with the binding, and the line with it.
    const unbound = await fetch(`${gateway.baseUrl}/api/assistant/workers/${workerId}/platform/bind`, {
      method: 'DELETE',
      headers: headers(),
    });
    expect(unbound.ok).toBe(true);
    await page.reload();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect.poll(() => page.locator('#settings-root').getAttribute('aria-busy')).toBe('false');
    await expect
      .poll(() => page.locator('#settings-root article.worker').getAttribute('data-bound'))
      .toBe('false');
    expect(await line(page).isHidden()).toBe(true);
    expect((await gw.knowledge.status(workerId)).documents).toBe(0);
  });
});
