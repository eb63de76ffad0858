import { scaled, until } from '@pa/http-kit/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  channelWorker,
  connectTelegram,
  fakeOpenAIEnv,
  pairChat,
  startChannelGateway,
} from './support/channels.ts';
import { type FakeOpenAI, startFakeOpenAI } from './support/fake-openai.ts';
import { FakeTelegram, htmlProblem } from './support/fake-telegram.ts';
import type { TestGateway } from './support/test-app.ts';

// Replies as Telegram gets them: the provider (a loopback OpenAI-compatible fake) writes what each test needs.
let fake: FakeTelegram;
let llm: FakeOpenAI;
let g: TestGateway;
beforeAll(async () => {
  fake = await FakeTelegram.start();
  llm = await startFakeOpenAI();
  g = await startChannelGateway(fake, { env: fakeOpenAIEnv(llm) });
});
beforeEach(() => llm.reset());
afterAll(async () => {
  await g?.close();
  await llm?.close();
  await fake?.close();
});

async function pairedChat(chatId: number) {
  const worker = await channelWorker(g);
  const bot = fake.addBot();
  const created = await connectTelegram(worker, bot, 'webhook');
  await pairChat(fake, bot, chatId, created.pairingCode);
  return bot;
}

describe('replies sent to a Telegram chat', () => {
  it('splits a long reply on line boundaries into messages of at most 4000 characters, in order', async () => {
    const bot = await pairedChat(640_001);
    const lines = Array.from(
      { length: 240 },
      (_, i) =>
        `Line ${String(i + 1).padStart(3, '0')}: ${'flat 4, 12 Oak Street, '.repeat(2)}gas safety due`,
    );
    llm.script({ chunks: lines.map((l) => `${l}\n`) });
    await fake.userWrites(bot, { id: 640_001 }, 'list everything');
    await llm.waitForRequests(1);
    const total = lines.join('\n').length;
    const expected = Math.ceil(total / 4000);
    const sent = (await fake.waitForMessages(640_001, 1 + expected)).slice(1);
    expect(total).toBeGreaterThan(12_000);
    expect(sent.length).toBeGreaterThanOrEqual(expected);
    for (const m of sent) {
      expect(m.text.length).toBeLessThanOrEqual(4000);
      expect(m.parseMode).toBe('HTML');
    }
    // every line whole, in one message, in order
    expect(sent.flatMap((m) => m.text.split('\n'))).toEqual(lines);
    // sent one after another
    for (let i = 1; i < sent.length; i++) expect(sent[i]!.messageId).toBeGreaterThan(sent[i - 1]!.messageId);
  });

  it('delivers Markdown that Telegram would refuse as written (stray *, _, <, &, crossed markers) as well-formed HTML', async () => {
    const bot = await pairedChat(640_002);
    const reply = [
      '## Compliance',
      '**Expired:** 2 *of* 5 — see `gas_safety < 0 && x > 1`',
      'a stray * star, a snake_case_name, 5 < 6 & 7 > 3, <script>alert(1)</script>',
      '**bold *crossed** markers*',
      '- [the review queue](https://platform.example/review?a=1&b="2")',
      '| Property | Due |',
      '|---|---|',
      '| 12 Oak St | 2026-01-04 |',
      '```',
      'if (a < b && c) { return "<b>"; }',
      '```',
    ].join('\n');
    llm.script({ chunks: [reply] });
    await fake.userWrites(bot, { id: 640_002 }, 'compliance?');
    const [, sent] = await fake.waitForMessages(640_002, 2);
    expect(sent!.parseMode).toBe('HTML');
    expect(htmlProblem(sent!.text)).toBeNull();
    expect(sent!.text).toBe(
      [
        '<b>Compliance</b>',
        '<b>Expired:</b> 2 <i>of</i> 5 — see <code>gas_safety &lt; 0 &amp;&amp; x &gt; 1</code>',
        'a stray * star, a snake_case_name, 5 &lt; 6 &amp; 7 &gt; 3, &lt;script&gt;alert(1)&lt;/script&gt;',
        '**bold *crossed** markers*',
        '• <a href="https://platform.example/review?a=1&amp;b=&quot;2&quot;">the review queue</a>',
        '<pre>Property   Due',
        '12 Oak St  2026-01-04</pre>',
        '<pre>if (a &lt; b &amp;&amp; c) { return "&lt;b&gt;"; }</pre>',
      ].join('\n'),
    );
  });

  it('resends a reply as plain text when Telegram cannot parse its entities', async () => {
    const bot = await pairedChat(640_003);
    llm.script({ chunks: ['**Two** certificates have expired.'] });
    fake.failNext(
      'sendMessage',
      400,
      "Bad Request: can't parse entities: Unsupported start tag at byte offset 0",
    );
    await fake.userWrites(bot, { id: 640_003 }, 'how many?');
    const [, sent] = await fake.waitForMessages(640_003, 2);
    expect(sent).toMatchObject({ text: 'Two certificates have expired.', parseMode: undefined });
  });

  it('waits retry_after seconds when sendMessage answers 429, then delivers the reply once', async () => {
    const bot = await pairedChat(640_004);
    llm.script({ chunks: ['after the limit'] });
    fake.rateLimit('sendMessage', 1, 1);
    await fake.userWrites(bot, { id: 640_004 }, 'hi');
    const [, sent] = await fake.waitForMessages(640_004, 2);
    expect(sent!.text).toBe('after the limit');
    const attempts = fake
      .callsOf('sendMessage')
      .filter((c) => c.token === bot.token && c.params.text === 'after the limit');
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(fake.messagesTo(640_004)).toHaveLength(2);
  });

  it('/stop aborts the provider mid-reply, stores the partial reply as interrupted and sends it', async () => {
    const bot = await pairedChat(640_005);
    // the model writes a first part, then goes quiet as if still thinking
    llm.script({ chunks: ['The first two certificates are '], end: 'hang' });
    await fake.userWrites(bot, { id: 640_005 }, 'which certificates expired?');
    await llm.waitForRequests(1);
    await fake.userWrites(bot, { id: 640_005 }, '/stop');
    const aborted = await llm.waitForAbort(5000);
    expect(aborted.abortedAt).toBeDefined();
    const [, sent] = await fake.waitForMessages(640_005, 2);
    const turns = await g.db.turn.findMany({
      where: { session: { channel: 'telegram', externalId: { endsWith: ':640005' } } },
      orderBy: { seq: 'asc' },
    });
    expect(turns.map((t) => [t.role, t.status, t.content])).toEqual([
      ['user', 'complete', 'which certificates expired?'],
      ['assistant', 'interrupted', 'The first two certificates are '],
    ]);
    expect(sent!.text).toBe('The first two certificates are\n\n<i>(stopped)</i>');
    // /stop is no turn of its own, and the chat goes on
    await fake.userWrites(bot, { id: 640_005 }, 'go on');
    const after = await fake.waitForMessages(640_005, 3);
    expect(after[2]!.text).toBe('You said: go on');
  });

  it(
    'records the failure as lastError when the Bot API is down while replying, and clears it once it is back',
    async () => {
      const bot = await pairedChat(640_007);
      const channel = await g.db.channel.findFirstOrThrow({ where: { externalId: String(bot.id) } });
      llm.script({ chunks: ['lost reply'] }, { chunks: ['delivered reply'] });
      fake.down();
      try {
        await fake.userWrites(bot, { id: 640_007 }, 'first');
        await until(
          'the failed delivery recorded',
          async () =>
            (await g.db.channel.findUniqueOrThrow({ where: { id: channel.id } })).lastError ?? undefined,
          20_000,
        );
      } finally {
        fake.up();
      }
      const row = await g.db.channel.findUniqueOrThrow({ where: { id: channel.id } });
      expect(row.lastError).toMatch(/^A reply could not be delivered: /);
      expect(row.lastError).not.toContain(bot.token);
      await fake.userWrites(bot, { id: 640_007 }, 'second');
      const sent = await fake.waitForMessages(640_007, 2);
      expect(sent[1]!.text).toBe('delivered reply');
      await until(
        'lastError cleared',
        async () => (await g.db.channel.findUniqueOrThrow({ where: { id: channel.id } })).lastError === null,
      );
    },
    scaled(30_000),
  );

  it('tells the chat in words when the provider fails, and stores the failure', async () => {
    const bot = await pairedChat(640_006);
    llm.script({ status: 503 });
    await fake.userWrites(bot, { id: 640_006 }, 'hi');
    const [, sent] = await fake.waitForMessages(640_006, 2);
    expect(sent!.text).toMatch(/^Sorry, I could not answer: /);
    const turns = await g.db.turn.findMany({
      where: { session: { channel: 'telegram', externalId: { endsWith: ':640006' } } },
      orderBy: { seq: 'asc' },
    });
    expect(turns.map((t) => t.status)).toEqual(['complete', 'error']);
  });
});
