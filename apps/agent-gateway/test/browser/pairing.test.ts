import { type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BrowserHarness,
  DEFAULT_VIEWPORT,
  expectNoPageProblems,
  PHONE_VIEWPORT,
  saveScreenshot,
  scaled,
} from '@pa/http-kit/testing';
import { adminHeaders, createCode, newWorkspace, pairDevice, TOKEN_ENV } from '../support/access.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';

// The pairing screen and the Devices section (docs/access.md) in real Chromium against a gateway with
// GATEWAY_AUTH=token: a browser with no session sees only the pairing screen; a code (typed loosely) pairs it
// and the chat works; an admin device lists and removes devices; a removed device is sent back to pairing.

let browser: BrowserHarness;
let g: TestGateway;
let workspaceId: string;

beforeAll(async () => {
  [browser, g] = await Promise.all([
    BrowserHarness.launch(),
    startTestGateway({
      env: { ...TOKEN_ENV, AI_WORKERS_ENABLED: 'true', CHAT_RATE_LIMIT_PER_MIN: '1000' },
      redis: 'none',
    }),
  ]);
  workspaceId = await newWorkspace(g, 'pairing-ui');
  await g.db.worker.create({ data: { workspaceId, name: 'Property Manager', skillPacks: ['property-uk'] } });
});
afterAll(async () => {
  await browser?.close();
  await g?.close();
});
afterEach(async () => {
  expectNoPageProblems(await browser.endTest());
});

const pairingScreen = (page: Page) => page.getByRole('region', { name: 'Pair this device with Porter' });

async function pairInPage(page: Page, code: string, name?: string) {
  await page.getByLabel('Pairing code').fill(code);
  if (name) await page.getByLabel('Name this device').fill(name);
  await page.getByRole('button', { name: 'Pair this device' }).click();
}

describe('the pairing screen', () => {
  it(
    'is all an unpaired browser sees; a wrong code is explained; a good one (typed loosely) opens the chat',
    async () => {
      browser.allowConsoleErrors(/status of 400/);
      const page = await browser.openPage(`${g.baseUrl}/`);
      await expect.poll(() => pairingScreen(page).isVisible(), { timeout: scaled(10_000) }).toBe(true);
      expect(await page.locator('#app').isVisible()).toBe(false);
      // the name is offered from the browser
      expect(await page.getByLabel('Name this device').inputValue()).toMatch(/Chrome on Linux computer/);
      await saveScreenshot(page, 'pairing-screen.png');

      await pairInPage(page, 'ABCD2345');
      await expect
        .poll(() => page.locator('#pairing-error').textContent(), { timeout: scaled(10_000) })
        .toContain('That code is not valid. It may be mistyped, already used or more than 10 minutes old');
      await saveScreenshot(page, 'pairing-bad-code.png');

      const { code } = await createCode(g, workspaceId);
      await pairInPage(page, `${code.slice(0, 4).toLowerCase()} ${code.slice(4)}`, 'Office laptop');
      // the page reloads as a paired device: wait until the new page has started the chat
      await expect
        .poll(() => page.locator('body').getAttribute('data-state'), { timeout: scaled(10_000) })
        .toBe('chat');
      expect(await page.locator('#app').isVisible()).toBe(true);
      expect(await pairingScreen(page).isVisible()).toBe(false);
      // the session cookie is HttpOnly: the page cannot read it
      expect(await page.evaluate(() => document.cookie)).not.toContain('gw_session');
      const input = page.getByRole('combobox', { name: 'Message' });
      await input.fill('my name is Sam');
      await input.press('Enter');
      await expect
        .poll(() => page.locator('#log [data-role="assistant"]').last().textContent(), {
          timeout: scaled(10_000),
        })
        .toContain('Sam');
      await saveScreenshot(page, 'pairing-paired-chat.png');
      const devices = await g.db.device.findMany({ where: { workspaceId, name: 'Office laptop' } });
      expect(devices).toHaveLength(1);
    },
    scaled(60_000),
  );

  it(
    'reads well on a phone in dark mode',
    async () => {
      const page = await browser.openPage(`${g.baseUrl}/`, PHONE_VIEWPORT, {
        isMobile: true,
        hasTouch: true,
      });
      await page.emulateMedia({ colorScheme: 'dark' });
      await expect.poll(() => pairingScreen(page).isVisible(), { timeout: scaled(10_000) }).toBe(true);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await saveScreenshot(page, 'pairing-screen-phone-dark.png');
    },
    scaled(60_000),
  );
});

describe('devices in the settings tab', () => {
  it(
    'an admin device lists the devices, removes one, and a removed device is sent back to pairing',
    async () => {
      browser.allowConsoleErrors(/status of 401/);
      const other = await pairDevice(g, workspaceId, ['chat'], 'Sam’s phone');
      const page = await browser.openPage(`${g.baseUrl}/`, DEFAULT_VIEWPORT);
      await expect.poll(() => pairingScreen(page).isVisible(), { timeout: scaled(10_000) }).toBe(true);
      const { code } = await createCode(g, workspaceId, ['chat', 'workers:write', 'admin']);
      await pairInPage(page, code, 'Manager’s desktop');
      // the page reloads as a paired device: wait until the new page has started the chat
      await expect
        .poll(() => page.locator('body').getAttribute('data-state'), { timeout: scaled(10_000) })
        .toBe('chat');
      expect(await page.locator('#app').isVisible()).toBe(true);

      await page.getByRole('tab', { name: 'Settings' }).click();
      const section = page.getByRole('region', { name: 'Devices' });
      await expect
        .poll(() => section.isVisible(), { timeout: scaled(10_000) })
        .toBe(true)
        .catch(async (err: Error) => {
          // what the tab shows instead (a message in words, or still loading), for whoever reads the failure
          const root = page.locator('#settings-root');
          throw new Error(
            `${err.message}\nsettings tab (aria-busy ${await root.getAttribute('aria-busy')}): ${await root.innerText()}`,
            { cause: err },
          );
        });
      const names = () => section.locator('.device-name').allTextContents();
      await expect.poll(names).toEqual(expect.arrayContaining(['Manager’s desktop', 'Sam’s phone']));
      expect(await section.locator('.device', { hasText: 'Manager’s desktop' }).textContent()).toContain(
        'This device',
      );
      expect(await section.locator('.device', { hasText: 'Sam’s phone' }).textContent()).toContain(
        'Can chat ·',
      );
      await saveScreenshot(page, 'settings-devices.png', { fullPage: true });

      await section.getByRole('button', { name: 'Remove Sam’s phone' }).click();
      await saveScreenshot(page, 'settings-devices-confirm.png', { fullPage: true });
      await section.getByRole('button', { name: 'Yes, remove' }).click();
      await expect.poll(names).not.toContain('Sam’s phone');
      // removed at once: its token no longer works
      const res = await fetch(`${g.baseUrl}/api/providers`, { headers: other.bearer });
      expect(res.status).toBe(401);

      // this device, removed by the operator, is sent back to the pairing screen at its next message
      const me = await g.db.device.findFirstOrThrow({ where: { workspaceId, name: 'Manager’s desktop' } });
      const revoke = await fetch(`${g.baseUrl}/api/devices/${me.id}`, {
        method: 'DELETE',
        headers: adminHeaders,
      });
      expect(revoke.status).toBe(204);
      await page.getByRole('tab', { name: 'Chat' }).click();
      const input = page.getByRole('combobox', { name: 'Message' });
      await input.fill('hello');
      await input.press('Enter');
      await expect.poll(() => pairingScreen(page).isVisible(), { timeout: scaled(10_000) }).toBe(true);
      expect(await page.locator('#pairing-lead').textContent()).toContain('no longer paired');
      await saveScreenshot(page, 'pairing-revoked.png');
    },
    scaled(60_000),
  );
});
