import { REMOTE_ACCESS_PAGE } from '@pa/contracts';
import { createLogger } from '@pa/http-kit';
import { saveScreenshot, scaled } from '@pa/http-kit/testing';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresWakeups } from '../../src/features/webhooks/delivery-wakeups.ts';
import { makeProperty } from '../support/factories.ts';
import { makeProposal, makeReviewTenant, type ReviewTenant } from '../support/proposal-factory.ts';
import type { TestBridge } from '../support/test-app.ts';
import { type Received, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { LOOPBACK_POLICY, TEST_SECRET_KEY, testSender } from '../support/webhooks.ts';
import {
  expectServedUnderCsp,
  KEY_REFUSED,
  openPage,
  pasteKey,
  screenshots,
  type SettingsPages,
  storedKey,
  toast,
  useSettingsPages,
} from './settings-page-support.ts';

// The remote-access settings page in a real browser against the real bridge and a real database
// (settings-page-support.ts), with a tenant of its own for each test (an admin key with every admin scope,
// access:manage included).

let t: TestBridge;
let server: SettingsPages['server'];
let browser: SettingsPages['browser'];
let sender: Awaited<ReturnType<typeof testSender>> | undefined;

// the admin API encrypts endpoint secrets with the key the test's sender signs with, and allows the loopback receiver
useSettingsPages(
  { now: new Date().toISOString(), webhooks: { secretKey: TEST_SECRET_KEY, policy: LOOPBACK_POLICY } },
  (pages) => {
    ({ t, server, browser } = pages);
  },
);

// before the bridge closes (the hooks after tests run last first)
afterAll(async () => {
  await sender?.stop();
});

const ALL_ADMIN_SCOPES = ['review:read', 'review:write', 'access:manage'];

/** A tenant with the bridge on and an admin key that may manage remote access (and review). */
function accessTenant(flags = ['assistant_external_bridge', 'assistant_bridge_review_queue']) {
  return makeReviewTenant(t, { flags, adminScopes: ALL_ADMIN_SCOPES });
}

async function openSettings(key: string, opts: { phone?: boolean } = {}): Promise<Page> {
  const page = await openPage(browser, `${server.baseUrl}${REMOTE_ACCESS_PAGE}`, opts);
  await pasteKey(page, key);
  await expect.poll(() => page.locator('#settings').isVisible()).toBe(true);
  // every section has loaded: the flags' switches are the last to need an answer
  await expect.poll(() => page.getByRole('switch').count()).toBe(4);
  return page;
}

/** The proposal an event the receiver verified is about. */
const proposalOf = (r: Received) => (r.body as { data?: { proposal_id?: number } }).data?.proposal_id;
const keyRow = (page: Page, label: string) => page.locator('#keys-list tr', { hasText: label });
const auditLines = (page: Page) => page.locator('#audit-list li').allTextContents();
const bridgeGet = (key: string) =>
  fetch(`${server.baseUrl}/api/assistant-bridge/portfolio`, { headers: { Authorization: `Bearer ${key}` } });

/** Creates a remote key on the page and returns the secret it shows once. */
async function createKey(page: Page, label: string, opts: { propose?: boolean } = {}): Promise<string> {
  await page.getByLabel('What is it for?').fill(label);
  if (opts.propose !== undefined)
    await page.getByLabel('Let the assistant propose changes').setChecked(opts.propose);
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.locator('#new-key [data-line="key"]');
  await expect.poll(() => shown.isVisible()).toBe(true);
  return shown.inputValue();
}

describe('GET /settings/remote-access', () => {
  it('serves the page and its assets under a CSP that allows only its own files', async () => {
    // a link may carry parameters the page does not read
    await expectServedUnderCsp(`${server.baseUrl}${REMOTE_ACCESS_PAGE}?utm_source=email`, [
      'remote-access.js',
      'remote-access.css',
    ]);
  });
});

describe('connecting an assistant', () => {
  it('creates a key with the right scopes in one action, shows it once with what to paste, and never again', async () => {
    const tenant = await accessTenant([
      'assistant_external_bridge',
      'assistant_bridge_review_queue',
      'assistant_bridge_writes',
    ]);
    const page = await openSettings(tenant.adminKey);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    expect(await storedKey(page)).toBe(tenant.adminKey);
    expect(await page.locator('#key-preview').textContent()).toBe(`${tenant.adminEmail} · ${tenant.name}`);

    // The three steps name this workspace's account and this platform's address.
    const steps = page.locator('#connect .step-title');
    expect(await steps.allTextContents()).toEqual([
      'Create a key for the assistant',
      'Paste it into the assistant’s Settings',
      'Test the connection',
    ]);
    expect(await page.locator('#account-slug').textContent()).toBe(tenant.slug);
    expect(await page.locator('#platform-line').textContent()).toBe(`PLATFORM_BASE_URL=${server.baseUrl}`);
    // writes are on, so the key may propose unless the admin says otherwise; the label is filled in
    expect(await page.getByLabel('Let the assistant propose changes').isChecked()).toBe(true);
    expect(await page.getByLabel('What is it for?').inputValue()).toBe(`Assistant for ${tenant.name}`);
    expect(await page.locator('#keys-list').textContent()).not.toContain('Lettings assistant');
    await screenshots(page, 'remote-access', { fullPage: true });

    // One press: the key, shown once, with the values to paste; the focus on them.
    const secret = await createKey(page, 'Lettings assistant');
    expect(secret).toMatch(/^plat_[A-Za-z0-9]{38}$/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('new-key');
    expect(await page.locator('#new-key [data-line="account"]').inputValue()).toBe(tenant.slug);
    expect(await page.locator('#new-key [data-line="platform-line"]').inputValue()).toBe(
      `PLATFORM_BASE_URL=${server.baseUrl}`,
    );
    expect(await page.locator('#new-key .reveal-warning').textContent()).toContain('only time it is shown');
    await expect
      .poll(() => toast(page).textContent())
      .toBe('Key “Lettings assistant” created. Copy it now: it is shown only once.');
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    expect(await page.locator('#new-key [data-copy="key"]').textContent()).toBe('Copied');
    await screenshots(page, 'remote-access-key-created');

    // The key works on the bridge, with both scopes, and the list shows it without its secret.
    const stored = await t.db.apiKey.findFirstOrThrow({
      where: { tenantId: tenant.id, label: 'Lettings assistant' },
    });
    expect(stored.scopes).toEqual(['bridge:read', 'bridge:propose']);
    expect((await bridgeGet(secret)).status).toBe(200);
    const row = keyRow(page, 'Lettings assistant');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator('[data-col="scopes"]').textContent()).toBe('ReadPropose changes');
    expect(await row.locator('[data-col="prefix"]').textContent()).toBe(`${secret.slice(0, 13)}…`);
    expect(await row.locator('[data-col="last-used"]').textContent()).toBe('Never');
    expect(await row.getAttribute('data-state')).toBe('active');
    expect(await page.locator('#keys-list').textContent()).not.toContain(secret);
    // its use shows on Refresh (recorded to the minute)
    await page.getByRole('button', { name: 'Refresh' }).first().click();
    await expect.poll(() => row.locator('[data-col="last-used"]').textContent()).toBe('just now');
    await expect
      .poll(() => auditLines(page))
      .toContainEqual(expect.stringMatching(new RegExp(`${tenant.adminEmail} created .*Lettings assistant`)));

    // "I have copied it" forgets it; so does a reload: the secret is nowhere on the page or in storage.
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.locator('#new-key').isVisible()).toBe(false);
    expect(await page.content()).not.toContain(secret);
    await createKey(page, 'Second assistant', { propose: false });
    const second = await page.locator('#new-key [data-line="key"]').inputValue();
    await page.reload();
    await expect.poll(() => keyRow(page, 'Second assistant').count()).toBe(1);
    expect(await page.locator('#new-key').isVisible()).toBe(false);
    expect(await page.content()).not.toContain(second);
    const storage = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(storage).not.toContain(second);
    expect(await keyRow(page, 'Second assistant').locator('[data-col="scopes"]').textContent()).toBe('Read');
  });

  it('creates a key with the keyboard alone', async () => {
    const tenant = await accessTenant();
    const page = await browser.openPage(`${server.baseUrl}${REMOTE_ACCESS_PAGE}`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('key-input');
    await page.keyboard.type(tenant.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('switch').count()).toBe(4);

    const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
    for (let i = 0; i < 30 && (await focused()) !== 'key-label'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('key-label');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Keyboard assistant');
    await page.keyboard.press('Tab'); // the checkbox: writes are off, so it is clear
    expect(await focused()).toBe('key-propose');
    expect(await page.getByLabel('Let the assistant propose changes').isChecked()).toBe(false);
    await page.keyboard.press('Enter'); // submits the form
    await expect.poll(focused).toBe('new-key');
    const outline = await page.locator('#new-key').evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).not.toBe('none');
    const secret = await page.locator('#new-key [data-line="key"]').inputValue();
    expect((await bridgeGet(secret)).status).toBe(200);
    const stored = await t.db.apiKey.findFirstOrThrow({
      where: { tenantId: tenant.id, label: 'Keyboard assistant' },
    });
    expect(stored.scopes).toEqual(['bridge:read']);
  });
});

describe('revoking', () => {
  it('revokes a key after a confirmation in place, and the bridge refuses it at once', async () => {
    const tenant = await accessTenant();
    const page = await openSettings(tenant.adminKey);
    const secret = await createKey(page, 'Old assistant');
    expect((await bridgeGet(secret)).status).toBe(200);
    const row = keyRow(page, 'Old assistant');
    await expect.poll(() => row.count()).toBe(1);

    // Escape puts the button back; nothing is revoked.
    await row.getByRole('button', { name: 'Revoke “Old assistant”' }).click();
    // the question in a row of its own under the key's, the Revoke button hidden meanwhile
    const confirm = page.locator('#keys-list').getByRole('group', { name: /^Revoke “Old assistant”\?/ });
    expect(await confirm.locator('.confirm-question').textContent()).toBe(
      'Revoke “Old assistant”? The assistant using it stops working at once.',
    );
    expect(await row.getByRole('button', { name: 'Revoke “Old assistant”' }).isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Revoke key');
    await screenshots(page, 'remote-access-revoke-confirm');
    await page.keyboard.press('Escape');
    await expect.poll(() => confirm.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Revoke “Old assistant”',
    );
    expect((await bridgeGet(secret)).status).toBe(200);

    await row.getByRole('button', { name: 'Revoke “Old assistant”' }).click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => row.getAttribute('data-state')).toBe('revoked');
    // its secret, still on show from its creation, is not worth copying any more
    expect(await page.locator('#new-key').isVisible()).toBe(false);
    expect(await row.locator('[data-col="status"]').textContent()).toMatch(
      /^Revoked \d{1,2} [A-Z][a-z]{2,3} \d{4}/,
    );
    await expect
      .poll(() => toast(page).textContent())
      .toBe('Key “Old assistant” revoked. It no longer works.');
    const refused = await bridgeGet(secret);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe('invalid-api-key');
    await expect
      .poll(() => auditLines(page))
      .toContainEqual(expect.stringMatching(new RegExp(`${tenant.adminEmail} revoked .*Old assistant`)));
    await screenshots(page, 'remote-access-revoked', { fullPage: true });
  });

  it('warns a second time before the last admin key that may manage access revokes itself', async () => {
    browser.allowConsoleErrors(/status of 409/);
    const tenant = await accessTenant();
    const page = await openSettings(tenant.adminKey);
    const own = page.locator('#admin-keys-list tr', { hasText: 'This key' });
    await expect.poll(() => own.count()).toBe(1);
    await own.getByRole('button', { name: /^Revoke/ }).click();
    const confirm = page.locator('#admin-keys-list .confirm');
    expect(await confirm.locator('.confirm-question').textContent()).toContain(
      'This is the key you are using',
    );
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await expect
      .poll(() => confirm.locator('.confirm-question').textContent())
      .toContain('This is the last admin key that may manage remote access.');
    await screenshots(page, 'remote-access-last-admin');
    expect((await t.db.apiKey.findUniqueOrThrow({ where: { id: tenant.adminKeyId } })).revokedAt).toBeNull();

    await confirm.getByRole('button', { name: 'Revoke it anyway' }).click();
    await expect
      .poll(() => page.locator('#key-input-error').textContent())
      .toBe('Your admin key is revoked. Paste another admin key to go on.');
    expect(await storedKey(page)).toBeNull();
    expect(
      (await t.db.apiKey.findUniqueOrThrow({ where: { id: tenant.adminKeyId } })).revokedAt,
    ).not.toBeNull();
  });
});

describe('flags', () => {
  it('switches a flag on and off, and the platform takes it at once', async () => {
    const tenant = await accessTenant();
    const page = await openSettings(tenant.adminKey);
    const writes = page.getByRole('switch', { name: 'Proposals from assistants' });
    expect(await writes.getAttribute('aria-checked')).toBe('false');
    expect(await page.locator('[data-flag="assistant_bridge_writes"] .switch-desc').textContent()).toMatch(
      /^Lets assistants propose/,
    );
    expect(await page.getByRole('switch', { name: 'Assistant access' }).getAttribute('aria-checked')).toBe(
      'true',
    );

    await writes.click();
    await expect.poll(() => writes.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => toast(page).textContent()).toBe('Proposals from assistants switched on.');
    const flags = async () =>
      (await t.db.tenantFlag.findMany({ where: { tenantId: tenant.id, enabled: true } })).map((f) => f.flag);
    expect(await flags()).toContain('assistant_bridge_writes');
    // a key created now may propose by default
    expect(await page.getByLabel('Let the assistant propose changes').isChecked()).toBe(true);
    await expect
      .poll(() => auditLines(page))
      .toContainEqual(
        expect.stringMatching(new RegExp(`${tenant.adminEmail} switched on .*assistant_bridge_writes`)),
      );
    await screenshots(page, 'remote-access-flag-on');

    // From the keyboard: Space on the focused switch turns it off again.
    await writes.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => writes.getAttribute('aria-checked')).toBe('false');
    expect(await flags()).not.toContain('assistant_bridge_writes');
    await page.reload();
    await expect.poll(() => page.getByRole('switch').count()).toBe(4);
    expect(await writes.getAttribute('aria-checked')).toBe('false');
  });
});

describe('signed events', () => {
  let receiver: WebhookReceiver;
  let secret = '';

  beforeAll(async () => {
    receiver = await startWebhookReceiver(() => secret);
    // woken by the database's notifications as the platform process's sender is, so a delivery goes at once
    sender = await testSender(t, {
      wakeups: postgresWakeups(t.databaseUrl, createLogger('platform-bridge', 'silent')),
    });
  });
  afterAll(() => receiver?.close());

  it('adds an endpoint (secret shown once), shows a delivery, sends it again, and removes the endpoint', async () => {
    const tenant: ReviewTenant = await accessTenant();
    const page = await openSettings(tenant.adminKey);
    expect(await page.locator('#events-off').isVisible()).toBe(true);
    await page.getByRole('switch', { name: 'Signed events' }).click();
    await expect.poll(() => page.locator('#events-off').isVisible()).toBe(false);

    await page.getByLabel('Add an endpoint').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.locator('#new-endpoint [data-line="secret"]');
    await expect.poll(() => shown.isVisible()).toBe(true);
    secret = await shown.inputValue();
    expect(secret).toMatch(/^whsec_/);
    const endpoint = page.locator('li.endpoint', { hasText: receiver.url });
    await expect.poll(() => endpoint.count()).toBe(1);
    expect(await endpoint.locator('.empty-line').textContent()).toBe('Nothing sent here yet.');
    await screenshots(page, 'remote-access-endpoint-added', { fullPage: true });

    // An event: a proposal approved through the review queue's API.
    const property = await makeProperty(t, tenant.id);
    const proposal = await makeProposal(t, tenant.id, 'deal', {
      title: 'Let-only instruction – 4 Quay Street',
      property_id: property.id,
      deal_type: 'letting',
    });
    const approved = await fetch(`${server.baseUrl}/api/admin/proposals/${proposal.id}/approve`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tenant.adminKey}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(approved.status).toBe(200);
    await receiver.waitFor(() => receiver.received.some((r) => proposalOf(r) === proposal.id));
    const first = receiver.received.find((r) => proposalOf(r) === proposal.id)!;

    await page.getByRole('button', { name: 'Refresh' }).nth(1).click();
    const delivery = endpoint.locator('tr[data-status]');
    await expect.poll(() => delivery.getAttribute('data-status')).toBe('succeeded');
    expect(await delivery.locator('th').textContent()).toBe('Proposal approved');
    expect(await delivery.locator('[data-col="result"]').textContent()).toBe('Delivered (answered 204)');
    await screenshots(page, 'remote-access-delivery', { fullPage: true });

    // Redeliver: the same webhook-id again, which the receiver verifies with the secret the page showed.
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await receiver.waitFor(() => receiver.counts.get(first.webhookId) === 2);
    expect(receiver.rejected).toBe(0);
    await expect
      .poll(() => auditLines(page))
      .toContainEqual(expect.stringMatching(new RegExp(`${tenant.adminEmail} sent again`)));

    // Remove, confirmed in place.
    await endpoint.getByRole('button', { name: `Remove ${receiver.url}` }).click();
    await endpoint.getByRole('button', { name: 'Remove endpoint' }).click();
    await expect.poll(() => page.locator('li.endpoint').count()).toBe(0);
    expect(await page.locator('#endpoints').textContent()).toBe('No endpoints yet: events go nowhere.');
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(0);
  });

  it('says in words why an address is refused', async () => {
    browser.allowConsoleErrors(/status of 4\d\d/);
    const tenant = await accessTenant();
    const page = await openSettings(tenant.adminKey);
    const url = page.getByLabel('Add an endpoint');
    await url.fill('ftp://example.com/hooks');
    await url.press('Enter');
    await expect
      .poll(() => page.locator('#endpoint-url-error').textContent())
      .toMatch(/^The platform will not send events there\. /);
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    await url.fill('');
    await url.press('Enter');
    expect(await page.locator('#endpoint-url-error').textContent()).toBe(
      'Enter the address events should be sent to.',
    );
  });
});

describe('errors in words', () => {
  it('refuses a bad key, an assistant’s key and a key that may not manage access, in words', async () => {
    browser.allowConsoleErrors(/status of 401/);
    const tenant = await accessTenant();
    const page = await browser.openPage(`${server.baseUrl}${REMOTE_ACCESS_PAGE}`);
    const error = page.locator('#key-input-error');

    await pasteKey(page, tenant.key); // the assistant's remote key
    await expect.poll(() => error.textContent()).toMatch(/need an admin key, which starts with padm_/);

    const wrong = tenant.adminKey.slice(0, -6) + (tenant.adminKey.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA');
    await pasteKey(page, wrong);
    await expect.poll(() => error.textContent()).toBe(KEY_REFUSED);
    expect(await page.getByRole('textbox', { name: 'Admin key' }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#settings').isVisible()).toBe(false);
    expect(await storedKey(page)).toBeNull();
    await screenshots(page, 'remote-access-bad-key');

    // A reviewer's key: accepted, but it may not manage access; the page says so and links to the queue.
    const reviewer = await makeReviewTenant(t, { adminScopes: ['review:read', 'review:write'] });
    await pasteKey(page, reviewer.adminKey);
    await expect.poll(() => page.locator('#no-access').isVisible()).toBe(true);
    expect(await page.locator('#no-access').innerText()).toMatch(
      /cannot manage remote access[\s\S]*access:manage/,
    );
    expect(await page.locator('#settings').isVisible()).toBe(false);
    await screenshots(page, 'remote-access-no-access');
    await page.locator('#no-access').getByRole('link', { name: 'review queue' }).click();
    await expect.poll(() => page.url()).toBe(`${server.baseUrl}/settings/review-queue`);
    // the same key opens the queue without being pasted again
    await expect.poll(() => page.locator('#queue-panel').isVisible()).toBe(true);
  });

  it('asks for the key again when it is revoked while the page is open', async () => {
    browser.allowConsoleErrors(/status of 401/);
    const tenant = await accessTenant();
    const page = await openSettings(tenant.adminKey);
    await t.admin.revokeKey(tenant.adminKeyId);
    await page.getByRole('switch', { name: 'Review queue' }).click();
    await expect.poll(() => page.locator('#key-input-error').textContent()).toBe(KEY_REFUSED);
    expect(await storedKey(page)).toBeNull();
    expect(await page.locator('#settings').isVisible()).toBe(false);
  });

  it('links to the review queue and back', async () => {
    const tenant = await accessTenant();
    const page = await openSettings(tenant.adminKey);
    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'Review queue' })
      .click();
    await expect.poll(() => page.locator('#queue-panel').isVisible()).toBe(true);
    const nav = page.getByRole('navigation', { name: 'Settings' });
    expect(await nav.getByRole('link', { name: 'Review queue' }).getAttribute('aria-current')).toBe('page');
    await nav.getByRole('link', { name: 'Remote access' }).click();
    await expect.poll(() => page.getByRole('switch').count()).toBe(4);
  });
});

describe('on a phone', () => {
  it('fits 375 px without sideways scrolling, with thumb-sized controls, in light and dark', async () => {
    const tenant = await accessTenant();
    const page = await openSettings(tenant.adminKey, { phone: true });
    await createKey(page, 'Phone assistant');
    await expect.poll(() => keyRow(page, 'Phone assistant').count()).toBe(1);
    const fits = () => page.evaluate(() => document.documentElement.scrollWidth);
    expect(await fits()).toBeLessThanOrEqual(375);
    const touchable = async (l: Locator) => {
      const box = await l.boundingBox();
      expect(box!.height).toBeGreaterThanOrEqual(44);
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    };
    await touchable(page.getByRole('button', { name: 'Create key' }));
    await touchable(page.getByRole('button', { name: 'Copy key' }));
    await touchable(page.getByRole('switch', { name: 'Signed events' }));
    await touchable(keyRow(page, 'Phone assistant').getByRole('button', { name: /^Revoke/ }));
    await saveScreenshot(page, 'remote-access-phone-toast.png');
    // one screen at a time, each section from its top, once the status line has gone (it stays 8 s)
    await expect
      .poll(() => toast(page).evaluate((el) => el.classList.contains('toast-visible')), {
        timeout: scaled(15_000),
      })
      .toBe(false);
    await screenshots(page, 'remote-access-phone');
    for (const section of ['keys', 'flags', 'events']) {
      await page.evaluate((id) => document.getElementById(id)!.scrollIntoView(), section);
      await screenshots(page, `remote-access-phone-${section}`);
    }
  });
});
