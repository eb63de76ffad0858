import {
  BrowserHarness,
  expectNoPageProblems,
  PHONE_VIEWPORT,
  saveScreenshot,
  scaled,
} from '@pa/http-kit/testing';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { SETTINGS_SHARED_PATH } from '../../src/features/review-queue/settings-page.ts';
import { listenTestBridge, startTestBridge, type TestBridge } from '../support/test-app.ts';

// What the browser tests of the settings pages (the review queue, remote access) share: the real bridge on a free
// port and one browser (the system Chromium, driven by playwright-core) for the file, a fresh context per test that
// must leave no page problems behind; the key form; the pages' CSP; screenshots in light and dark.

export const KEY_REFUSED = 'That admin key was not accepted. Check it and paste it again.';
/** Where the pages keep the admin key: one name for all, so that a key pasted on one opens the others. */
export const KEY_STORAGE = 'review-queue.admin-key';

export interface SettingsPages {
  t: TestBridge;
  server: { baseUrl: string; close(): Promise<void> };
  browser: BrowserHarness;
}

/**
 * Starts the bridge (with `options`) and the browser before the file's tests and closes them after them;
 * `started` gets both once they are up, to keep them and to make what the file's tests share.
 */
export function useSettingsPages(
  options: Parameters<typeof startTestBridge>[0],
  started: (pages: SettingsPages) => void | Promise<void>,
): void {
  let pages: Partial<SettingsPages> = {};
  beforeAll(async () => {
    const t = await startTestBridge(options);
    pages.t = t;
    [pages.browser, pages.server] = await Promise.all([BrowserHarness.launch(), listenTestBridge(t)]);
    await started(pages as SettingsPages);
  }, scaled(60_000));

  afterAll(async () => {
    await pages.browser?.close();
    await pages.server?.close();
    await pages.t?.close();
    pages = {};
  });

  afterEach(async () => {
    expectNoPageProblems(await pages.browser!.endTest());
  });
}

/** Opens `url` in a fresh context: a desktop window, or a phone's (375 px, touch). */
export function openPage(
  browser: BrowserHarness,
  url: string,
  opts: { phone?: boolean } = {},
): Promise<Page> {
  return opts.phone
    ? browser.openPage(url, PHONE_VIEWPORT, { isMobile: true, hasTouch: true })
    : browser.openPage(url);
}

/** Pastes the key in the key form and submits it with Enter. */
export async function pasteKey(page: Page, key: string): Promise<void> {
  const input = page.getByRole('textbox', { name: 'Admin key' });
  await input.fill(key);
  await input.press('Enter');
}

/** The admin key the tab keeps, or null. */
export const storedKey = (page: Page) => page.evaluate((k) => sessionStorage.getItem(k), KEY_STORAGE);
/** The status line. */
export const toast = (page: Page) => page.locator('#toast');

/** Saves `name`.png in light and `name`-dark.png in dark. */
export async function screenshots(
  page: Page,
  name: string,
  opts: { fullPage?: boolean } = {},
): Promise<void> {
  await saveScreenshot(page, `${name}.png`, opts);
  await page.emulateMedia({ colorScheme: 'dark' });
  await saveScreenshot(page, `${name}-dark.png`, opts);
  await page.emulateMedia({ colorScheme: null });
}

const PAGE_CSP = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "script-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
];

const JS = /^text\/javascript/;
const CSS = /^text\/css/;

/**
 * The page at `pageUrl` is HTML without inline script or style, never cached stale, under a CSP that allows only
 * its own files and its own origin; so are its `files` (paths under its own path) and the files all settings pages
 * share. A file it does not have is a problem+json 404.
 */
export async function expectServedUnderCsp(pageUrl: string, files: string[]): Promise<void> {
  const res = await fetch(pageUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('content-security-policy')?.split(';').sort()).toEqual([...PAGE_CSP].sort());
  expect(res.headers.get('cache-control')).toBe('no-cache');
  expect(await res.text()).not.toMatch(/<script>|<style|style=/);

  const { origin, pathname } = new URL(pageUrl);
  const assets = [
    ...files.map((f) => `${pathname}/${f}`),
    `${SETTINGS_SHARED_PATH}/settings.css`,
    `${SETTINGS_SHARED_PATH}/sign-in.js`,
  ];
  for (const asset of assets) {
    const file = await fetch(`${origin}${asset}`);
    expect(file.status, asset).toBe(200);
    expect(file.headers.get('content-type'), asset).toMatch(asset.endsWith('.css') ? CSS : JS);
    expect(file.headers.get('content-security-policy')?.split(';').sort(), asset).toEqual(
      [...PAGE_CSP].sort(),
    );
  }
  for (const missing of [`${pathname}/nothing.js`, `${SETTINGS_SHARED_PATH}/nothing.js`]) {
    const file = await fetch(`${origin}${missing}`);
    expect(file.status, missing).toBe(404);
    expect(file.headers.get('content-type'), missing).toMatch(/^application\/problem\+json/);
  }
}
