import { type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../support/fake-openai.ts';
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

// The web chat in a real browser (the system Chromium, driven by playwright-core) against the real gateway:
// one browser for the file, a fresh context (so a fresh localStorage) per test.

let browser: BrowserHarness;
let gateway: TestGateway; // the local provider paced, so that a reply streams visibly and can be stopped
let limited: TestGateway; // a gateway with a tiny chat rate limit

beforeAll(async () => {
  [browser, gateway, limited] = await Promise.all([
    BrowserHarness.launch(),
    startTestGateway({ env: { LOCAL_PROVIDER_DELAY_MS: '40', CHAT_RATE_LIMIT_PER_MIN: '1000' } }),
    startTestGateway({ env: { CHAT_RATE_LIMIT_PER_MIN: '2' } }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([gateway?.close(), limited?.close()]);
});

afterEach(async () => {
  expectNoPageProblems(await browser.endTest());
});

async function openChat(
  target: TestGateway = gateway,
  viewport: Viewport = DEFAULT_VIEWPORT,
  extra: DeviceOptions = {},
): Promise<Page> {
  const page = await browser.openPage(`${target.baseUrl}/`, viewport, extra);
  await expect.poll(() => page.locator('#active-provider').textContent()).toBe(target.providers.defaultName);
  return page;
}

const log = (page: Page) => page.locator('#log');
const input = (page: Page) => page.getByRole('combobox', { name: 'Message' });
const assistantMessages = (page: Page) => page.locator('#log [data-role="assistant"]');
const lastAssistant = (page: Page) => assistantMessages(page).last();

async function send(page: Page, text: string): Promise<void> {
  await input(page).fill(text);
  await input(page).press('Enter');
}

/** Sends a message and waits until its reply is complete; returns the reply's text. */
async function chat(page: Page, text: string): Promise<string> {
  const before = await assistantMessages(page).count();
  await send(page, text);
  const reply = assistantMessages(page).nth(before);
  await expect.poll(() => reply.getAttribute('data-state'), { timeout: scaled(10_000) }).toBe('complete');
  return (await reply.locator('.message-body').textContent()) ?? '';
}

const sessionIdIn = (page: Page) => page.evaluate(() => localStorage.getItem('agentSessionId'));

describe('web chat UI', () => {
  it('serves the page under a strict CSP', async () => {
    const res = await fetch(`${gateway.baseUrl}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/\sstyle=/); // no inline style
  });

  it('streams a reply as it arrives, renders its Markdown, and keeps the session id', async () => {
    const page = await openChat();
    expect(await sessionIdIn(page)).toBeNull();
    await expect.poll(() => page.locator('#welcome').isVisible()).toBe(true);

    await send(page, 'help');
    await expect
      .poll(() => page.locator('#log [data-role="user"] .message-body').last().textContent())
      .toBe('help');
    const reply = lastAssistant(page);

    // An intermediate state: part of the reply is shown while the rest is still coming, Stop replaces Send.
    await page.waitForFunction(() => {
      const el = document.querySelector('#log [data-role="assistant"][data-state="streaming"] .message-body');
      return (el?.textContent ?? '').trim().length > 0;
    });
    const partial = (await reply.locator('.message-body').textContent()) ?? '';
    expect(await page.locator('#stop-button').isVisible()).toBe(true);
    expect(await page.locator('#send-button').isVisible()).toBe(false);
    expect(await log(page).getAttribute('aria-busy')).toBe('true');

    await expect.poll(() => reply.getAttribute('data-state'), { timeout: scaled(10_000) }).toBe('complete');
    const full = (await reply.locator('.message-body').textContent()) ?? '';
    expect(full.length).toBeGreaterThan(partial.length);
    expect(full).toContain('Give me a portfolio overview');
    // Markdown became HTML: bold list items and inline code.
    expect(await reply.locator('.message-body li strong').count()).toBeGreaterThanOrEqual(3);
    expect(await reply.locator('.message-body code').allTextContents()).toContain('/help');
    expect(await page.locator('#stop-button').isVisible()).toBe(false);
    expect(await page.locator('#send-button').isVisible()).toBe(true);
    expect(await log(page).getAttribute('aria-busy')).toBe('false');
    expect(await log(page).getAttribute('aria-live')).toBe('polite');
    expect(await page.locator('#welcome').isVisible()).toBe(false);

    // The server-issued session id is kept for the next visits.
    expect(await sessionIdIn(page)).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);

    await saveScreenshot(page, 'chat.png');
  });

  it('after a refresh the conversation is shown again, and the session and its memory continue', async () => {
    const page = await openChat();
    const said = await chat(page, 'my name is Ada');
    expect(said).toContain('Ada');
    const id = await sessionIdIn(page);
    expect(id).toBeTruthy();

    await page.reload();
    await expect.poll(() => page.locator('#active-provider').textContent()).toBe('local');
    await expect.poll(() => log(page).locator('article').count()).toBe(2);
    expect(await log(page).locator('[data-role="user"] .message-body').textContent()).toBe('my name is Ada');
    expect(await lastAssistant(page).locator('.message-body').textContent()).toBe(said);
    expect(await sessionIdIn(page)).toBe(id);

    expect(await chat(page, 'what is my name?')).toContain('Your name is Ada');
    expect(await sessionIdIn(page)).toBe(id);
  });

  it('opens the command palette on / and works it with the keyboard', async () => {
    const page = await openChat();
    const box = input(page);
    const palette = page.getByRole('listbox', { name: 'Commands' });
    await box.focus();
    expect(await box.getAttribute('aria-expanded')).toBe('false');

    await box.press('/');
    await expect.poll(() => palette.isVisible()).toBe(true);
    expect(await box.getAttribute('aria-expanded')).toBe('true');
    expect(await box.getAttribute('aria-controls')).toBe('command-palette');
    const options = palette.getByRole('option');
    expect(await options.count()).toBe(3);
    expect(await box.getAttribute('aria-activedescendant')).toBeNull();

    await box.press('ArrowDown');
    expect(await box.getAttribute('aria-activedescendant')).toBe('command-option-help');
    expect(await options.nth(0).getAttribute('aria-selected')).toBe('true');
    await box.press('ArrowDown');
    expect(await box.getAttribute('aria-activedescendant')).toBe('command-option-provider');
    expect(await options.nth(0).getAttribute('aria-selected')).toBe('false');
    expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
    await box.press('ArrowUp');
    expect(await box.getAttribute('aria-activedescendant')).toBe('command-option-help');

    // Enter picks the active command: it fills the box and closes the palette; the next Enter runs it.
    await box.press('Enter');
    expect(await box.inputValue()).toBe('/help');
    expect(await palette.isVisible()).toBe(false);
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    expect(await box.getAttribute('aria-activedescendant')).toBeNull();
    await box.press('Enter');
    const notice = page.locator('#log [data-role="notice"]').first();
    await expect.poll(() => notice.textContent()).toContain('/provider [name]');
    expect(await notice.textContent()).toContain('/clear');
    expect(await box.inputValue()).toBe('');

    // Typing filters; Escape closes and leaves the text alone.
    await box.pressSequentially('/c');
    await expect
      .poll(() => palette.getByRole('option').allTextContents())
      .toEqual([expect.stringContaining('/clear')]);
    await box.press('Escape');
    expect(await palette.isVisible()).toBe(false);
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    expect(await box.inputValue()).toBe('/c');
    // Not a command word → no palette.
    await box.fill('');
    await box.pressSequentially('/x');
    expect(await palette.isVisible()).toBe(false);

    // Shift+Enter is a new line, not a send.
    await box.fill('line one');
    await box.press('Shift+Enter');
    await box.pressSequentially('line two');
    expect(await box.inputValue()).toBe('line one\nline two');
    expect(await log(page).locator('[data-role="user"]').count()).toBe(1); // only the /help command
  });

  it('/provider lists the providers, /provider NAME switches, an unknown name is an error', async () => {
    const page = await openChat();
    await send(page, '/provider');
    const notice = page.locator('#log [data-role="notice"]').last();
    await expect.poll(() => notice.textContent()).toContain('Active provider: local');
    expect(await notice.locator('li').allTextContents()).toContain('local (active)');

    await send(page, '/provider nope');
    const error = page.locator('#log [data-role="error"] .message-body').last();
    await expect.poll(() => error.textContent()).toContain('Unknown provider “nope”');
    expect(await error.textContent()).toContain('Available: local');
    expect(await page.locator('#active-provider').textContent()).toBe('local');

    await send(page, '/provider local');
    await expect
      .poll(() => page.locator('#log [data-role="notice"]').last().textContent())
      .toContain('Provider set to local');
    // The chosen provider goes with each following turn, with a fresh requestId each time.
    const urls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/chat/stream')) urls.push(r.url());
    });
    await chat(page, 'hello');
    await chat(page, 'hello again');
    expect(urls).toHaveLength(2);
    const params = urls.map((u) => new URL(u).searchParams);
    expect(params.map((p) => p.get('provider'))).toEqual(['local', 'local']);
    expect(params[0]!.get('requestId')).toBeTruthy();
    expect(params[0]!.get('requestId')).not.toBe(params[1]!.get('requestId'));
    expect(params[1]!.get('sessionId')).toBe(await sessionIdIn(page));
  });

  it('/clear empties the log and the server-side memory', async () => {
    const page = await openChat();
    await chat(page, 'my name is Ada');
    const id = await sessionIdIn(page);

    await send(page, '/clear');
    const notice = page.locator('#log [data-role="notice"]');
    await expect
      .poll(() => notice.last().textContent())
      .toMatch(/Conversation cleared — 2 stored turns deleted/);
    expect(await log(page).locator('[data-role="user"], [data-role="assistant"]').count()).toBe(0);
    expect(await notice.count()).toBe(1);
    expect(await sessionIdIn(page)).toBe(id);

    expect(await chat(page, 'what is my name?')).toContain("haven't told me your name");
  });

  it('Stop aborts a streaming reply; the reply stops growing and says it was stopped', async () => {
    const page = await openChat();
    await send(page, 'help');
    const reply = lastAssistant(page);
    await page.waitForFunction(() => {
      const el = document.querySelector('#log [data-role="assistant"][data-state="streaming"] .message-body');
      return (el?.textContent ?? '').trim().length > 0;
    });
    await page.getByRole('button', { name: 'Stop' }).click();

    await expect.poll(() => reply.getAttribute('data-state')).toBe('stopped');
    expect(await reply.locator('.message-status').textContent()).toContain('Stopped');
    const stopped = (await reply.locator('.message-body').textContent()) ?? '';
    expect(stopped.length).toBeGreaterThan(0);
    await page.waitForTimeout(600);
    expect(await reply.locator('.message-body').textContent()).toBe(stopped);
    expect(stopped).not.toContain('Commands:'); // the end of the help text never arrived
    expect(await page.locator('#send-button').isVisible()).toBe(true);
    expect(await page.locator('#stop-button').isVisible()).toBe(false);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('message-input');

    // The server kept the partial reply, marked interrupted.
    await expect
      .poll(
        async () =>
          (await gateway.db.turn.findMany({ where: { role: 'assistant', status: 'interrupted' } })).length,
      )
      .toBeGreaterThan(0);

    // The conversation goes on.
    expect(await chat(page, 'what is my name?')).toContain("haven't told me");
  });

  it('shows "try again in N s" once the rate limit is spent', async () => {
    browser.allowConsoleErrors(/status of 429/);
    const page = await openChat(limited);
    await chat(page, 'hello');
    await chat(page, 'hello');
    await send(page, 'hello once more');
    const error = page.locator('#log [data-role="error"] .message-body').last();
    await expect.poll(() => error.textContent()).toMatch(/^Rate limited — try again in \d+ s\.$/);
    expect(await page.locator('#log [data-role="error"]').last().getAttribute('role')).toBe('alert');
    // The failed turn leaves no empty assistant bubble behind; the composer is usable again.
    expect(await assistantMessages(page).count()).toBe(2);
    expect(await page.locator('#send-button').isVisible()).toBe(true);
  });

  it('shows a network failure in words', async () => {
    const page = await openChat();
    await page.route('**/api/chat/stream*', (route) => route.abort('internetdisconnected'));
    browser.allowConsoleErrors(/ERR_INTERNET_DISCONNECTED/);
    await send(page, 'hello');
    await expect
      .poll(() => page.locator('#log [data-role="error"]').last().textContent())
      .toContain('Network error');
  });

  it('shows an error that arrives inside the stream, after the partial reply', async () => {
    // A real gateway whose provider is the loopback OpenAI server, which fails after two deltas.
    const fake = await startFakeOpenAI();
    const vendor = await startTestGateway({
      databaseUrl: gateway.databaseUrl,
      redis: 'none',
      env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test', PROVIDER: 'openai' },
    });
    try {
      fake.script({
        chunks: ['Half ', 'an ans'],
        end: 'error',
        error: { message: 'overloaded', type: 'server_error' },
      });
      const page = await openChat(vendor);
      await send(page, 'hello');
      await expect
        .poll(() => page.locator('#log [data-role="error"] .message-body').last().textContent())
        .toMatch(/openai/i);
      expect(await lastAssistant(page).getAttribute('data-state')).toBe('error');
      expect((await lastAssistant(page).locator('.message-body').textContent())?.trim()).toBe('Half an ans');
      expect(await sessionIdIn(page)).toMatch(/^s_/);
    } finally {
      await browser.closeContext();
      await vendor.close();
      await fake.close();
    }
  });

  it('renders untrusted Markdown safely and user text as plain text', async () => {
    const page = await openChat();
    const nasty =
      'look <b onclick="window.__xss=1" id="evil">bold</b> <script>window.__xss=2</script> [click](javascript:window.__xss=3)';
    await chat(page, nasty);
    expect(await page.locator('#log [data-role="user"] .message-body').first().textContent()).toBe(nasty);
    // The local provider echoes the previous message on request, so the markup comes back inside Markdown:
    // raw HTML is shown as text, and the javascript: link loses its href.
    await chat(page, 'what did I say?');
    const body = lastAssistant(page).locator('.message-body');
    expect(await body.textContent()).toContain('<b onclick="window.__xss=1" id="evil">bold</b>');
    expect(await body.locator('b, script, [onclick], #evil, [href^="javascript:"]').count()).toBe(0);
    await body.getByText('click', { exact: true }).click();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    // Markdown itself still renders: links get a safe target and rel.
    const html = await page.evaluate(`(async () => {
      const { renderMarkdown } = await import('/markdown.js');
      const div = document.createElement('div');
      div.append(renderMarkdown('[docs](https://example.org/a) ![x](javascript:alert(1)) **b**'));
      return div.innerHTML;
    })()`);
    expect(html).toContain(
      '<a href="https://example.org/a" target="_blank" rel="noopener noreferrer nofollow">docs</a>',
    );
    expect(html).toContain('<strong>b</strong>');
    expect(html).not.toContain('javascript:');
  });

  it('fits a phone-sized screen with no horizontal scroll and the input in reach', async () => {
    const page = await openChat(gateway, { width: 375, height: 667 }, { isMobile: true, hasTouch: true });
    await chat(page, 'help');
    await chat(page, `a very long word: ${'x'.repeat(300)}`);
    const sizes = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      bodyScrollWidth: document.body.scrollWidth,
    }));
    expect(sizes.scrollWidth).toBeLessThanOrEqual(sizes.clientWidth);
    expect(sizes.bodyScrollWidth).toBeLessThanOrEqual(sizes.clientWidth);
    for (const el of [input(page), page.locator('#send-button')]) {
      const box = await el.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
      expect(box!.y + box!.height).toBeLessThanOrEqual(667);
    }
    // The log followed the reply down: its end is in view above the composer.
    const logBox = (await log(page).boundingBox())!;
    const lastBox = (await lastAssistant(page).boundingBox())!;
    expect(lastBox.y + lastBox.height).toBeLessThanOrEqual(logBox.y + logBox.height + 1);
    await saveScreenshot(page, 'chat-phone.png');
  });

  it('is usable from the keyboard: tabs, focus ring, and the Settings placeholder', async () => {
    const page = await openChat();
    const chatTab = page.getByRole('tab', { name: 'Chat' });
    const settingsTab = page.getByRole('tab', { name: 'Settings' });
    expect(await chatTab.getAttribute('aria-selected')).toBe('true');
    await chatTab.focus();
    // A visible focus indicator.
    const outline = await chatTab.evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).not.toBe('none');

    await chatTab.press('ArrowRight');
    expect(await settingsTab.getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-settings');
    expect(await page.getByRole('tabpanel', { name: 'Settings' }).textContent()).toContain(
      'not available yet',
    );
    expect(await page.locator('#panel-chat').isVisible()).toBe(false);

    await settingsTab.press('ArrowLeft');
    expect(await chatTab.getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('#panel-chat').isVisible()).toBe(true);
    // The header names the product, not the machinery; the input and the button are labelled.
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Porter');
    expect(await page.locator('header').textContent()).not.toMatch(/gateway|provider/i);
    expect(await page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);
    expect(await input(page).isVisible()).toBe(true);
  });
});
