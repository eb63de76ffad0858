import { type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.ts';
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

// A reply's table on a phone (issue 34): a five-column table used to be cut at the third column with nothing to say
// there was more. Now its box says so (a faded edge and "Scroll for more"), scrolls from the keyboard, and keeps
// the first column in view while the others scroll. Real browser, real gateway, the loopback OpenAI server for the
// exact Markdown.

const PHONE: Viewport = { width: 390, height: 844 };
const PHONE_DEVICE: DeviceOptions = { isMobile: true, hasTouch: true };

const WIDE = [
  'Four certificates need action:',
  '',
  '| Property | Item | Status | Date | Action |',
  '| --- | --- | --- | --- | --- |',
  '| MAN-004 | Gas safety record | Expired | 2 Oct 2026 | Book a Gas Safe engineer this week |',
  '| BRS-002 | Gas safety record | Expired | 14 Oct 2026 | Book a Gas Safe engineer this week |',
  '| LDS-002 | EICR | Missing | — | Arrange an electrical inspection |',
  '| LON-005 | Smoke and CO alarms | Due | 21 Nov 2026 | Test the alarms at the next visit |',
  '',
  'The two gas records come first: they are a legal duty.',
].join('\n');

const NARROW = ['| Property | Arrears |', '| --- | --- |', '| MAN-004 | £1,150 |', '| LON-005 | £640 |'].join(
  '\n',
);

let browser: BrowserHarness;
let fake: FakeOpenAI;
let gateway: TestGateway;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  [browser, gateway] = await Promise.all([
    BrowserHarness.launch(),
    startTestGateway({
      env: {
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: 'sk-test',
        PROVIDER: 'openai',
        CHAT_RATE_LIMIT_PER_MIN: '1000',
      },
    }),
  ]);
}, scaled(60_000));

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await fake?.close();
});

afterEach(async () => {
  fake.reset();
  expectNoPageProblems(await browser.endTest());
});

async function ask(page: Page, question: string): Promise<Locator> {
  await expect.poll(() => page.locator('#active-provider').textContent()).toBe('openai');
  const replies = page.locator('#log [data-role="assistant"]');
  const before = await replies.count();
  const input = page.getByRole('combobox', { name: 'Message' });
  await input.fill(question);
  await input.press('Enter');
  const reply = replies.nth(before);
  await expect.poll(() => reply.getAttribute('data-state'), { timeout: scaled(10_000) }).toBe('complete');
  return reply;
}

/** Light and dark screenshots of the page as it is. */
async function bothSchemes(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, `${name}-light.png`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await saveScreenshot(page, `${name}-dark.png`);
  await page.emulateMedia({ colorScheme: 'light' });
}

const scrollState = (wrap: Locator) =>
  wrap.evaluate((w) => ({ left: w.scrollLeft, hidden: w.scrollWidth - w.clientWidth }));

describe('a reply’s table on a phone', () => {
  it('says there is more to the right, scrolls from the keyboard and keeps the first column in view', async () => {
    fake.setDefault({ chunks: WIDE.split(/(?<=\n)/) });
    const page = await browser.openPage(`${gateway.baseUrl}/`, PHONE, PHONE_DEVICE);
    const reply = await ask(page, 'Which certificates need action?');
    const box = reply.locator('.table-box');
    const wrap = box.getByRole('region', { name: 'Table, scrolls sideways' });
    const hint = box.locator('.table-hint');

    // wider than the reply: it says so, and the page itself does not scroll sideways
    await expect.poll(() => box.getAttribute('data-overflow')).toBe('end');
    expect((await scrollState(wrap)).hidden).toBeGreaterThan(100);
    expect(await hint.isVisible()).toBe(true);
    expect(await hint.textContent()).toBe('Scroll for more');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    // the edge with hidden columns fades
    expect(await wrap.evaluate((w) => getComputedStyle(w).maskImage)).toContain('linear-gradient');
    // every row is there, with all five cells
    expect(await wrap.locator('tbody tr').count()).toBe(4);
    expect(await wrap.locator('tbody tr').first().locator('td').count()).toBe(5);
    await wrap.scrollIntoViewIfNeeded();
    await bothSchemes(page, 'reply-table-phone-hint');

    // the keyboard reaches the table and scrolls it; the property column stays where it was
    const firstCell = wrap.locator('tbody tr').first().locator('td').first();
    const statusCell = wrap.locator('tbody tr').first().locator('td').nth(2);
    const [firstBefore, statusBefore] = [(await firstCell.boundingBox())!, (await statusCell.boundingBox())!];
    await wrap.focus();
    expect(await page.evaluate(() => document.activeElement?.classList.contains('table-wrap'))).toBe(true);
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await scrollState(wrap)).left).toBeGreaterThan(0);
    await expect.poll(() => box.getAttribute('data-overflow')).toBe('both');
    const [firstAfter, statusAfter] = [(await firstCell.boundingBox())!, (await statusCell.boundingBox())!];
    expect(Math.round(firstAfter.x)).toBe(Math.round(firstBefore.x));
    expect(statusAfter.x).toBeLessThan(statusBefore.x);
    await bothSchemes(page, 'reply-table-phone-scrolled');

    // at the end: nothing more to the right, so no hint
    await wrap.evaluate((w) => w.scrollTo({ left: w.scrollWidth, behavior: 'instant' }));
    await expect.poll(() => box.getAttribute('data-overflow')).toBe('start');
    expect(await hint.isVisible()).toBe(false);
    const lastCell = wrap.locator('tbody tr').first().locator('td').last();
    const last = (await lastCell.boundingBox())!;
    expect(last.x + last.width).toBeLessThanOrEqual(PHONE.width);
    await bothSchemes(page, 'reply-table-phone-end');
  });

  it('shows a table that fits as it is, with no hint, on a phone and on a desktop', async () => {
    fake.setDefault({ chunks: [NARROW] });
    const page = await browser.openPage(`${gateway.baseUrl}/`, PHONE, PHONE_DEVICE);
    const reply = await ask(page, 'Which properties have arrears?');
    const box = reply.locator('.table-box');
    await expect.poll(() => box.getAttribute('data-overflow')).toBe('none');
    expect(await box.locator('.table-hint').isVisible()).toBe(false);
    expect(await box.getByRole('region', { name: 'Table', exact: true }).count()).toBe(1);
    await browser.closeContext();

    // the wide table on a desktop: all five columns fit, so it is a plain table
    fake.setDefault({ chunks: [WIDE] });
    const desktop = await browser.openPage(`${gateway.baseUrl}/`, DEFAULT_VIEWPORT);
    const wide = (await ask(desktop, 'Which certificates need action?')).locator('.table-box');
    await expect.poll(() => wide.getAttribute('data-overflow')).toBe('none');
    expect(await wide.locator('.table-hint').isVisible()).toBe(false);
    expect(await wide.locator('.table-wrap').evaluate((w) => getComputedStyle(w).maskImage)).toBe('none');
    await bothSchemes(desktop, 'reply-table-desktop');

    // narrowed to a phone's width, the same table gains its hint without being rendered again
    await desktop.setViewportSize(PHONE);
    await expect.poll(() => wide.getAttribute('data-overflow')).toBe('end');
    expect(await wide.locator('.table-hint').isVisible()).toBe(true);
  });
});
