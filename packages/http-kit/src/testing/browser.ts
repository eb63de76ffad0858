import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { expect } from 'vitest';
import { scaled } from './time-scale.ts';

// What every app's browser tests share: the system Chromium (driven by playwright-core) launched once per file, a
// fresh context (so fresh localStorage and sessionStorage) per page, and the console errors, page errors and CSP
// violations each test caused, which the test's afterEach checks.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export type Viewport = { width: number; height: number };
// locale and timezoneId: a browser set to another language or zone (a UI that must show en-GB 24-hour times anyway)
export type DeviceOptions = { isMobile?: boolean; hasTouch?: boolean; locale?: string; timezoneId?: string };

export const DEFAULT_VIEWPORT: Viewport = { width: 1000, height: 760 };
/** A common phone (iPhone SE/12 mini width). */
export const PHONE_VIEWPORT: Viewport = { width: 375, height: 740 };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** One browser for a test file, at most one open context at a time, and the problems of the current test. */
export class BrowserHarness {
  private context: BrowserContext | null = null;
  private problems: string[] = []; // console errors, page errors and CSP violations of the current test
  private allowed: RegExp[] = [];

  constructor(private readonly browser: Browser) {}

  static async launch(): Promise<BrowserHarness> {
    return new BrowserHarness(await launchChromium());
  }

  /** Console errors matching one of these are expected in the current test (reset after each test). */
  allowConsoleErrors(...patterns: RegExp[]): void {
    this.allowed = patterns;
  }

  /** Opens `url` in a fresh context, recording the page's console errors, page errors and CSP violations. */
  async openPage(
    url: string,
    viewport: Viewport = DEFAULT_VIEWPORT,
    extra: DeviceOptions = {},
  ): Promise<Page> {
    this.context = await this.browser.newContext({ viewport, ...extra, reducedMotion: 'reduce' });
    // an action waiting for an element that never comes fails within 15 s, naming the element, rather than
    // running into the test's own time limit without saying what it waited for (15 s on an idle machine)
    this.context.setDefaultTimeout(scaled(15_000));
    const page = await this.context.newPage();
    await this.watch(page);
    await page.goto(url);
    return page;
  }

  /** A second tab in the current context (same sessionStorage origin, as a user's other tab would be). */
  async openTab(url: string): Promise<Page> {
    if (!this.context) throw new Error('openPage first');
    const page = await this.context.newPage();
    await this.watch(page);
    await page.goto(url);
    return page;
  }

  private async watch(page: Page): Promise<void> {
    page.on('console', (msg) => {
      if (msg.type() === 'error') this.problems.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (err) => this.problems.push(`pageerror: ${err.message}`));
    // Init scripts run outside the page's CSP; they record any violation the page itself causes.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
      });
    });
  }

  /** Closes the current context, if any. */
  async closeContext(): Promise<void> {
    await this.context?.close();
    this.context = null;
  }

  /** For afterEach: closes the context and returns the test's unexpected problems, resetting them for the next. */
  async endTest(): Promise<string[]> {
    await this.closeContext();
    const unexpected = this.problems.filter((p) => !this.allowed.some((re) => re.test(p)));
    this.problems = [];
    this.allowed = [];
    return unexpected;
  }

  async close(): Promise<void> {
    await this.browser.close();
  }
}

export function expectNoPageProblems(unexpected: string[]): void {
  expect(unexpected, 'console errors, page errors or CSP violations').toEqual([]);
}

/**
 * `test-results/` of the package whose test is running (the nearest folder above the test file with a
 * package.json), so each app's screenshots stay next to it; the working directory's when vitest does not say.
 */
export function resultsDir(): string {
  const testPath = expect.getState().testPath;
  let dir = testPath ? path.dirname(testPath) : process.cwd();
  while (testPath && !existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) {
    dir = path.dirname(dir);
  }
  return path.join(dir, 'test-results');
}

/** Saves a screenshot of the page under the running package's test-results/ and returns its path. */
export async function saveScreenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<string> {
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  await page.screenshot({ path: file, ...options });
  return file;
}
