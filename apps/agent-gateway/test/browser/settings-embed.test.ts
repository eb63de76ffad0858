import { EMBED_KEY, EMBED_VISITOR_SECRET, EmbedKeyCreated, EmbedKeysResponse } from '@pa/contracts';
import { type Page } from 'playwright-core';
import {
  BrowserHarness,
  DEFAULT_VIEWPORT,
  expectNoPageProblems,
  PHONE_VIEWPORT,
  scaled,
} from '@pa/http-kit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, newWorkspace, pairDevice, type PairedDevice, TOKEN_ENV } from '../support/access.ts';
import { expectContract } from '../support/http.ts';
import { expectFitsScreen, expectTouchable } from '../support/phone-fit.ts';
import { saveSettingsScreenshots } from '../support/settings-screenshots.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';

// The Settings tab's "Embed on a website" section (docs/embedding.md) in real Chromium against the real gateway with
// GATEWAY_AUTH=token: an admin device makes a key (its snippet, key and secret shown once), sees it listed, and
// revokes it; a key for signed-in visitors only (the box is ticked and locked while "Let it propose changes" is,
// since a key that can propose must require a visitor token); a device without the admin scope does not see the
// section.

let browser: BrowserHarness;
let g: TestGateway;
let workspaceId: string;
let workerId: string;
let admin: PairedDevice;
let settingsOnly: PairedDevice;

beforeAll(async () => {
  [browser, g] = await Promise.all([
    BrowserHarness.launch(),
    startTestGateway({
      env: { ...TOKEN_ENV, AI_WORKERS_ENABLED: 'true', CHAT_RATE_LIMIT_PER_MIN: '1000' },
      redis: 'none',
    }),
  ]);
  // the only workspace and worker of this gateway's database: the chat's own (the default worker)
  workspaceId = await newWorkspace(g, 'embed-ui');
  workerId = (
    await g.db.worker.create({ data: { workspaceId, name: 'Property Manager', skillPacks: ['property-uk'] } })
  ).id;
  admin = await pairDevice(g, workspaceId, ['chat', 'workers:write', 'admin'], 'Office laptop');
  settingsOnly = await pairDevice(g, workspaceId, ['chat', 'workers:write'], 'Sam’s phone');
}, scaled(60_000));
afterAll(async () => {
  await browser?.close();
  await g?.close();
});
afterEach(async () => {
  expectNoPageProblems(await browser.endTest());
});

/** The gw_session cookie's value out of a Set-Cookie header. */
const sessionCookie = (setCookie: string) => /gw_session=([^;]+)/.exec(setCookie)![1]!;

/** The Settings tab as `device` sees it, loaded. */
async function openSettingsAs(device: PairedDevice, viewport = DEFAULT_VIEWPORT): Promise<Page> {
  const page = await browser.openPage(`${g.baseUrl}/`, viewport);
  await page
    .context()
    .addCookies([{ name: 'gw_session', value: sessionCookie(device.cookie), url: g.baseUrl }]);
  await page.reload();
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect.poll(() => page.locator('#settings-root').getAttribute('aria-busy')).toBe('false');
  await expect.poll(() => page.locator('#settings-root article.worker').count()).toBe(1);
  return page;
}

const section = (page: Page) => page.getByRole('region', { name: 'Embed on a website' });
const status = (page: Page) => section(page).getByRole('status');
const created = (page: Page) => section(page).getByRole('group', { name: 'Copy these now' });
const liveKeys = (page: Page) => section(page).locator('.embed-key[data-state="live"]');
const SIGNED_IN_LABEL = 'Only visitors your site signs in (a visitor token is required)';

async function keysOverApi() {
  const res = await fetch(`${g.baseUrl}/api/assistant/workers/${workerId}/embed-keys`, {
    headers: { ...adminHeaders, 'X-Workspace-Id': workspaceId },
  });
  expect(res.status).toBe(200);
  return expectContract(EmbedKeysResponse, await res.json()).embedKeys;
}

/** Waits for the section's status to settle (not "Making the key…") and returns it. */
async function settledStatus(page: Page): Promise<string> {
  await expect
    .poll(() => status(page).getAttribute('data-kind'), { timeout: scaled(10_000) })
    .not.toBe('pending');
  return (await status(page).textContent()) ?? '';
}

describe('the Embed on a website section', () => {
  it('makes a key, shows its snippet, key and secret once, lists it, and revokes it', async () => {
    browser.allowConsoleErrors(/status of 400/);
    const page = await openSettingsAs(admin);
    await expect.poll(() => section(page).getAttribute('aria-busy')).toBe('false');
    expect(await section(page).textContent()).toContain('Put a chat with Porter on your own website');
    expect(await liveKeys(page).count()).toBe(0);
    await saveSettingsScreenshots(page, 'settings-embed-none');

    // The form: the websites first, the warning beside the proposals box, the limits closed with their defaults.
    await section(page).getByRole('button', { name: 'Make an embed key' }).click();
    const origins = section(page).getByLabel('Websites it may appear on');
    await expect.poll(() => origins.evaluate((e) => e === document.activeElement)).toBe(true);
    const propose = section(page).getByLabel('Let it propose changes');
    expect(await propose.isChecked()).toBe(false);
    expect(await propose.getAttribute('aria-describedby')).toBeTruthy();
    expect(await section(page).locator('.embed-warning').textContent()).toContain('review queue');

    // Bad websites, said in words: one the page can tell, one only the gateway refuses.
    await origins.fill('www.agency.test');
    await section(page).getByRole('button', { name: 'Make key' }).click();
    expect(await settledStatus(page)).toContain('“www.agency.test” is not a full web address');
    expect(await origins.getAttribute('aria-invalid')).toBe('true');
    await origins.fill('https://www.agency.test/lettings/flat-3');
    await section(page).getByRole('button', { name: 'Make key' }).click();
    expect(await settledStatus(page)).toContain('use the address without the page, https://www.agency.test');
    await origins.fill('http://agency.test');
    await section(page).getByRole('button', { name: 'Make key' }).click();
    expect(await settledStatus(page)).toBe(
      'The website address http://agency.test cannot be used: it must use https:// (http:// only for localhost and 127.0.0.1).',
    );
    expect(await origins.getAttribute('aria-invalid')).toBe('true');
    await section(page).locator('summary', { hasText: 'Limits' }).click();
    const perVisitor = section(page).getByLabel('Messages a minute from one visitor');
    expect(await perVisitor.inputValue()).toBe('10');
    await perVisitor.fill('601');
    await origins.fill('https://www.agency.test');
    await section(page).getByRole('button', { name: 'Make key' }).click();
    expect(await settledStatus(page)).toContain('enter a whole number from 1 to 600');
    expect(await perVisitor.getAttribute('aria-invalid')).toBe('true');
    expect(await keysOverApi()).toEqual([]);

    // A good one: a copied address's trailing slash is tidied; a site on its own port; a name; proposals allowed,
    // which ticks "signed-in visitors only" with it and locks it (a key that proposes must require a token).
    await origins.fill('https://www.agency.test/\nhttps://intranet.agency.test:8443');
    await section(page).getByLabel('Name (optional)').fill('Property pages');
    const signedIn = section(page).getByLabel(SIGNED_IN_LABEL);
    expect(await signedIn.isChecked()).toBe(false);
    await propose.check();
    expect(await signedIn.isChecked()).toBe(true);
    expect(await signedIn.isDisabled()).toBe(true);
    await perVisitor.fill('5');
    await saveSettingsScreenshots(page, 'settings-embed-form');
    await section(page).getByRole('button', { name: 'Make key' }).click();
    await expect.poll(() => created(page).isVisible(), { timeout: scaled(10_000) }).toBe(true);
    // the heading takes focus, so that a screen reader reads what to do
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Copy these now');

    const [stored] = await keysOverApi();
    expect(stored).toMatchObject({
      label: 'Property pages',
      origins: ['https://www.agency.test', 'https://intranet.agency.test:8443'],
      allowProposals: true,
      requireVisitorToken: true,
      budgets: { visitorPerMinute: 5, ipPerMinute: 30, workspacePerDay: 2000 },
      revokedAt: null,
    });
    const value = (name: string) => created(page).locator(`[data-copy="${name}"] .embed-value`).textContent();
    const embedKey = (await value('key'))!;
    const secret = (await value('secret'))!;
    expect(embedKey).toMatch(EMBED_KEY);
    expect(secret).toMatch(EMBED_VISITOR_SECRET);
    expect(embedKey.slice(0, 8)).toBe(stored!.keyPrefix);
    expect(await value('snippet')).toBe(
      `<script src="${g.baseUrl}/embed.js" data-embed-key="${embedKey}" async></script>`,
    );
    const copySnippet = created(page).locator('[data-copy="snippet"] button.embed-copy');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: g.baseUrl });
    await copySnippet.click();
    await expect.poll(() => copySnippet.textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await value('snippet'));
    await saveSettingsScreenshots(page, 'settings-embed-created');

    // On a phone the once-only box, with its long key and secret, fits the screen and its buttons are touchable.
    await page.setViewportSize(PHONE_VIEWPORT);
    await expectFitsScreen(page, 'panel-settings');
    await expectTouchable(copySnippet, PHONE_VIEWPORT.width);
    await expectTouchable(
      created(page).getByRole('button', { name: 'Done: I have copied them' }),
      PHONE_VIEWPORT.width,
    );
    await page.setViewportSize(DEFAULT_VIEWPORT);

    // Listed in words; once done, the key and the secret are gone from the page.
    expect(await liveKeys(page).count()).toBe(1);
    const item = liveKeys(page).first();
    expect(await item.locator('.device-name').textContent()).toBe('Property pages');
    expect(await item.locator('[data-fact="key-prefix"]').textContent()).toBe(`${stored!.keyPrefix}…`);
    expect(await item.locator('[data-fact="access"]').textContent()).toBe('Can propose changes');
    expect(await item.locator('[data-fact="visitors"]').textContent()).toBe('Signed-in visitors only');
    expect(await item.locator('[data-fact="origins"]').textContent()).toBe(
      'Works on https://www.agency.test and https://intranet.agency.test:8443',
    );
    expect(await item.locator('[data-fact="budgets"]').textContent()).toBe(
      'At most 5 messages a minute per visitor, 30 per network address and 2,000 a day across all your website chats (the smallest daily limit of your keys applies to all).',
    );
    expect(await item.locator('[data-fact="used"]').textContent()).toMatch(/^Made .+ · Not used yet$/);
    await created(page).getByRole('button', { name: 'Done: I have copied them' }).click();
    expect(await created(page).count()).toBe(0);
    expect(await page.content()).not.toContain(embedKey);
    expect(await page.content()).not.toContain(secret);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent))
      .toBe('Make an embed key');

    // Seen again after a reload: listed, never the key or the secret.
    await page.reload();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect.poll(() => liveKeys(page).count()).toBe(1);
    expect(await page.content()).not.toContain(embedKey);
    expect(await page.content()).not.toContain(secret);

    // Revoke, asked in place.
    await liveKeys(page)
      .first()
      .getByRole('button', { name: /^Revoke Property pages/ })
      .click();
    expect(await section(page).locator('.confirm-question').textContent()).toBe(
      'Revoke Property pages? The chat stops working on https://www.agency.test and https://intranet.agency.test:8443 within a few seconds. To embed it again you make a new key.',
    );
    await saveSettingsScreenshots(page, 'settings-embed-confirm');
    await section(page).getByRole('button', { name: 'Yes, revoke' }).click();
    await expect
      .poll(() => status(page).textContent(), { timeout: scaled(10_000) })
      .toBe(
        'Property pages was revoked: the chat no longer works on https://www.agency.test and https://intranet.agency.test:8443.',
      );
    expect(await liveKeys(page).count()).toBe(0);
    const revoked = section(page).locator('details.embed-revoked');
    expect(await revoked.locator('summary').textContent()).toBe('Revoked keys (1)');
    await revoked.locator('summary').click();
    expect(await revoked.locator('[data-fact="used"]').textContent()).toMatch(/ · Revoked /);
    expect(await revoked.locator('[data-fact="access"]').textContent()).toBe('Revoked');
    expect(await revoked.locator('[data-fact="origins"]').textContent()).toMatch(/^Worked on /);
    expect(await revoked.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    expect((await keysOverApi())[0]!.revokedAt).not.toBeNull();
    await saveSettingsScreenshots(page, 'settings-embed-revoked');
  });

  it('makes a read-only key with the default limits when nothing else is asked', async () => {
    const page = await openSettingsAs(admin, PHONE_VIEWPORT);
    await section(page).getByRole('button', { name: 'Make an embed key' }).click();
    await section(page).getByLabel('Websites it may appear on').fill('http://localhost:5173');
    await section(page).getByRole('button', { name: 'Make key' }).click();
    await expect.poll(() => created(page).isVisible(), { timeout: scaled(10_000) }).toBe(true);
    const [latest] = await keysOverApi();
    expect(latest).toMatchObject({
      label: '',
      origins: ['http://localhost:5173'],
      allowProposals: false,
      budgets: { visitorPerMinute: 10, ipPerMinute: 30, workspacePerDay: 2000 },
    });
    const item = liveKeys(page).first();
    expect(await item.locator('.device-name').textContent()).toBe('Website chat');
    expect(await item.locator('[data-fact="access"]').textContent()).toBe('Read-only');
    expect(await item.locator('[data-fact="toolset"]').textContent()).toBe(
      'Porter answers questions only: it cannot propose changes from this website.',
    );
    expect(await item.locator('[data-fact="visitors"]').count()).toBe(0);
    expect(await item.locator('[data-fact="who"]').textContent()).toBe(
      'Anyone who opens these websites can use it, signed in or not.',
    );
    await expectFitsScreen(page, 'panel-settings');
  });

  it('makes a key for signed-in visitors only with the checkbox, which the proposals box ticks and locks while it is ticked', async () => {
    const page = await openSettingsAs(admin);
    await section(page).getByRole('button', { name: 'Make an embed key' }).click();
    await section(page).getByLabel('Websites it may appear on').fill('https://intranet.agency.test');
    await section(page).getByLabel('Name (optional)').fill('Staff intranet');
    const signedIn = section(page).getByLabel(SIGNED_IN_LABEL);
    const propose = section(page).getByLabel('Let it propose changes');
    // its one-line explanation is read with it
    const hintId = await signedIn.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${hintId}"]`).textContent()).toBe(
      'Others are asked to sign in; your site vouches for each visitor with the visitor secret.',
    );

    // ticked by hand, it stays as the user set it while proposals go on and off
    await signedIn.check();
    await propose.check();
    await propose.uncheck();
    expect(await signedIn.isChecked()).toBe(true);
    expect(await signedIn.isDisabled()).toBe(false);
    await saveSettingsScreenshots(page, 'settings-embed-form-signed-in');
    await section(page).getByRole('button', { name: 'Make key' }).click();
    await expect.poll(() => created(page).isVisible(), { timeout: scaled(10_000) }).toBe(true);
    const [latest] = await keysOverApi();
    expect(latest).toMatchObject({
      label: 'Staff intranet',
      origins: ['https://intranet.agency.test'],
      allowProposals: false,
      requireVisitorToken: true,
    });
    await created(page).getByRole('button', { name: 'Done: I have copied them' }).click();
    const item = liveKeys(page).first();
    expect(await item.locator('.device-name').textContent()).toBe('Staff intranet');
    expect(await item.locator('[data-fact="access"]').textContent()).toBe('Read-only');
    expect(await item.locator('[data-fact="visitors"]').textContent()).toBe('Signed-in visitors only');
    expect(await item.locator('[data-fact="who"]').textContent()).toBe(
      'Only visitors your website signs in can use it: anyone else is asked to sign in.',
    );
    await saveSettingsScreenshots(page, 'settings-embed-signed-in');

    // a key that can propose cannot take anonymous visitors: the box is ticked and locked, and says why; without
    // proposals it is the user's again, as they left it
    await section(page).getByRole('button', { name: 'Make an embed key' }).click();
    await section(page).getByLabel('Websites it may appear on').fill('https://office.agency.test');
    expect(await signedIn.isChecked()).toBe(false);
    await propose.check();
    expect(await signedIn.isChecked()).toBe(true);
    expect(await signedIn.isDisabled()).toBe(true);
    expect(await page.locator(`[id="${hintId}"]`).textContent()).toBe(
      'Required for a key that can propose changes. Others are asked to sign in; your site vouches for each visitor with the visitor secret.',
    );
    await saveSettingsScreenshots(page, 'settings-embed-form-propose-locked');
    await propose.uncheck();
    expect(await signedIn.isChecked()).toBe(false);
    expect(await signedIn.isDisabled()).toBe(false);
    await propose.check();
    await section(page).getByRole('button', { name: 'Make key' }).click();
    await expect.poll(() => created(page).isVisible(), { timeout: scaled(10_000) }).toBe(true);
    expect((await keysOverApi())[0]).toMatchObject({
      origins: ['https://office.agency.test'],
      allowProposals: true,
      requireVisitorToken: true,
    });
  });

  it('edits a key’s websites in place, with the keyboard, and keeps the key and its snippet', async () => {
    browser.allowConsoleErrors(/status of 400/);
    const res = await fetch(`${g.baseUrl}/api/assistant/workers/${workerId}/embed-keys`, {
      method: 'POST',
      headers: { ...adminHeaders, 'X-Workspace-Id': workspaceId, 'content-type': 'application/json' },
      body: JSON.stringify({
        label: 'Lettings site',
        origins: ['https://www.lettings.test'],
        requireVisitorToken: true,
        budgets: { visitorPerMinute: 7 },
      }),
    });
    expect(res.status).toBe(201);
    const made = expectContract(EmbedKeyCreated, await res.json());
    const page = await openSettingsAs(admin);
    await expect.poll(() => liveKeys(page).count()).toBeGreaterThan(0);
    const item = section(page).locator(`.embed-key[data-embed-key-id="${made.key.id}"]`);

    // Opened from the keyboard: the same form, filled with the key's settings, saying the snippet stays.
    await item.getByRole('button', { name: /^Edit Lettings site/ }).focus();
    await page.keyboard.press('Enter');
    const form = item.locator('form');
    const origins = form.getByLabel('Websites it may appear on');
    await expect.poll(() => origins.evaluate((e) => e === document.activeElement)).toBe(true);
    expect(await form.locator('legend').textContent()).toBe('Edit Lettings site');
    expect(await form.textContent()).toContain('The snippet on your site stays the same');
    expect(await origins.inputValue()).toBe('https://www.lettings.test');
    expect(await form.getByLabel('Name (optional)').inputValue()).toBe('Lettings site');
    expect(await form.getByLabel('Let it propose changes').isChecked()).toBe(false);
    expect(await form.getByLabel(SIGNED_IN_LABEL).isChecked()).toBe(true);
    expect(await form.getByLabel('Messages a minute from one visitor').inputValue()).toBe('7');
    // one form at a time
    expect(await section(page).getByRole('button', { name: 'Make an embed key' }).count()).toBe(1);

    // A website the gateway refuses, said in words; nothing saved.
    await origins.fill('https://www.lettings.test\nhttp://second-site.test');
    await form.getByRole('button', { name: 'Save' }).click();
    expect(await settledStatus(page)).toBe(
      'The website address http://second-site.test cannot be used: it must use https:// (http:// only for localhost and 127.0.0.1).',
    );
    expect(await origins.getAttribute('aria-invalid')).toBe('true');
    expect((await keysOverApi()).find((k) => k.id === made.key.id)?.origins).toEqual([
      'https://www.lettings.test',
    ]);

    // The second website added; typed, then saved with Enter from the name field.
    await origins.fill('https://www.lettings.test\nhttps://second-site.test/');
    await saveSettingsScreenshots(page, 'settings-embed-edit');
    await form.getByLabel('Name (optional)').press('Enter');
    await expect
      .poll(() => status(page).textContent(), { timeout: scaled(10_000) })
      .toBe(
        'Lettings site was saved: it now works on https://www.lettings.test and https://second-site.test. The snippet on your site stays the same.',
      );
    expect(await item.locator('form').count()).toBe(0);
    expect(await item.locator('[data-fact="origins"]').textContent()).toBe(
      'Works on https://www.lettings.test and https://second-site.test',
    );
    expect(await item.locator('[data-fact="key-prefix"]').textContent()).toBe(`${made.key.keyPrefix}…`);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Edit');
    const stored = (await keysOverApi()).find((k) => k.id === made.key.id);
    expect(stored).toEqual({
      ...made.key,
      origins: ['https://www.lettings.test', 'https://second-site.test'],
      lastUsedAt: stored!.lastUsedAt,
    });
    await saveSettingsScreenshots(page, 'settings-embed-edited');

    // Cancel changes nothing and gives the focus back to Edit.
    await item.getByRole('button', { name: /^Edit Lettings site/ }).click();
    await item.locator('form').getByLabel('Websites it may appear on').fill('https://other.test');
    await item.getByRole('button', { name: 'Cancel' }).click();
    expect(await item.locator('[data-fact="origins"]').textContent()).toContain('https://second-site.test');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Edit');
    expect((await keysOverApi()).find((k) => k.id === made.key.id)?.origins).toHaveLength(2);
  });

  it('is not shown to a device that may change settings but not manage Porter', async () => {
    const page = await openSettingsAs(settingsOnly);
    expect(await page.locator('#settings-root').textContent()).toContain('Property Manager');
    expect(await section(page).count()).toBe(0);
  });
});
