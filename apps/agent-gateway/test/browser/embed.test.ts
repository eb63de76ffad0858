import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Frame, type Page } from 'playwright-core';
import {
  BrowserHarness,
  DEFAULT_VIEWPORT,
  expectNoPageProblems,
  saveScreenshot,
  scaled,
  type Viewport,
} from '@pa/http-kit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type BoundWorker, bindWorker } from '../support/bound-worker.ts';
import { createEmbedKey, type TestEmbedKey, visitorToken } from '../support/embed.ts';
import { expectTouchable } from '../support/phone-fit.ts';
import { type PlatformForGateway, startPlatformForGateway } from '../support/platform.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';

// The embedded chat in real Chromium (docs/embedding.md): a host page served from http://127.0.0.2 (another site
// than the gateway on http://127.0.0.1) includes the loader; the panel opens, the local engine answers from the
// REAL bridge's data, and the conversation is there again after a reload. A page on an origin the key does not
// name (127.0.0.3) gets no chat: the iframe is refused by frame-ancestors and its direct API call by CORS and the
// origin check. A visitor token passed by the host works; an expired one is told in words. A key for signed-in
// visitors only tells a visitor the host has not signed in to sign in there, until the host hands a token over.

let browser: BrowserHarness;
let platform: PlatformForGateway;
let g: TestGateway;
let worker: BoundWorker;
let key: TestEmbedKey;
let hostServer: Server;
let hostPort: number;
const pages = new Map<string, string>();

const PHONE: Viewport = { width: 390, height: 780 };
const hostUrl = (ip: string, path: string) => `http://${ip}:${hostPort}${path}`;

/** Serves `html` at `path` of the host site (both 127.0.0.2 and 127.0.0.3 reach the same server). */
function hostPage(path: string, body: string): void {
  pages.set(
    path,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Oakwood Lettings</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;font:16px system-ui;background:#f4f1ea;color:#222">
<header style="padding:16px 24px;background:#27384a;color:#fff"><strong>Oakwood Lettings</strong> · Property portal</header>
<main style="padding:24px;max-width:680px"><h1>14 Oak Street, Manchester</h1>
<p>Three-bedroom terrace, let since March. Use the assistant to ask about certificates, deals and rent.</p>${body}</main>
</body></html>`,
  );
}

const loader = (attrs: string) =>
  `<script src="${g.baseUrl}/embed.js" data-embed-key="${key.embedKey}" ${attrs} async></script>`;

beforeAll(async () => {
  platform = await startPlatformForGateway();
  const demo = await platform.seedDemo({ scopes: ['bridge:read'] });
  [browser, g] = await Promise.all([
    BrowserHarness.launch(),
    startTestGateway({
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        PLATFORM_BASE_URL: platform.baseUrl,
        CHAT_RATE_LIMIT_PER_MIN: '1000',
      },
    }),
  ]);
  worker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
  const serve: Parameters<typeof createServer>[1] = (req, res) => {
    const html = pages.get(new URL(req.url ?? '/', 'http://x').pathname);
    // (the browser's /favicon.ico included: no page, no error)
    res.writeHead(html ? 200 : 204, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? '');
  };
  // the same pages on two loopback addresses, two sites to the browser: 127.0.0.2 (allowed) and 127.0.0.3 (not)
  hostServer = createServer(serve);
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.2', resolve));
  hostPort = (hostServer.address() as AddressInfo).port;
  const other = createServer(serve);
  await new Promise<void>((resolve) => other.listen(hostPort, '127.0.0.3', resolve));
  hostServer.on('close', () => other.close());
  key = await createEmbedKey(g.baseUrl, worker, {
    label: 'Property pages',
    origins: [`http://127.0.0.2:${hostPort}`],
    budgets: { visitorPerMinute: 100, ipPerMinute: 1000 },
  });
}, scaled(60_000));

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (hostServer ? hostServer.close(() => resolve()) : resolve()));
  await g?.close();
  await platform?.close();
});

afterEach(async () => {
  expectNoPageProblems(await browser.endTest());
});

const launcher = (page: Page) => page.getByRole('button', { name: /^(Open|Close) / });
const panelFrame = (page: Page) => page.frameLocator('iframe[src*="/embed?"]');

/** The iframe's Frame once it has loaded the chat. */
async function chatFrame(page: Page): Promise<Frame> {
  await expect
    .poll(() => page.frames().some((f) => f.url().startsWith(`${g.baseUrl}/embed?`)), {
      timeout: scaled(10_000),
    })
    .toBe(true);
  const frame = page.frames().find((f) => f.url().startsWith(`${g.baseUrl}/embed?`))!;
  await frame.waitForSelector('#message-input');
  return frame;
}

/** Asks in the panel and waits for the whole answer; its text. A refusal shown instead fails with its words. */
async function ask(page: Page, question: string): Promise<string> {
  const frame = panelFrame(page);
  const messages = frame.locator('#log > *');
  const before = await messages.count();
  await frame.getByRole('textbox', { name: 'Message' }).fill(question);
  await frame.getByRole('textbox', { name: 'Message' }).press('Enter');
  // the question, then its answer (streaming, then complete) or an error in its place
  const answer = messages.nth(before + 1);
  const state = async () => {
    const count = await messages.count();
    if (count <= before + 1) {
      // what the panel shows meanwhile, so that a wait that never ends says what it saw
      const notice = await frame.locator('#notice').textContent();
      return `waiting: ${count - before} new message(s), notice "${notice ?? ''}"`;
    }
    const cls = (await answer.getAttribute('class', { timeout: 1000 })) ?? '';
    if (cls.includes('message-error')) return `error: ${await answer.textContent()}`;
    if (cls.includes('message-pending') || !(await frame.getByRole('button', { name: 'Send' }).isVisible())) {
      return 'waiting';
    }
    return 'answered';
  };
  await expect.poll(state, { timeout: scaled(20_000) }).toBe('answered');
  return (await answer.locator('.message-body').textContent()) ?? '';
}

async function openHost(path: string, viewport: Viewport = DEFAULT_VIEWPORT): Promise<Page> {
  const page = await browser.openPage(hostUrl('127.0.0.2', path), viewport);
  await expect.poll(() => launcher(page).count()).toBe(1);
  return page;
}

async function shoot(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    // the loader follows the scheme at once; let the frame repaint
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
    await saveScreenshot(page, `${name}-${colorScheme}.png`);
  }
  await page.emulateMedia({ colorScheme: null });
}

describe('the launcher on an allowed site', () => {
  it('opens the panel, answers from the platform, keeps the conversation across a reload, and closes with Escape', async () => {
    hostPage('/launcher', loader('data-title="Oakwood assistant" data-accent="#27384a"'));
    const page = await openHost('/launcher');
    const button = launcher(page);
    await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false');
    const controls = await button.getAttribute('aria-controls');
    await button.click();
    await expect.poll(() => button.getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator(`#${controls}`).isVisible()).toBe(true);
    const frame = await chatFrame(page);
    // focus went into the panel, onto the message box
    await expect.poll(() => frame.evaluate(() => document.activeElement?.id)).toBe('message-input');
    expect(await frame.locator('.embed-title').textContent()).toBe('Oakwood assistant');
    await shoot(page, 'embed-panel-empty-desktop');

    const answer = await ask(page, 'Which properties have arrears?');
    expect(answer).toMatch(/arrears/i);
    expect(answer).toMatch(/[A-Z]{3}-\d{3}/); // names the property references the bridge holds
    await shoot(page, 'embed-panel-desktop');

    await page.reload();
    await launcher(page).click();
    await chatFrame(page);
    await expect
      .poll(() => panelFrame(page).locator('.message-user .message-body').allTextContents())
      .toEqual(['Which properties have arrears?']);
    expect(await panelFrame(page).locator('.message-assistant .message-body').textContent()).toBe(answer);

    // Escape inside the panel closes it and gives focus back to the launcher
    const reloaded = await launcher(page).getAttribute('aria-controls');
    await panelFrame(page).getByRole('textbox', { name: 'Message' }).press('Escape');
    await expect.poll(() => launcher(page).getAttribute('aria-expanded')).toBe('false');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-controls') ?? null))
      .toBe(reloaded);
  });

  it('fills a phone’s screen, its controls within reach', async () => {
    hostPage('/phone', loader('data-accent="#27384a"'));
    const page = await openHost('/phone', PHONE);
    await expectTouchable(launcher(page), PHONE.width);
    await launcher(page).click();
    const frame = await chatFrame(page);
    const box = (await page.locator('iframe').boundingBox())!;
    expect(box).toMatchObject({ x: 0, y: 0, width: PHONE.width, height: PHONE.height });
    await ask(page, 'Which gas safety certificates have expired?');
    for (const name of ['Send', 'Close the chat', 'New conversation']) {
      await expectTouchable(panelFrame(page).getByRole('button', { name }), PHONE.width);
    }
    expect(await frame.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    await shoot(page, 'embed-panel-phone');
    // the panel's own close button (the launcher is under it on a phone)
    await panelFrame(page).getByRole('button', { name: 'Close the chat' }).click();
    await expect.poll(() => launcher(page).getAttribute('aria-expanded')).toBe('false');
  });

  it('inline, with the conversation list: the host placed the panel', async () => {
    hostPage(
      '/inline',
      `<div id="assistant" style="height:560px;border:1px solid #ccc;border-radius:12px;overflow:hidden"></div>
${loader('data-mode="inline" data-target="#assistant" data-conversations="true"')}`,
    );
    const page = await browser.openPage(hostUrl('127.0.0.2', '/inline'));
    await chatFrame(page);
    await ask(page, 'Which tenancies end in the next 60 days?');
    await panelFrame(page).getByRole('button', { name: 'New conversation' }).click();
    await ask(page, 'What needs attention at MAN-004?');
    const list = panelFrame(page).getByRole('button', { name: 'Your conversations' });
    await list.click();
    await expect.poll(() => list.getAttribute('aria-expanded')).toBe('true');
    const items = panelFrame(page).locator('#conversation-list button');
    await expect.poll(() => items.count()).toBe(2);
    await shoot(page, 'embed-inline-conversations');
    await items.nth(1).click();
    await expect
      .poll(() => panelFrame(page).locator('.message-user .message-body').allTextContents())
      .toEqual(['Which tenancies end in the next 60 days?']);
  });
});

describe('an inline panel without a place to go', () => {
  it('says in the console what is wrong with data-target, and throws nothing into the host page', async () => {
    // only the loader's own words: an exception thrown into the page (a pageerror) still fails the test
    browser.allowConsoleErrors(/^console: Porter embed: data-/);
    const cases: Array<[string, string, string]> = [
      [
        '/inline-no-target',
        'data-mode="inline"',
        'Porter embed: data-mode="inline" needs data-target, a CSS selector of the element to hold the chat, such as data-target="#help-chat".',
      ],
      [
        '/inline-missing',
        'data-mode="inline" data-target="#nowhere"',
        'Porter embed: data-target="#nowhere" names no element on this page: the element must exist when the script runs.',
      ],
      [
        '/inline-invalid',
        'data-mode="inline" data-target="#[bad"',
        'Porter embed: data-target="#[bad" is not a CSS selector; use one such as #help-chat.',
      ],
    ];
    for (const [path, attrs, words] of cases) {
      // the host's own script after the loader runs as ever
      hostPage(
        path,
        `<div id="assistant" style="height:400px"></div>${loader(attrs)}
<script>addEventListener('load', () => document.body.dataset.hostReady = 'yes')</script>`,
      );
      const page = await browser.openPage(hostUrl('127.0.0.2', path));
      const said: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') said.push(m.text());
      });
      await page.reload();
      await expect.poll(() => said, { timeout: scaled(10_000) }).toEqual([words]);
      await expect.poll(() => page.evaluate(() => document.body.dataset.hostReady)).toBe('yes');
      expect(await page.locator('iframe').count()).toBe(0);
      expect(await page.evaluate(() => 'PorterEmbed' in window)).toBe(false);
    }
  });
});

describe('a site the key does not name', () => {
  it('gets no chat: the iframe is refused by frame-ancestors and a direct API call by CORS', async () => {
    hostPage('/elsewhere', loader(''));
    browser.allowConsoleErrors(/frame-ancestors|Refused to frame|CORS|Failed to fetch|ERR_FAILED/);
    const page = await browser.openPage(hostUrl('127.0.0.3', '/elsewhere'));
    await expect.poll(() => launcher(page).count()).toBe(1);
    await launcher(page).click();
    // the frame's navigation is blocked: Chromium shows its own error page, never the gateway's chat
    await expect
      .poll(() => page.frames().map((f) => f.url()), { timeout: scaled(10_000) })
      .toContain('chrome-error://chromewebdata/');
    for (const frame of page.frames()) {
      expect(await frame.locator('#message-input').count(), frame.url()).toBe(0);
    }
    await shoot(page, 'embed-refused-site');
    const direct = await page.evaluate(
      async ([base, embedKey]) => {
        try {
          const res = await fetch(`${base}/api/embed/session`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-embed-key': embedKey!,
              'x-embed-visitor': 'abcdefghijklmnopqrstuvwxyz012345',
            },
            body: '{}',
          });
          return `status ${res.status}`;
        } catch (err) {
          return `refused: ${(err as Error).name}`;
        }
      },
      [g.baseUrl, key.embedKey],
    );
    expect(direct).toBe('refused: TypeError');
  });
});

describe('visitor tokens from the host', () => {
  it('a token passed with data-visitor-token: the visitor’s own conversation', async () => {
    const token = await visitorToken(key.visitorSecret, { sub: 'tenant-881', name: 'Priya' });
    hostPage('/signed-in', loader(`data-visitor-token="${token}"`));
    const page = await openHost('/signed-in');
    await launcher(page).click();
    await chatFrame(page);
    await ask(page, 'Which properties have arrears?');
    const session = await g.db.chatSession.findFirstOrThrow({
      where: { owner: `embed:${key.key.id}:sub:tenant-881` },
    });
    expect(session.channel).toBe('web');
    // the token never travels in a URL
    for (const frame of page.frames()) expect(frame.url()).not.toContain(token);
  });

  it('an expired token: the panel says so in words and takes no message', async () => {
    const token = await visitorToken(key.visitorSecret, {
      sub: 'tenant-881',
      expiresInS: -300,
      iatOffsetS: -900,
    });
    hostPage('/expired', loader(`data-visitor-token="${token}"`));
    browser.allowConsoleErrors(/401 \(Unauthorized\)/);
    const page = await openHost('/expired');
    let refusedEvent = false;
    await page.exposeFunction('tokenRefused', () => {
      refusedEvent = true;
    });
    await page.evaluate(() =>
      document.addEventListener('porter-embed:token-refused', () =>
        (window as unknown as { tokenRefused: () => void }).tokenRefused(),
      ),
    );
    await launcher(page).click();
    const frame = await chatFrame(page);
    const notice = frame.getByRole('alert');
    await expect
      .poll(() => notice.textContent(), { timeout: scaled(10_000) })
      .toBe('Your sign-in to this chat has expired. Reload the page to continue.');
    expect(await frame.getByRole('textbox', { name: 'Message' }).isDisabled()).toBe(true);
    await expect.poll(() => refusedEvent).toBe(true);
    await shoot(page, 'embed-token-expired-desktop');

    // the host hands a fresh token over: the chat works again
    const fresh = await visitorToken(key.visitorSecret, { sub: 'tenant-881' });
    await page.evaluate(
      (t) =>
        (
          window as unknown as { PorterEmbed: { setVisitorToken(t: string): void } }
        ).PorterEmbed.setVisitorToken(t),
      fresh,
    );
    await expect.poll(() => frame.getByRole('textbox', { name: 'Message' }).isDisabled()).toBe(false);
    await expect.poll(() => notice.isVisible()).toBe(false);
  });
});

describe('a key for signed-in visitors only', () => {
  it('without a token: the panel asks the visitor to sign in on the site, asks the server nothing, and works once a token comes', async () => {
    const staff = await createEmbedKey(g.baseUrl, worker, {
      label: 'Staff intranet',
      origins: [`http://127.0.0.2:${hostPort}`],
      requireVisitorToken: true,
      budgets: { visitorPerMinute: 100, ipPerMinute: 1000 },
    });
    const script = `<script src="${g.baseUrl}/embed.js" data-embed-key="${staff.embedKey}" data-title="Oakwood staff assistant" async></script>`;
    hostPage('/staff', script);
    const page = await openHost('/staff');
    let refusedEvent = false;
    await page.exposeFunction('tokenRefused', () => {
      refusedEvent = true;
    });
    await page.evaluate(() =>
      document.addEventListener('porter-embed:token-refused', () =>
        (window as unknown as { tokenRefused: () => void }).tokenRefused(),
      ),
    );
    await launcher(page).click();
    const frame = await chatFrame(page);
    const notice = frame.getByRole('alert');
    await expect
      .poll(() => notice.textContent(), { timeout: scaled(10_000) })
      .toBe(
        `This chat needs you to be signed in on 127.0.0.2:${hostPort}. Sign in to the site, then reload this page.`,
      );
    const box = frame.getByRole('textbox', { name: 'Message' });
    expect(await box.isDisabled()).toBe(true);
    expect(await box.getAttribute('placeholder')).toBe('Sign in to ask a question');
    expect(await frame.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    expect(await frame.locator('.embed-title').textContent()).toBe('Oakwood staff assistant');
    await expect.poll(() => refusedEvent).toBe(true);
    // the page asked the API nothing: no refusal in the console (the harness fails on one), no conversation stored
    expect(await g.db.chatSession.count({ where: { owner: { startsWith: `embed:${staff.key.id}:` } } })).toBe(
      0,
    );
    await shoot(page, 'embed-sign-in-needed-desktop');

    // the host signs the visitor in and hands the token over: the chat answers as that visitor
    const token = await visitorToken(staff.visitorSecret, { sub: 'staff-204', name: 'Sam' });
    await page.evaluate(
      (t) =>
        (
          window as unknown as { PorterEmbed: { setVisitorToken(t: string): void } }
        ).PorterEmbed.setVisitorToken(t),
      token,
    );
    await expect.poll(() => box.isDisabled()).toBe(false);
    expect(await notice.isVisible()).toBe(false);
    expect(await box.getAttribute('placeholder')).toBe('Ask a question');
    expect(await ask(page, 'Which properties have arrears?')).toMatch(/arrears/i);
    expect(
      (await g.db.chatSession.findFirstOrThrow({ where: { owner: `embed:${staff.key.id}:sub:staff-204` } }))
        .channel,
    ).toBe('web');
  });

  it('on a phone, the same message fills the panel’s width and the close button stays in reach', async () => {
    const staff = await createEmbedKey(g.baseUrl, worker, {
      origins: [`http://127.0.0.2:${hostPort}`],
      requireVisitorToken: true,
    });
    hostPage(
      '/staff-phone',
      `<script src="${g.baseUrl}/embed.js" data-embed-key="${staff.embedKey}" data-accent="#27384a" async></script>`,
    );
    const page = await openHost('/staff-phone', PHONE);
    await launcher(page).click();
    const frame = await chatFrame(page);
    await expect
      .poll(() => frame.getByRole('alert').textContent(), { timeout: scaled(10_000) })
      .toMatch(/^This chat needs you to be signed in on 127\.0\.0\.2:\d+\./);
    expect(await frame.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    await expectTouchable(panelFrame(page).getByRole('button', { name: 'Close the chat' }), PHONE.width);
    await shoot(page, 'embed-sign-in-needed-phone');
  });
});
