import { type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegram } from '../support/fake-telegram.ts';
import { saveSettingsScreenshots } from '../support/settings-screenshots.ts';
import { expectFitsScreen, expectTouchable } from '../support/phone-fit.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';
import {
  BrowserHarness,
  DEFAULT_VIEWPORT,
  type DeviceOptions,
  expectNoPageProblems,
  freePort,
  PHONE_VIEWPORT,
  saveScreenshot,
  scaled,
  type Viewport,
} from '@pa/http-kit/testing';

// The Settings tab's Telegram section in a real browser (the system Chromium, driven by playwright-core) against
// the real gateway and a loopback Telegram Bot API (test/support/fake-telegram.ts). Webhook mode is used so that a
// user's `/start <code>` reaches the gateway as Telegram would send it: the gateway listens on a port chosen first,
// so that its PUBLIC_BASE_URL is its own address.

let browser: BrowserHarness;
let telegram: FakeTelegram;
let gateway: TestGateway; // the gateway under test: PUBLIC_BASE_URL is its own address
let noPublicUrl: TestGateway; // the same database, without PUBLIC_BASE_URL
let workspaceId: string;
let workerId: string; // "Property Manager", the oldest worker: the one the web chat talks to
let otherWorkerId: string; // another assistant of the workspace

const WORKER = 'Property Manager';
const TALL: Viewport = { width: 1000, height: 1300 };
const POLLING = 'Porter checks for new messages (simplest)';
const WEBHOOK = 'Telegram sends them to Porter (needs a public address)';
const CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/;
let nextChatId = 880_000_001;

const env = (extra: Record<string, string> = {}) => ({
  AI_WORKERS_ENABLED: 'true',
  CHAT_RATE_LIMIT_PER_MIN: '1000',
  TELEGRAM_API_BASE_URL: telegram.baseUrl,
  ...extra,
});

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${gateway.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'X-Workspace-Id': workspaceId,
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

type ApiChannel = {
  id: string;
  status: string;
  botUsername: string;
  chat: { title: string | null } | null;
  lastError: string | null;
};
async function channelsOf(worker: string): Promise<ApiChannel[]> {
  const res = await api(`/api/assistant/workers/${worker}/channels`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { channels: ApiChannel[] }).channels;
}

async function createWorker(name: string, template?: 'property-manager'): Promise<string> {
  const res = await api('/api/assistant/workers', { method: 'POST', body: { name, template } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

beforeAll(async () => {
  [browser, telegram] = await Promise.all([BrowserHarness.launch(), FakeTelegram.start()]);
  const port = await freePort();
  gateway = await startTestGateway({
    redis: 'none',
    port,
    env: env({ PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }),
  });
  workspaceId = (await gateway.db.workspace.create({ data: { name: 'Lettings team' } })).id;
  workerId = await createWorker(WORKER, 'property-manager');
  otherWorkerId = await createWorker('Compliance Desk');
  noPublicUrl = await startTestGateway({ redis: 'none', databaseUrl: gateway.databaseUrl, env: env() });
}, scaled(60_000));

afterAll(async () => {
  await browser?.close();
  await noPublicUrl?.close();
  await gateway?.close(); // owns the database: after the instance that shares it
  await telegram?.close();
});

afterEach(async () => {
  const unexpected = await browser.endTest();
  telegram.up();
  // Each test starts with no channel.
  for (const worker of [workerId, otherWorkerId]) {
    for (const c of await channelsOf(worker)) {
      await api(`/api/assistant/workers/${worker}/channels/${c.id}`, { method: 'DELETE' });
    }
  }
  expectNoPageProblems(unexpected);
});

async function openSettings(
  target: TestGateway = gateway,
  viewport: Viewport = DEFAULT_VIEWPORT,
  extra: DeviceOptions = {},
): Promise<Page> {
  const page = await browser.openPage(`${target.baseUrl}/`, viewport, extra);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect.poll(() => section(page).getAttribute('aria-busy')).toBe('false');
  return page;
}

const section = (page: Page) => page.getByRole('region', { name: 'Telegram' });
const tokenField = (page: Page) => section(page).getByLabel('Bot token');
const status = (page: Page) => section(page).getByRole('status');
const fact = (page: Page, name: string) => section(page).locator(`[data-fact="${name}"]`);
const pairingCode = (page: Page) => section(page).locator('.pairing-code');

async function connect(page: Page, token: string, mode: 'Polling' | 'Webhook'): Promise<void> {
  await tokenField(page).fill(token);
  await section(page)
    .getByLabel(mode === 'Polling' ? POLLING : WEBHOOK)
    .check();
  await section(page).getByRole('button', { name: 'Connect Telegram' }).click();
}

/** Waits for the section's status to settle (not "Checking…") and returns it. */
async function settledStatus(page: Page): Promise<string> {
  await expect
    .poll(() => status(page).getAttribute('data-kind'), { timeout: scaled(10_000) })
    .not.toBe('pending');
  return (await status(page).textContent()) ?? '';
}

describe('settings tab: Telegram', () => {
  it('connects a bot, shows the pairing code and link, and turns connected without a reload when the chat sends /start <code>', async () => {
    const bot = telegram.addBot('lettings_helper_bot');
    const page = await openSettings(gateway, TALL); // tall enough for whole-tab screenshots
    const requests: { url: string; body: string | null }[] = [];
    page.on('request', (r) => requests.push({ url: r.url(), body: r.postData() }));

    // The connect form: a password field with BotFather's steps, polling chosen by default.
    expect(await section(page).getByRole('heading', { level: 4 }).textContent()).toBe('Telegram');
    expect(await tokenField(page).getAttribute('type')).toBe('password');
    expect(await section(page).textContent()).toContain('@BotFather');
    expect(await section(page).getByLabel(POLLING).isChecked()).toBe(true);
    // How to pair, in three steps.
    const steps = section(page).getByRole('list', { name: 'How to connect Telegram' }).getByRole('listitem');
    expect(await steps.count()).toBe(3);
    expect(await steps.nth(2).textContent()).toContain('pairing code');
    await saveScreenshot(page, 'channels-connect.png', { fullPage: true });
    await saveSettingsScreenshots(page, 'settings-telegram-not-connected');

    await connect(page, bot.token, 'Webhook');
    expect(await settledStatus(page)).toBe(
      'Telegram accepted @lettings_helper_bot. One step left: send the code from your chat.',
    );

    // The code, large, with the words to send and the deep link; when it expires, in words.
    const code = (await pairingCode(page).textContent()) ?? '';
    expect(code).toMatch(CODE);
    expect(await section(page).locator('.pairing-instruction').textContent()).toBe(
      `Send /start ${code} to @lettings_helper_bot in Telegram, from the chat that should talk to Porter.`,
    );
    const link = section(page).getByRole('link', { name: 'Open @lettings_helper_bot in Telegram' });
    expect(await link.getAttribute('href')).toBe(`https://t.me/lettings_helper_bot?start=${code}`);
    expect(await section(page).locator('.pairing-expiry').textContent()).toMatch(
      /^The code works once and expires in (10|9) minutes \(at .+\)\.$/,
    );
    expect(await fact(page, 'channel-status').textContent()).toBe('Waiting for your chat to send the code');
    expect(await fact(page, 'mode').textContent()).toBe('Telegram sends them to Porter');
    expect(await section(page).getByRole('list', { name: 'How to connect Telegram' }).count()).toBe(0);
    await saveScreenshot(page, 'channels-pairing.png', { fullPage: true });
    await saveSettingsScreenshots(page, 'settings-telegram-pairing');

    // The token went only in the body of the connect request: not in a URL, storage or the page.
    const withToken = requests.filter((r) => r.url.includes(bot.token) || (r.body ?? '').includes(bot.token));
    expect(withToken.map((r) => new URL(r.url).pathname)).toEqual([
      `/api/assistant/workers/${workerId}/channels`,
    ]);
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).not.toContain(
      bot.token,
    );
    expect(await page.content()).not.toContain(bot.token);

    // The user sends the code from Telegram; the page (never reloaded) turns connected.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    const chat = { id: nextChatId++, firstName: 'Sam' };
    await telegram.userWrites(bot, chat, `/start ${code}`);
    await expect
      .poll(() => fact(page, 'channel-status').textContent(), { timeout: scaled(10_000) })
      .toBe('Connected to Sam');
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(
      true,
    );
    expect(await status(page).textContent()).toBe('Connected to Sam. Messages there now go to Porter.');
    expect(await pairingCode(page).count()).toBe(0);
    expect(await section(page).getByRole('button', { name: 'New code' }).count()).toBe(0);
    const [welcome] = await telegram.waitForMessages(chat.id, 1);
    expect(welcome!.text).toContain(`Connected to ${WORKER}`);
    await saveScreenshot(page, 'channels-connected.png', { fullPage: true });
    await saveSettingsScreenshots(page, 'settings-telegram-connected');

    // A reply Telegram refuses leaves the channel connected, with the problem shown when the tab opens again.
    telegram.failNext('sendMessage', 403, 'Forbidden: bot was blocked by the user');
    await telegram.userWrites(bot, chat, '/help');
    await expect.poll(async () => (await channelsOf(workerId))[0]!.lastError).toBeTruthy();
    await page.getByRole('tab', { name: 'Chat' }).click();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect
      .poll(() => fact(page, 'last-error').textContent())
      .toContain('A reply could not be delivered');
    expect(await fact(page, 'channel-status').textContent()).toBe('Connected to Sam');
    expect(await page.content()).not.toContain(bot.token);

    // Disconnect asks first; Cancel keeps the channel.
    await section(page).getByRole('button', { name: 'Disconnect' }).click();
    expect(await section(page).locator('.confirm-question').textContent()).toBe(
      'Disconnect @lettings_helper_bot? Sam will no longer reach Porter. You can connect the bot again later.',
    );
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Disconnect');
    expect((await channelsOf(workerId)).map((c) => c.status)).toEqual(['connected']);

    await section(page).getByRole('button', { name: 'Disconnect' }).click();
    await section(page).getByRole('button', { name: 'Yes, disconnect' }).click();
    expect(await settledStatus(page)).toBe(
      'Disconnected @lettings_helper_bot. Telegram no longer reaches Porter.',
    );
    expect(await tokenField(page).isVisible()).toBe(true);
    expect(await channelsOf(workerId)).toEqual([]);
    expect(telegram.webhookOf(bot)).toBeNull(); // deleteWebhook was called
  });

  it('says in words why a token is refused, Telegram is unreachable, the bot is taken or the public address is missing', async () => {
    browser.allowConsoleErrors(/status of (409|422|502)/);
    const bot = telegram.addBot();
    const page = await openSettings();

    // Not a token at all: refused before any request; the field is emptied anyway.
    await connect(page, 'not-a-token', 'Polling');
    expect(await settledStatus(page)).toBe(
      'That does not look like a bot token. A token looks like 123456789:AAF… — copy it again from BotFather.',
    );
    expect(await tokenField(page).getAttribute('aria-invalid')).toBe('true');
    expect(await tokenField(page).inputValue()).toBe('');

    // A token of the right shape that Telegram does not know.
    await connect(page, '123456789:AAFakeFakeFakeFakeFakeFakeFakeFakeFak', 'Polling');
    expect(await settledStatus(page)).toBe(
      'Telegram did not accept this token. Copy it again from BotFather (the whole line, like 123456789:AAF…) and paste it here.',
    );
    expect(await tokenField(page).inputValue()).toBe('');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('botToken');

    // Telegram down.
    telegram.down();
    await connect(page, bot.token, 'Polling');
    expect(await settledStatus(page)).toContain('Telegram could not be reached, so nothing was connected.');
    telegram.up();

    // The bot already answers another assistant.
    const taken = await api(`/api/assistant/workers/${otherWorkerId}/channels`, {
      method: 'POST',
      body: { type: 'telegram', botToken: bot.token, mode: 'polling' },
    });
    expect(taken.status).toBe(201);
    await connect(page, bot.token, 'Polling');
    expect(await settledStatus(page)).toBe(
      'This bot is already connected to another assistant. Disconnect it there first, or create a new bot with BotFather for this one.',
    );
    expect(await channelsOf(workerId)).toEqual([]);
    await browser.closeContext();

    // Webhook on a gateway that has no public address.
    const fresh = telegram.addBot();
    const other = await openSettings(noPublicUrl);
    await connect(other, fresh.token, 'Webhook');
    expect(await settledStatus(other)).toContain(
      'Delivery by webhook needs a public web address for Porter that Telegram can reach, and none is set',
    );
    expect(await channelsOf(workerId)).toEqual([]);
  });

  it('connects from the keyboard, issues a new code, and checks the status only while the Settings tab is shown', async () => {
    const bot = telegram.addBot('keys_only_bot');
    const page = await openSettings();
    await page.clock.install(); // the checks every few seconds, on a clock the test moves
    // Counts the list requests as the page makes them: a check calls fetch synchronously in its timer, so the count
    // is final as soon as the clock has moved (a request event would arrive later).
    await page.evaluate(() => {
      const real = window.fetch.bind(window);
      const w = window as unknown as { channelChecks: number };
      w.channelChecks = 0;
      window.fetch = (input, init) => {
        const path = new URL(String(input), location.href).pathname;
        if (path.endsWith('/channels') && (init?.method ?? 'GET') === 'GET') w.channelChecks += 1;
        return real(input, init);
      };
    });
    const checks = () => page.evaluate(() => (window as unknown as { channelChecks: number }).channelChecks);

    // Token, Tab to the mode, arrow to Webhook, Enter connects.
    await tokenField(page).focus();
    await page.keyboard.insertText(bot.token);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('polling');
    await page.keyboard.press('ArrowDown');
    expect(await section(page).getByLabel(WEBHOOK).isChecked()).toBe(true);
    await page.keyboard.press('Enter');
    expect(await settledStatus(page)).toContain('One step left');
    const first = (await pairingCode(page).textContent()) ?? '';
    expect(first).toMatch(CODE);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('pairing'))).toBe(true);

    // A new code replaces the first, which no longer pairs.
    await section(page).getByRole('button', { name: 'New code' }).focus();
    await page.keyboard.press('Enter');
    expect(await settledStatus(page)).toBe('A new code is ready; the old one no longer works.');
    const second = (await pairingCode(page).textContent()) ?? '';
    expect(second).toMatch(CODE);
    expect(second).not.toBe(first);

    // While pending, a check every few seconds.
    const before = await checks();
    await page.clock.runFor(3_100);
    expect(await checks()).toBe(before + 1);

    // The Chat tab shown: no checks (the one already scheduled finds the tab hidden and stops).
    await page.getByRole('tab', { name: 'Chat' }).click();
    const whileChat = await checks();
    await page.clock.runFor(12_000);
    expect(await checks()).toBe(whileChat);

    // Back on Settings (the tab loads again; the code issued in this page is still shown), then the page hidden.
    // (The tab keeps its old contents until the new ones are ready: wait for the new section, whose own load is
    // the check made on showing, before the page is hidden.)
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect.poll(() => page.locator('#settings-root').getAttribute('aria-busy')).toBe('false');
    await expect.poll(() => section(page).getAttribute('aria-busy')).toBe('false');
    expect(await checks()).toBe(whileChat + 1);
    expect(await pairingCode(page).textContent()).toBe(second);
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const whileHidden = await checks();
    await page.clock.runFor(12_000);
    expect(await checks()).toBe(whileHidden);

    // Shown again: checked at once; the old code is refused, the new one pairs.
    const chat = { id: nextChatId++, firstName: 'Keyboard user' };
    await telegram.userWrites(bot, chat, `/start ${first}`);
    const [refusal] = await telegram.waitForMessages(chat.id, 1);
    expect(refusal!.text).toContain('That code is not valid');
    expect((await channelsOf(workerId))[0]!.status).toBe('pending_pairing');
    await telegram.userWrites(bot, chat, `/start ${second}`);
    await expect.poll(async () => (await channelsOf(workerId))[0]!.status).toBe('connected');
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await expect.poll(() => fact(page, 'channel-status').textContent()).toBe('Connected to Keyboard user');

    // Connected is final: no more checks.
    const settled = await checks();
    await page.clock.runFor(15_000);
    expect(await checks()).toBe(settled);
  });

  it('fits a phone-sized screen', async () => {
    const bot = telegram.addBot('phone_lettings_bot');
    const page = await openSettings(gateway, PHONE_VIEWPORT, { isMobile: true, hasTouch: true });
    const fits = () => expectFitsScreen(page, 'panel-settings');
    const touchable = (locator: Locator) => expectTouchable(locator, PHONE_VIEWPORT.width);
    await fits();
    await touchable(tokenField(page));
    await touchable(section(page).getByText(WEBHOOK));
    await touchable(section(page).getByRole('button', { name: 'Connect Telegram' }));

    await connect(page, bot.token, 'Webhook');
    expect(await settledStatus(page)).toContain('One step left');
    await fits();
    const code = pairingCode(page);
    const box = (await code.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE_VIEWPORT.width);
    await touchable(section(page).getByRole('link', { name: 'Open @phone_lettings_bot in Telegram' }));
    await touchable(section(page).getByRole('button', { name: 'New code' }));
    await section(page).locator('.pairing').scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'channels-phone.png');
    // the whole tab at phone width (the tab scrolls inside the page, so a taller window shows all of it)
    await page.setViewportSize({ width: PHONE_VIEWPORT.width, height: 1700 });
    await saveScreenshot(page, 'channels-phone-full.png');
  });
});
