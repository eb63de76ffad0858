import { randomUUID } from 'node:crypto';
import { type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.ts';
import { newWorkspace, pairDevice, type PairedDevice, TOKEN_ENV } from '../support/access.ts';
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

// The chat as a property manager meets it, in a real browser against the real gateway: the welcome screen and
// its suggested questions, replies with tables and follow-up questions, the conversation read back after a
// refresh, and the list of past conversations. The model is the loopback OpenAI server, so that a reply is
// exactly the Markdown a test needs.

const PHONE: Viewport = { width: 375, height: 740 };
const PHONE_DEVICE: DeviceOptions = { isMobile: true, hasTouch: true };

let browser: BrowserHarness;
let fake: FakeOpenAI;
let gateway: TestGateway;
/** a gateway that asks for device tokens: each list test is a device of its own, with a list of its own */
let paired: TestGateway;

const FOLLOW_UPS = ['Which EPCs are below E?', 'What needs attention at MAN-004?'];

/** A reply as the lettings assistant writes one: a table of properties, then the follow-up line. */
function tableReply(question: string): string {
  return [
    `Three properties have rent arrears (you asked: ${question}).`,
    '',
    '| Ref | Address | Tenant | Arrears | Since |',
    '| --- | --- | --- | --- | --- |',
    '| MAN-004 | 4 Mill Lane, Manchester M4 1AA | Priya Shah | £1,150 | 19 Oct 2026 |',
    '| LON-005 | Flat 2, 18 Cranbourn Street, London WC2H 7AU | Tom Ellis | £640 | 2 Nov 2026 |',
    '| LDS-004 | 31 Kirkstall Road, Leeds LS3 1HS | Ana Silva | £285 | 14 Nov 2026 |',
    '',
    'The total owed is **£2,075**.',
    '',
    `Ask next: ${FOLLOW_UPS.map((q) => `“${q}”`).join(' · ')}`,
  ].join('\n');
}

type ChatBody = { messages: { role: string; content: string }[] };
const lastUserMessage = (body: unknown) =>
  (body as ChatBody).messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

beforeAll(async () => {
  fake = await startFakeOpenAI();
  const env = {
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: 'sk-test',
    PROVIDER: 'openai',
    CHAT_RATE_LIMIT_PER_MIN: '1000',
  };
  [browser, gateway, paired] = await Promise.all([
    BrowserHarness.launch(),
    startTestGateway({ env }),
    startTestGateway({ env: { ...env, ...TOKEN_ENV }, redis: 'none' }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await paired?.close();
  await fake?.close();
});

afterEach(async () => {
  fake.reset();
  expectNoPageProblems(await browser.endTest());
});

async function openChat(viewport: Viewport = DEFAULT_VIEWPORT, extra: DeviceOptions = {}): Promise<Page> {
  const page = await browser.openPage(`${gateway.baseUrl}/`, viewport, extra);
  await expect.poll(() => page.locator('#active-provider').textContent()).toBe('openai');
  return page;
}

const input = (page: Page) => page.getByRole('combobox', { name: 'Message' });
const assistantMessages = (page: Page) => page.locator('#log [data-role="assistant"]');
const userMessages = (page: Page) => page.locator('#log [data-role="user"] .message-body');
const sessionIdIn = (page: Page) => page.evaluate(() => localStorage.getItem('agentSessionId'));
const knownIdsIn = (page: Page) =>
  page.evaluate(() => JSON.parse(localStorage.getItem('agentSessions') ?? '[]') as string[]);

/** Waits until the `n`th reply (from 0) is complete. */
async function replyComplete(page: Page, n: number) {
  const reply = assistantMessages(page).nth(n);
  await expect.poll(() => reply.getAttribute('data-state'), { timeout: scaled(10_000) }).toBe('complete');
  return reply;
}

async function chat(page: Page, text: string) {
  const before = await assistantMessages(page).count();
  await input(page).fill(text);
  await input(page).press('Enter');
  return replyComplete(page, before);
}

/** Dark mode, screenshot, back to light. */
async function bothSchemes(page: Page, name: string) {
  await saveScreenshot(page, `${name}.png`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await saveScreenshot(page, `${name}-dark.png`);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** A web conversation stored straight in the database: `count` turns, questions and answers in turn. */
async function seedConversation(count: number, statusOf: (n: number) => string = () => 'complete') {
  const externalId = `seeded-${randomUUID()}`;
  const session = await gateway.db.chatSession.create({ data: { channel: 'web', externalId } });
  for (let n = 1; n <= count; n++) {
    await gateway.db.turn.create({
      data: {
        sessionId: session.id,
        role: n % 2 ? 'user' : 'assistant',
        content: n % 2 ? `Question ${n}` : `Answer ${n}`,
        status: statusOf(n),
      },
    });
  }
  return externalId;
}

describe('the welcome screen', () => {
  it('offers suggested questions; one click asks it and shows the reply', async () => {
    fake.setDefault((req) => ({ chunks: [`You asked: ${lastUserMessage(req.body)}`] }));
    const page = await openChat();
    expect(await page.title()).toBe('Porter · Lettings assistant');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Porter');
    const header = (await page.locator('header').textContent()) ?? '';
    expect(header).toContain('Lettings assistant');
    expect(header).not.toMatch(/gateway|provider/i);

    const welcome = page.locator('#welcome');
    expect(await welcome.isVisible()).toBe(true);
    expect(await welcome.getByRole('heading', { level: 2 }).textContent()).toMatch(
      /^Good (morning|afternoon|evening)\./,
    );
    const suggestions = welcome.getByRole('button');
    expect(await suggestions.count()).toBeGreaterThanOrEqual(4);
    expect(await suggestions.count()).toBeLessThanOrEqual(6);
    expect(await suggestions.allTextContents()).toContain('Which properties have arrears?');
    await bothSchemes(page, 'welcome');

    await welcome.getByRole('button', { name: 'Which properties have arrears?' }).click();
    await replyComplete(page, 0);
    expect(await userMessages(page).allTextContents()).toEqual(['Which properties have arrears?']);
    expect((await assistantMessages(page).locator('.message-body').textContent())?.trim()).toBe(
      'You asked: Which properties have arrears?',
    );
    expect(lastUserMessage(fake.requests.at(-1)!.body)).toBe('Which properties have arrears?');
    expect(await welcome.isVisible()).toBe(false);
    expect(await page.locator('#log [data-role="assistant"] .message-author').textContent()).toBe('Porter');
  });

  it('fits a phone, in light and dark', async () => {
    const page = await openChat(PHONE, PHONE_DEVICE);
    expect(await page.locator('#welcome').isVisible()).toBe(true);
    // the history is behind the Conversations button, not beside the chat
    expect(await page.locator('#history').isVisible()).toBe(false);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(PHONE.width);
    await bothSchemes(page, 'welcome-phone');
  });
});

describe('replies', () => {
  it('renders a Markdown table as a table, and the follow-up line as buttons that ask', async () => {
    fake.setDefault((req) => ({ chunks: tableReply(lastUserMessage(req.body)).split(/(?<=\n)/) }));
    const page = await openChat();
    const reply = await chat(page, 'Which properties have arrears?');

    const table = reply.locator('.table-wrap table');
    expect(await table.count()).toBe(1);
    expect(await table.locator('thead th').allTextContents()).toEqual([
      'Ref',
      'Address',
      'Tenant',
      'Arrears',
      'Since',
    ]);
    expect(await table.locator('tbody tr').count()).toBe(3);
    expect(await table.locator('tbody tr').first().locator('td').allTextContents()).toEqual([
      'MAN-004',
      '4 Mill Lane, Manchester M4 1AA',
      'Priya Shah',
      '£1,150',
      '19 Oct 2026',
    ]);
    // the money column lines up on the right; the text columns do not
    expect(await table.locator('td.num').allTextContents()).toEqual(['£1,150', '£640', '£285']);
    expect(await table.locator('th.num').allTextContents()).toEqual(['Arrears']);

    // the follow-up line became buttons and is no longer text
    const chips = reply.getByRole('group', { name: 'Ask next' }).getByRole('button');
    expect(await chips.allTextContents()).toEqual(FOLLOW_UPS);
    expect(await reply.locator('.message-body').textContent()).not.toContain('Ask next');
    expect(await reply.locator('.message-body').textContent()).toContain('The total owed is £2,075.');
    await bothSchemes(page, 'reply-table');

    await chips.nth(1).click();
    const second = await replyComplete(page, 1);
    expect(await userMessages(page).last().textContent()).toBe('What needs attention at MAN-004?');
    expect(lastUserMessage(fake.requests.at(-1)!.body)).toBe('What needs attention at MAN-004?');
    // only the latest reply offers follow-ups
    expect(await page.locator('#log .follow-ups').count()).toBe(1);
    expect(await second.locator('.follow-ups .chip').count()).toBe(2);
  });

  it('keeps text that only looks like a follow-up line as text', async () => {
    fake.setDefault({ chunks: ['Done.\n\nAsk next: Which EPCs are below E?'] });
    const page = await openChat();
    const reply = await chat(page, 'hello');
    expect(await reply.locator('.follow-ups').count()).toBe(0);
    expect(await reply.locator('.message-body').textContent()).toContain('Ask next: Which EPCs are below E?');
  });

  it('on a phone, a wide table scrolls inside the reply and the page does not', async () => {
    fake.setDefault((req) => ({ chunks: [tableReply(lastUserMessage(req.body))] }));
    const page = await openChat(PHONE, PHONE_DEVICE);
    const reply = await chat(page, 'Which properties have arrears?');
    const sizes = await reply.locator('.table-wrap').evaluate((wrap) => ({
      scroll: wrap.scrollWidth,
      client: wrap.clientWidth,
      page: document.documentElement.scrollWidth,
    }));
    expect(sizes.scroll).toBeGreaterThan(sizes.client);
    expect(sizes.page).toBeLessThanOrEqual(PHONE.width);
    await bothSchemes(page, 'reply-table-phone');
  });
});

describe('a conversation read back from the server', () => {
  it('shows the conversation again after a refresh, follow-up buttons included', async () => {
    fake.setDefault((req) => ({ chunks: [tableReply(lastUserMessage(req.body))] }));
    const page = await openChat();
    await chat(page, 'Which properties have arrears?');
    await chat(page, 'And in Leeds?');
    const id = await sessionIdIn(page);

    await page.reload();
    await expect.poll(() => assistantMessages(page).count()).toBe(2);
    expect(await sessionIdIn(page)).toBe(id);
    expect(await userMessages(page).allTextContents()).toEqual([
      'Which properties have arrears?',
      'And in Leeds?',
    ]);
    expect(await assistantMessages(page).locator('table').count()).toBe(2);
    expect(await page.locator('#log .follow-ups').count()).toBe(1);
    expect(await assistantMessages(page).last().locator('.chip').allTextContents()).toEqual(FOLLOW_UPS);
    expect(await page.locator('#welcome').isVisible()).toBe(false);
    expect(await page.locator('#earlier-button').count()).toBe(0);

    // and it goes on: the model is given the whole conversation
    await chat(page, 'Thanks');
    const sent = (fake.requests.at(-1)!.body as ChatBody).messages.filter((m) => m.role === 'user');
    expect(sent.map((m) => m.content)).toEqual(['Which properties have arrears?', 'And in Leeds?', 'Thanks']);
  });

  it('reads earlier messages a page at a time', async () => {
    const id = await seedConversation(70);
    const page = await browser.openPage(`${gateway.baseUrl}/`);
    await page.evaluate((sid) => {
      localStorage.setItem('agentSessionId', sid);
      localStorage.setItem('agentSessions', JSON.stringify([sid]));
    }, id);
    await page.reload();

    const articles = page.locator('#log article');
    await expect.poll(() => articles.count()).toBe(30);
    expect(await articles.first().textContent()).toContain('Question 41');
    expect(await articles.last().textContent()).toContain('Answer 70');
    // the newest message is in view
    const logBox = (await page.locator('#log').boundingBox())!;
    const lastBox = (await articles.last().boundingBox())!;
    expect(lastBox.y + lastBox.height).toBeLessThanOrEqual(logBox.y + logBox.height + 1);
    await saveScreenshot(page, 'reloaded.png');

    const earlier = page.getByRole('button', { name: 'Show earlier messages' });
    await earlier.click();
    await expect.poll(() => articles.count()).toBe(60);
    expect(await articles.first().textContent()).toContain('Question 11');
    await earlier.click();
    await expect.poll(() => articles.count()).toBe(70);
    expect(await page.locator('#earlier-button').count()).toBe(0);
    const texts = await page.locator('#log article .message-body').allTextContents();
    expect(texts.map((t) => t.trim())).toEqual(
      Array.from({ length: 70 }, (_, i) => (i % 2 ? `Answer ${i + 1}` : `Question ${i + 1}`)),
    );
  });

  it('shows a stopped reply and a failed reply as such', async () => {
    const id = await seedConversation(4, (n) => (n === 2 ? 'interrupted' : n === 4 ? 'error' : 'complete'));
    const page = await browser.openPage(`${gateway.baseUrl}/`);
    await page.evaluate((sid) => localStorage.setItem('agentSessionId', sid), id);
    await page.reload();
    await expect.poll(() => assistantMessages(page).count()).toBe(2);
    expect(await assistantMessages(page).first().getAttribute('data-state')).toBe('stopped');
    expect(await assistantMessages(page).first().locator('.message-status').textContent()).toContain(
      'Stopped',
    );
    expect(await assistantMessages(page).last().getAttribute('data-state')).toBe('error');
    expect(await assistantMessages(page).last().locator('.message-status').textContent()).toContain(
      'This reply failed',
    );
    // a browser that chatted before the list existed has its conversation listed
    expect(await knownIdsIn(page)).toEqual([id]);
  });

  it('starts empty when the server no longer holds the conversation', async () => {
    const page = await browser.openPage(`${gateway.baseUrl}/`);
    browser.allowConsoleErrors(/status of 404/);
    await page.evaluate(() => localStorage.setItem('agentSessionId', 'swept-long-ago'));
    await page.reload();
    await expect.poll(() => page.locator('#welcome').isVisible()).toBe(true);
    expect(await page.locator('#log [data-role="error"]').count()).toBe(0);
  });
});

// --- the list of conversations: kept on the server, per paired device ---------------------------------------

/** A device of a workspace of its own, so that its list holds only what its test puts in it. */
async function newDevice(name = 'laptop'): Promise<PairedDevice & { workspaceId: string }> {
  const workspaceId = await newWorkspace(paired, 'conversations');
  return { ...(await pairDevice(paired, workspaceId, ['chat'], name)), workspaceId };
}

/** The gw_session cookie's value out of a Set-Cookie header. */
const sessionCookie = (setCookie: string) => /gw_session=([^;]+)/.exec(setCookie)![1]!;

/** The chat as `device` sees it, in a browser context of its own (another browser of the same device). */
async function openAs(
  device: PairedDevice,
  viewport: Viewport = DEFAULT_VIEWPORT,
  extra: DeviceOptions = {},
) {
  const page = await browser.openPage(`${paired.baseUrl}/`, viewport, extra);
  await page
    .context()
    .addCookies([{ name: 'gw_session', value: sessionCookie(device.cookie), url: paired.baseUrl }]);
  await page.reload();
  await expect.poll(() => page.locator('#active-provider').textContent()).toBe('openai');
  return page;
}

/** A conversation of the device stored straight in the database, last active `daysAgo` days ago. */
async function seedOwn(device: PairedDevice & { workspaceId: string }, question: string, daysAgo: number) {
  const externalId = `seeded-${randomUUID()}`;
  const session = await paired.db.chatSession.create({
    data: {
      channel: 'web',
      owner: device.workspaceId,
      deviceId: device.deviceId,
      externalId,
      lastActiveAt: new Date(Date.now() - daysAgo * 86_400_000),
    },
  });
  await paired.db.turn.create({
    data: { sessionId: session.id, role: 'user', content: question, status: 'complete' },
  });
  await paired.db.turn.create({
    data: { sessionId: session.id, role: 'assistant', content: `About: ${question}`, status: 'complete' },
  });
  return externalId;
}

const historyList = (page: Page) => page.getByRole('list', { name: 'Conversations' });
const historyTitles = (page: Page) => historyList(page).locator('.history-title').allTextContents();

describe('the list of conversations', () => {
  it('lists past conversations, switches between them, and starts a new one', async () => {
    fake.setDefault((req) => ({ chunks: [`Answer to: ${lastUserMessage(req.body)}`] }));
    const page = await openAs(await newDevice());
    const list = historyList(page);
    expect(await page.locator('#history-empty').isVisible()).toBe(true);

    await chat(page, 'Which gas safety certificates have expired?');
    const first = await sessionIdIn(page);
    await expect.poll(() => list.locator('.history-item').count()).toBe(1);

    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(await sessionIdIn(page)).toBeNull();
    expect(await page.locator('#welcome').isVisible()).toBe(true);
    expect(await page.locator('#log article').count()).toBe(0);

    await chat(page, 'Which tenancies end in the next 60 days?');
    const second = await sessionIdIn(page);
    expect(second).not.toBe(first);
    expect(await knownIdsIn(page)).toEqual([second, first]);
    await expect.poll(() => list.locator('.history-item').count()).toBe(2);
    const items = list.locator('.history-item');
    expect(await historyTitles(page)).toEqual([
      'Which tenancies end in the next 60 days?',
      'Which gas safety certificates have expired?',
    ]);
    expect(await list.locator('.history-group-title').allTextContents()).toEqual(['Today']);
    expect(await items.locator('.history-when').first().textContent()).toMatch(/^\d{2}:\d{2}$/);
    expect(await items.first().getAttribute('aria-current')).toBe('true');
    await bothSchemes(page, 'conversations');
    // a wide screen: the conversation keeps a readable column, the sidebar stays beside it
    await page.setViewportSize({ width: 1440, height: 900 });
    const reply = (await assistantMessages(page).first().boundingBox())!;
    const logBox = (await page.locator('#log').boundingBox())!;
    expect(reply.width).toBeLessThanOrEqual(736); // 46rem
    expect(Math.abs(reply.x + reply.width / 2 - (logBox.x + logBox.width / 2))).toBeLessThan(20);
    expect(await page.locator('#history').isVisible()).toBe(true);
    await saveScreenshot(page, 'conversations-wide.png');
    await page.setViewportSize(DEFAULT_VIEWPORT);

    await items.nth(1).click();
    await expect
      .poll(() => userMessages(page).allTextContents())
      .toEqual(['Which gas safety certificates have expired?']);
    expect(await sessionIdIn(page)).toBe(first);
    expect(await list.locator('[aria-current="true"] .history-title').textContent()).toBe(
      'Which gas safety certificates have expired?',
    );
    // the conversation chosen goes on where it was
    await chat(page, 'And which are due this month?');
    expect(
      (fake.requests.at(-1)!.body as ChatBody).messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content),
    ).toEqual(['Which gas safety certificates have expired?', 'And which are due this month?']);
    // the list follows: the conversation just used is first
    await expect
      .poll(() => list.locator('.history-title').first().textContent())
      .toBe('Which gas safety certificates have expired?');
  });

  it('shows the same list, grouped by date, in a second browser of the same device and no one else’s', async () => {
    fake.setDefault((req) => ({ chunks: [`Answer to: ${lastUserMessage(req.body)}`] }));
    const device = await newDevice('office laptop');
    await seedOwn(device, 'Which deposits are due for protection?', 1);
    await seedOwn(device, 'List the voids in Bristol', 4);
    await seedOwn(device, 'Summarise the October arrears', 20);
    const first = await openAs(device);
    await chat(first, 'Which EICRs are due in the next 30 days?');
    await expect.poll(() => historyTitles(first)).toHaveLength(4);
    const expected = [
      'Which EICRs are due in the next 30 days?',
      'Which deposits are due for protection?',
      'List the voids in Bristol',
      'Summarise the October arrears',
    ];
    expect(await historyTitles(first)).toEqual(expected);

    // another browser (another context: no localStorage of the first) of the same device
    const second = await openAs(device);
    await expect.poll(() => historyTitles(second)).toEqual(expected);
    expect(await knownIdsIn(second)).toEqual([]);
    const groups = historyList(second).locator('.history-group-title');
    expect(await groups.allTextContents()).toEqual(['Today', 'Yesterday', 'Previous 7 days', 'Earlier']);
    expect(
      await historyList(second)
        .getByRole('list', { name: 'Yesterday' })
        .locator('.history-title')
        .allTextContents(),
    ).toEqual(['Which deposits are due for protection?']);
    await bothSchemes(second, 'conversations-second-browser');
    // and it opens there, read from the server
    await historyList(second).locator('.history-item', { hasText: 'List the voids in Bristol' }).click();
    await expect.poll(() => userMessages(second).allTextContents()).toEqual(['List the voids in Bristol']);
    await first.context().close();

    // another device of the same workspace, and a device of another workspace, see none of them
    const phone = await pairDevice(paired, device.workspaceId, ['chat'], 'phone');
    const phonePage = await openAs(phone);
    await expect.poll(() => page0Empty(phonePage)).toBe(true);
    expect(await historyTitles(phonePage)).toEqual([]);
  });

  it('renames a conversation in place, by keyboard, and the new name is what every browser shows', async () => {
    const device = await newDevice();
    await seedOwn(device, 'Which gas certificates expire soon?', 0);
    const page = await openAs(device);
    await expect.poll(() => historyTitles(page)).toEqual(['Which gas certificates expire soon?']);

    await page.getByRole('button', { name: 'Rename “Which gas certificates expire soon?”' }).click();
    const field = page.getByRole('textbox', { name: 'New name for this conversation' });
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('history-input');
    // Escape gives up, and the drawer or sidebar stays
    await field.press('Escape');
    expect(await historyTitles(page)).toEqual(['Which gas certificates expire soon?']);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Rename “Which gas certificates expire soon?”',
    );
    await page.keyboard.press('Enter');
    await field.fill('Gas safety — renewals for November');
    await saveScreenshot(page, 'conversation-rename.png');
    await field.press('Enter');
    await expect.poll(() => historyTitles(page)).toEqual(['Gas safety — renewals for November']);
    const stored = await paired.db.chatSession.findFirstOrThrow({ where: { deviceId: device.deviceId } });
    expect(stored.title).toBe('Gas safety — renewals for November');
    await bothSchemes(page, 'conversation-renamed');

    const other = await openAs(device);
    await expect.poll(() => historyTitles(other)).toEqual(['Gas safety — renewals for November']);
  });

  it('deletes a conversation after asking in words; Cancel and Escape keep it', async () => {
    fake.setDefault((req) => ({ chunks: [`Answer to: ${lastUserMessage(req.body)}`] }));
    const device = await newDevice();
    await seedOwn(device, 'List the voids in Bristol', 2);
    const page = await openAs(device);
    await chat(page, 'What needs attention at MAN-004?');
    await expect.poll(() => historyTitles(page)).toHaveLength(2);
    const current = await sessionIdIn(page);

    const del = page.getByRole('button', { name: 'Delete “What needs attention at MAN-004?”' });
    await del.click();
    const confirmation = page.getByRole('group', { name: 'Delete this conversation?' });
    expect(await confirmation.textContent()).toContain(
      'Delete “What needs attention at MAN-004?”? Its messages will be deleted too. This cannot be undone.',
    );
    // the safe choice has the focus
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await bothSchemes(page, 'conversation-delete-confirm');
    await page.keyboard.press('Escape');
    expect(await confirmation.count()).toBe(0);
    expect(await historyTitles(page)).toHaveLength(2);

    await del.click();
    await page.keyboard.press('Shift+Tab'); // from Cancel to Delete
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Delete');
    await page.keyboard.press('Enter');
    await expect.poll(() => historyTitles(page)).toEqual(['List the voids in Bristol']);
    // the conversation shown was the one deleted: a new one takes its place (the list and the conversation are
    // redrawn one after the other, in either order)
    await expect.poll(() => sessionIdIn(page)).toBeNull();
    await expect.poll(() => page.locator('#welcome').isVisible()).toBe(true);
    await expect.poll(() => knownIdsIn(page)).not.toContain(current);
    expect(await paired.db.chatSession.count({ where: { externalId: current! } })).toBe(0);
    expect(await paired.db.turn.count({ where: { session: { externalId: current! } } })).toBe(0);
    await saveScreenshot(page, 'conversation-deleted.png');
  });

  it('searches titles and messages as one types; Escape clears the search', async () => {
    const device = await newDevice();
    await seedOwn(device, 'Which gas certificates expire soon?', 0);
    await seedOwn(device, 'Show the arrears in Leeds', 1);
    await seedOwn(device, 'List the voids in Bristol', 9);
    const page = await openAs(device);
    await expect.poll(() => historyTitles(page)).toHaveLength(3);
    const search = page.getByRole('searchbox', { name: 'Search conversations' });

    await search.fill('LEEDS');
    await expect.poll(() => historyTitles(page)).toEqual(['Show the arrears in Leeds']);
    // a reply's words are searched too
    await search.fill('about: list the');
    await expect.poll(() => historyTitles(page)).toEqual(['List the voids in Bristol']);
    await bothSchemes(page, 'conversations-search');
    await search.fill('boiler');
    await expect
      .poll(() => page.locator('#history-empty').textContent())
      .toBe('No conversations match “boiler”.');
    expect(await page.locator('#history-empty').isVisible()).toBe(true);
    await saveScreenshot(page, 'conversations-search-none.png');
    await search.press('Escape');
    await expect.poll(() => historyTitles(page)).toHaveLength(3);
    expect(await search.inputValue()).toBe('');
  });

  it('on a phone the list is a drawer behind the Conversations button, with rename and delete at hand', async () => {
    fake.setDefault((req) => ({ chunks: [`Answer to: ${lastUserMessage(req.body)}`] }));
    const device = await newDevice('phone');
    await seedOwn(device, 'Summarise the October arrears', 3);
    const page = await openAs(device, PHONE, PHONE_DEVICE);
    await chat(page, 'What needs attention at MAN-004?');
    const first = await sessionIdIn(page);
    await page.getByRole('button', { name: 'Conversations' }).click();
    const drawer = page.locator('#history');
    await expect.poll(() => drawer.isVisible()).toBe(true);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect.poll(() => drawer.isVisible()).toBe(false);
    await chat(page, 'Give me my daily briefing');

    const toggle = page.getByRole('button', { name: 'Conversations' });
    await toggle.click();
    await expect.poll(() => drawer.isVisible()).toBe(true);
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => drawer.locator('.history-item').count()).toBe(3);
    // on a touch screen the Rename and Delete buttons show without hovering
    const rename = drawer.getByRole('button', { name: 'Rename “Summarise the October arrears”' });
    expect(await rename.evaluate((el) => getComputedStyle(el.parentElement!).opacity)).toBe('1');
    // the drawer stays inside the screen
    const box = (await drawer.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    await bothSchemes(page, 'conversations-phone');
    await drawer.getByRole('button', { name: 'Delete “Summarise the October arrears”' }).click();
    await bothSchemes(page, 'conversations-phone-delete');
    await drawer.getByRole('button', { name: 'Cancel' }).click();

    await drawer.locator('.history-item', { hasText: 'What needs attention at MAN-004?' }).click();
    await expect.poll(() => drawer.isVisible()).toBe(false);
    await expect
      .poll(() => userMessages(page).allTextContents())
      .toEqual(['What needs attention at MAN-004?']);
    expect(await sessionIdIn(page)).toBe(first);
    await bothSchemes(page, 'conversation-phone');

    // Escape closes the drawer and gives focus back to its button
    await toggle.click();
    await expect.poll(() => drawer.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => drawer.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('conversations-button');
  });
});

/** The list says it is empty. */
const page0Empty = (page: Page) => page.locator('#history-empty').isVisible();

describe('a reply’s actions', () => {
  it('copies a reply’s text (without its follow-up line) and says so', async () => {
    fake.setDefault((req) => ({ chunks: [tableReply(lastUserMessage(req.body))] }));
    const page = await openAs(await newDevice());
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: paired.baseUrl });
    const reply = await chat(page, 'Which properties have arrears?');
    const copy = reply.getByRole('button', { name: 'Copy reply' });
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(
      '| MAN-004 | 4 Mill Lane, Manchester M4 1AA | Priya Shah | £1,150 | 19 Oct 2026 |',
    );
    expect(copied).toContain('The total owed is **£2,075**.');
    expect(copied).not.toContain('Ask next');
    await bothSchemes(page, 'reply-copied');
    await expect.poll(() => copy.textContent(), { timeout: scaled(5_000) }).toBe('Copy');
    // a reply read back from the server has its Copy button too
    await page.reload();
    await expect.poll(() => assistantMessages(page).locator('.copy-button').count()).toBe(1);
  });

  it('asks the last question again from the last reply only, also after a failure', async () => {
    let n = 0;
    fake.setDefault((req) => ({ chunks: [`Answer ${++n} to: ${lastUserMessage(req.body)}`] }));
    const page = await openAs(await newDevice());
    await chat(page, 'Which EPCs are below E?');
    await chat(page, 'How many voids are there?');
    const again = page.getByRole('button', { name: /^Ask again/ });
    expect(await again.count()).toBe(1);
    expect(await assistantMessages(page).last().locator('.ask-again').count()).toBe(1);
    await bothSchemes(page, 'reply-ask-again');

    await again.click();
    await replyComplete(page, 2);
    expect(await userMessages(page).allTextContents()).toEqual([
      'Which EPCs are below E?',
      'How many voids are there?',
      'How many voids are there?',
    ]);
    expect(lastUserMessage(fake.requests.at(-1)!.body)).toBe('How many voids are there?');
    expect(await assistantMessages(page).last().locator('.message-body').textContent()).toContain(
      'Answer 3 to: How many voids are there?',
    );
    expect(await again.count()).toBe(1);

    // a failed reply offers it too
    fake.setDefault(() => ({ chunks: [], end: 'error' }));
    await input(page).fill('Which tenancies end soon?');
    await input(page).press('Enter');
    await expect
      .poll(() => page.locator('#log [data-role="error"]').count(), { timeout: scaled(10_000) })
      .toBe(1);
    await expect.poll(() => page.locator('#log [data-role="error"] .ask-again').count()).toBe(1);
    await saveScreenshot(page, 'reply-ask-again-after-error.png');
    fake.setDefault((req) => ({ chunks: [`Back: ${lastUserMessage(req.body)}`] }));
    await page.locator('#log [data-role="error"] .ask-again').click();
    await expect
      .poll(() => assistantMessages(page).last().locator('.message-body').textContent(), {
        timeout: scaled(10_000),
      })
      .toContain('Back: Which tenancies end soon?');
  });
});

// The page's modules, run in the page (a string, so that vitest does not rewrite the dynamic import).
const inPage = <T>(page: Page, module: string, call: string): Promise<T> =>
  page.evaluate(`(async () => { const m = await import('${module}'); return m.${call}; })()`);

describe("the page's own rules", () => {
  it('reads a follow-up line only when it is exactly of the agreed form', async () => {
    const page = await browser.openPage(`${gateway.baseUrl}/`);
    const split = (reply: string) =>
      inPage<{ text: string; questions: string[] }>(
        page,
        '/follow-ups.js',
        `splitFollowUps(${JSON.stringify(reply)})`,
      );
    expect(await split('Two are due.\n\nAsk next: “Which EPCs are below E?” · “Show MAN-004”\n')).toEqual({
      text: 'Two are due.',
      questions: ['Which EPCs are below E?', 'Show MAN-004'],
    });
    expect(await split('Ask next: “One?”')).toEqual({ text: '', questions: ['One?'] });
    const three = 'x\nAsk next: “A?” · “B?” · “C?”';
    expect((await split(three)).questions).toEqual(['A?', 'B?', 'C?']);
    for (const notOne of [
      'x\nAsk next: “A?” · “B?” · “C?” · “D?”', // more than three
      'x\nAsk next: "A?"', // straight quotes
      'x\nAsk next: “A?” and “B?”', // not separated by ·
      `x\nAsk next: “${'a'.repeat(121)}”`, // a question over 120 characters
      'x\nAsk next: “A?”\nmore text', // not the last line
      'You could ask next: “A?”', // not the start of the line
    ]) {
      expect(await split(notOne)).toEqual({ text: notOne, questions: [] });
    }
    const pending = (partial: string) =>
      inPage<string>(page, '/follow-ups.js', `withoutPendingFollowUps(${JSON.stringify(partial)})`);
    expect(await pending('Two are due.\n\nAsk ne')).toBe('Two are due.\n\n');
    expect(await pending('Two are due.\n\nAsk next: “Which')).toBe('Two are due.\n\n');
    expect(await pending('Two are due.\n\nAlso')).toBe('Two are due.\n\nAlso');
  });

  it('says when a conversation was last active in UK forms', async () => {
    const page = await browser.openPage(`${gateway.baseUrl}/`);
    // 23 Nov 2026, 16:30 in the page's local time, and times relative to it
    const label = (at: string) =>
      inPage<string>(page, '/time-labels.js', `lastActiveLabel(${at}, new Date(2026, 10, 23, 16, 30))`);
    expect(await label('new Date(2026, 10, 23, 9, 5).toISOString()')).toBe('09:05');
    expect(await label('new Date(2026, 10, 22, 23, 59).toISOString()')).toBe('Yesterday');
    expect(await label('new Date(2026, 10, 21, 14, 5).toISOString()')).toBe('21 Nov, 14:05');
    expect(await label('new Date(2025, 11, 31, 8, 0).toISOString()')).toBe('31 Dec 2025');
    expect(await label("'not a date'")).toBe('');
  });
});
