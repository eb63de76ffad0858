import { type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeWhatsApp, type FakeNumber } from '../support/fake-whatsapp.ts';
import { expectFitsScreen, expectTouchable } from '../support/phone-fit.ts';
import { saveSettingsScreenshots } from '../support/settings-screenshots.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';
import {
  BrowserHarness,
  DEFAULT_VIEWPORT,
  type DeviceOptions,
  expectNoPageProblems,
  freePort,
  saveScreenshot,
  scaled,
  type Viewport,
} from '@pa/http-kit/testing';

// The Settings tab's WhatsApp section in a real browser (the system Chromium) against the real gateway and a
// loopback WhatsApp Cloud API (test/support/fake-whatsapp.ts), which checks the credentials and plays Meta's side of
// the webhook: the verification handshake made at the callback URL the page shows, and signed notifications. The
// gateway listens on a port chosen first, so that the address the page shows is the one Meta's fake calls.

let browser: BrowserHarness;
let whatsapp: FakeWhatsApp;
let gateway: TestGateway;
let workspaceId: string;
let workerId: string; // "Property Manager": the worker the web chat talks to

const TALL: Viewport = { width: 1000, height: 1500 };
const PHONE: Viewport = { width: 390, height: 844 };
const PHONE_DEVICE: DeviceOptions = { isMobile: true, hasTouch: true };
const CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/;
let nextWaId = 447_700_900_001;

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

type ApiChannel = { id: string; type: string; status: string };
async function channels(): Promise<ApiChannel[]> {
  const res = await api(`/api/assistant/workers/${workerId}/channels`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { channels: ApiChannel[] }).channels;
}

beforeAll(async () => {
  [browser, whatsapp] = await Promise.all([BrowserHarness.launch(), FakeWhatsApp.start()]);
  const port = await freePort();
  gateway = await startTestGateway({
    redis: 'none',
    port,
    env: {
      AI_WORKERS_ENABLED: 'true',
      CHAT_RATE_LIMIT_PER_MIN: '1000',
      WHATSAPP_API_BASE_URL: whatsapp.baseUrl,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    },
  });
  workspaceId = (await gateway.db.workspace.create({ data: { name: 'Lettings team' } })).id;
  const res = await api('/api/assistant/workers', {
    method: 'POST',
    body: { name: 'Property Manager', template: 'property-manager' },
  });
  expect(res.status).toBe(201);
  workerId = ((await res.json()) as { id: string }).id;
}, scaled(60_000));

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await whatsapp?.close();
});

afterEach(async () => {
  const unexpected = await browser.endTest();
  whatsapp.up();
  for (const c of await channels())
    await api(`/api/assistant/workers/${workerId}/channels/${c.id}`, { method: 'DELETE' });
  expectNoPageProblems(unexpected);
});

async function openSettings(viewport: Viewport = DEFAULT_VIEWPORT, extra: DeviceOptions = {}): Promise<Page> {
  const page = await browser.openPage(`${gateway.baseUrl}/`, viewport, extra);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect.poll(() => section(page).getAttribute('aria-busy')).toBe('false');
  return page;
}

const section = (page: Page) => page.getByRole('region', { name: 'WhatsApp' });
const status = (page: Page) => section(page).locator('.channel-body ~ .form-status');
const fact = (page: Page, name: string) => section(page).locator(`[data-fact="${name}"]`);
const field = (page: Page, label: string) => section(page).getByLabel(label, { exact: true });

async function fill(
  page: Page,
  values: { phoneNumberId: string; accessToken: string; appSecret: string; verifyToken: string },
) {
  await field(page, 'Phone number ID').fill(values.phoneNumberId);
  await field(page, 'Access token').fill(values.accessToken);
  await field(page, 'App secret').fill(values.appSecret);
  await field(page, 'Verify token').fill(values.verifyToken);
  await section(page).getByRole('button', { name: 'Connect WhatsApp' }).click();
}

const details = (n: FakeNumber, verifyToken = `verify-${n.phoneNumberId}`) => ({
  phoneNumberId: n.phoneNumberId,
  accessToken: n.accessToken,
  appSecret: n.appSecret,
  verifyToken,
});

/** Waits for the section's status to settle (not "Checking…") and returns it. */
async function settled(p: Locator): Promise<string> {
  await expect.poll(() => p.getAttribute('data-kind'), { timeout: scaled(10_000) }).not.toBe('pending');
  return (await p.textContent()) ?? '';
}

describe('settings tab: WhatsApp', () => {
  it('connects a number, shows the callback URL, checks the webhook, pairs the phone and disconnects', async () => {
    const number = whatsapp.addNumber('Acme Lettings');
    const page = await openSettings(TALL);
    const requests: { url: string; body: string | null }[] = [];
    page.on('request', (r) => requests.push({ url: r.url(), body: r.postData() }));

    // beside Telegram, in the assistant's card
    const headings = await page.locator('.worker .channel-heading').allTextContents();
    expect(headings.slice(0, 2)).toEqual(['Telegram', 'WhatsApp']);
    const steps = section(page).getByRole('list', { name: 'How to connect WhatsApp' }).getByRole('listitem');
    expect(await steps.count()).toBe(3);
    expect(await field(page, 'Access token').getAttribute('type')).toBe('password');
    expect(await field(page, 'App secret').getAttribute('type')).toBe('password');
    // "Make one for me" gives a verify token long enough for the server
    await section(page).getByRole('button', { name: 'Make one for me' }).click();
    expect(await field(page, 'Verify token').inputValue()).toMatch(/^[A-Za-z0-9]{24}$/);
    await saveSettingsScreenshots(page, 'settings-whatsapp-not-connected');

    const verifyToken = 'harbour-lights-42';
    await fill(page, details(number, verifyToken));
    expect(await settled(status(page))).toBe(
      'WhatsApp accepted the number. Two steps left: the webhook in Meta, then the code from your phone.',
    );
    // the credentials were checked with the Graph API, with the token the user pasted
    const check = whatsapp.calls.find((c) => c.path.endsWith(`/${number.phoneNumberId}`));
    expect(check?.token).toBe(number.accessToken);
    const [channel] = await channels();
    expect(channel).toMatchObject({ type: 'whatsapp', status: 'pending_pairing' });

    // what to enter in Meta: the callback URL of this channel; the pairing code to send
    const callbackUrl = `${gateway.baseUrl}/api/channels/whatsapp/${channel!.id}/webhook`;
    expect(await fact(page, 'callback-url').textContent()).toBe(callbackUrl);
    expect(await fact(page, 'channel-status').textContent()).toBe('Waiting for your phone to send the code');
    const code = (await section(page).locator('.pairing-code').textContent()) ?? '';
    expect(code).toMatch(CODE);
    expect(await section(page).locator('.pairing-instruction').textContent()).toBe(
      `Once the webhook is saved in Meta, send ${code} in WhatsApp to your business number, from the phone that should talk to Porter.`,
    );
    expect(await section(page).locator('.pairing-expiry').textContent()).toMatch(
      /^The code works once and expires in (10|9) minutes \(at \d{2}:\d{2}\)\.$/,
    );

    // The secrets went only in the body of the connect request, and are no longer in the page.
    const secretIn = (r: { url: string; body: string | null }) =>
      [number.accessToken, number.appSecret].some((s) => r.url.includes(s) || (r.body ?? '').includes(s));
    expect(requests.filter(secretIn).map((r) => new URL(r.url).pathname)).toEqual([
      `/api/assistant/workers/${workerId}/channels`,
    ]);
    const html = await page.content();
    expect(html).not.toContain(number.accessToken);
    expect(html).not.toContain(number.appSecret);

    // "Check the webhook" makes Meta's handshake with the verify token given in this page
    const checkResult = section(page).locator('.webhook-result');
    await section(page).getByRole('button', { name: 'Check the webhook' }).click();
    expect(await settled(checkResult)).toBe(
      'The webhook answers this verify token as Meta expects. Meta will accept it.',
    );
    await saveSettingsScreenshots(page, 'settings-whatsapp-pairing');
    // a token that is not the channel's is refused, in words
    browser.allowConsoleErrors(/status of 403/);
    await field(page, 'Verify token to check').fill('not-the-token');
    await section(page).getByRole('button', { name: 'Check the webhook' }).click();
    expect(await settled(checkResult)).toContain('The webhook refused this verify token');
    expect(await field(page, 'Verify token to check').getAttribute('aria-invalid')).toBe('true');
    await saveSettingsScreenshots(page, 'settings-whatsapp-webhook-refused');

    // Meta saves the callback URL the page showed (its own handshake), then the user sends the code
    expect((await whatsapp.subscribe(number, { url: callbackUrl, verifyToken })).status).toBe(200);
    const waId = String(nextWaId++);
    expect((await whatsapp.userWrites(number, { waId, name: 'Priya Landlord' }, code)).status).toBe(200);
    const [welcome] = await whatsapp.waitForMessages(waId, 1);
    expect(welcome!.body).toMatch(/^Connected to Property Manager\./);
    await expect
      .poll(() => fact(page, 'channel-status').textContent(), { timeout: scaled(10_000) })
      .toBe(`Connected to Priya Landlord (+${waId})`);
    expect(await status(page).textContent()).toBe(
      `Connected to Priya Landlord (+${waId}). WhatsApp messages from that phone now go to Porter.`,
    );
    expect(await section(page).locator('.pairing-code').count()).toBe(0);
    // the webhook stays at hand, folded
    expect(await section(page).locator('.webhook-details').getAttribute('open')).toBeNull();
    await saveSettingsScreenshots(page, 'settings-whatsapp-connected');

    // Disconnect asks first; Escape keeps the channel.
    await section(page).getByRole('button', { name: 'Disconnect' }).click();
    expect(await section(page).locator('.confirm-question').textContent()).toBe(
      `Disconnect WhatsApp? Messages from Priya Landlord (+${waId}) will no longer reach Porter. You can connect the number again later, with a new callback URL.`,
    );
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Disconnect');
    expect((await channels()).map((c) => c.status)).toEqual(['connected']);

    await section(page).getByRole('button', { name: 'Disconnect' }).click();
    await section(page).getByRole('button', { name: 'Yes, disconnect' }).click();
    expect(await settled(status(page))).toBe(
      'Disconnected WhatsApp. Messages to your business number no longer reach Porter; you can remove the webhook in Meta.',
    );
    expect(await channels()).toEqual([]);
    expect(await field(page, 'Phone number ID').isVisible()).toBe(true);
    await saveSettingsScreenshots(page, 'settings-whatsapp-disconnected');
  });

  it('says in words why the details are refused or WhatsApp cannot be reached', async () => {
    browser.allowConsoleErrors(/status of (422|502)/);
    const number = whatsapp.addNumber();
    const other = whatsapp.addNumber();
    const page = await openSettings();
    const calls = whatsapp.calls.length;

    // not a phone number id: refused in the page, no request
    await fill(page, { ...details(number), phoneNumberId: '+44 7700 900123' });
    expect(await settled(status(page))).toBe(
      'The phone number ID is digits only (5 to 30 of them), as WhatsApp › API Setup shows it.',
    );
    expect(await field(page, 'Phone number ID').getAttribute('aria-invalid')).toBe('true');
    expect(whatsapp.calls.length).toBe(calls);

    // a verify token too short
    await fill(page, { ...details(number), verifyToken: 'short' });
    expect(await settled(status(page))).toBe(
      'Choose a verify token of 8 characters or more, or press Make one for me.',
    );
    expect(await field(page, 'Verify token').getAttribute('aria-invalid')).toBe('true');

    // a token Meta does not know: the server's words, the secret fields emptied, focus on the token
    await fill(page, { ...details(number), accessToken: 'EAAGnot-a-real-token-at-all' });
    const refused = await settled(status(page));
    expect(refused).toMatch(/^WhatsApp refused the access token \(invalid or expired\)\./);
    expect(refused).toContain('Nothing was connected');
    expect(await field(page, 'Access token').inputValue()).toBe('');
    expect(await field(page, 'App secret').inputValue()).toBe('');
    expect(await field(page, 'Access token').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('accessToken');
    await saveSettingsScreenshots(page, 'settings-whatsapp-refused');

    // a real token that cannot use this phone number id
    await fill(page, { ...details(number), accessToken: other.accessToken });
    expect(await settled(status(page))).toContain(
      `The access token cannot use the phone number id ${number.phoneNumberId}`,
    );

    // WhatsApp down
    whatsapp.down();
    await fill(page, details(number));
    expect(await settled(status(page))).toBe(
      'WhatsApp could not be reached, so nothing was connected. Check the internet connection of the computer Porter runs on, then paste the access token and app secret again and try again.',
    );
    expect(await channels()).toEqual([]);
  });

  it('fits a phone-sized screen, from the form to the pairing code', async () => {
    const number = whatsapp.addNumber();
    const page = await openSettings(PHONE, PHONE_DEVICE);
    const fits = () => expectFitsScreen(page, 'panel-settings');
    await fits();
    await expectTouchable(field(page, 'Phone number ID'), PHONE.width);
    await expectTouchable(section(page).getByRole('button', { name: 'Connect WhatsApp' }), PHONE.width);

    await fill(page, details(number));
    expect(await settled(status(page))).toContain('Two steps left');
    await fits();
    // the long callback URL breaks inside the card rather than widen it
    const url = (await fact(page, 'callback-url').boundingBox())!;
    expect(url.x + url.width).toBeLessThanOrEqual(PHONE.width);
    await expectTouchable(section(page).getByRole('button', { name: 'Check the webhook' }), PHONE.width);
    await expectTouchable(section(page).getByRole('button', { name: 'New code' }), PHONE.width);
    await section(page).locator('.webhook-steps').scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'settings-whatsapp-phone-390.png');
  });
});
