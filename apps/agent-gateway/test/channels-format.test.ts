import { describe, expect, it } from 'vitest';
import {
  formatForTelegram,
  htmlToPlain,
  TELEGRAM_MESSAGE_LIMIT,
} from '../src/features/channels/telegram/telegram-format.ts';
import { htmlProblem } from './support/fake-telegram.ts';

// The Markdown → Telegram HTML conversion, judged by the same parser rules the fake Bot API applies.

function expectSendable(messages: { html: string; plain: string }[]) {
  for (const m of messages) {
    expect(htmlProblem(m.html), m.html).toBeNull();
    expect(m.html.length).toBeLessThanOrEqual(TELEGRAM_MESSAGE_LIMIT);
    expect(m.plain).toBe(htmlToPlain(m.html));
  }
}

describe('formatForTelegram', () => {
  it('makes parseable HTML of any mix of Markdown markers and HTML-looking text', () => {
    const alphabet = [
      '*',
      '**',
      '_',
      '__',
      '`',
      '~~',
      '<',
      '>',
      '&',
      '[',
      ']',
      '(',
      ')',
      'a',
      ' ',
      'x_y',
      '#',
      '|',
      '\n',
      'https://e.x/?a=1&b=2',
      '<b>',
      '</i>',
      '&amp;',
      '-',
      '```',
    ];
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 500; n++) {
      let text = '';
      for (let i = 0; i < 60; i++) text += alphabet[next() % alphabet.length];
      expectSendable(formatForTelegram(text));
    }
  });

  it('keeps a code block whole when it fits, and closes and reopens <pre> when it must be split', () => {
    const code = Array.from({ length: 400 }, (_, i) => `line ${i} <tag> & "quote"`);
    const messages = formatForTelegram(['Intro', '```ts', ...code, '```', 'Outro'].join('\n'));
    expectSendable(messages);
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.slice(1).every((m) => m.html.startsWith('<pre>'))).toBe(true);
    expect(messages.flatMap((m) => m.plain.split('\n'))).toEqual(['Intro', ...code, 'Outro']);
  });

  it('cuts a single line longer than a message at a space, never inside an entity', () => {
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}&<`);
    const messages = formatForTelegram(words.join(' '));
    expectSendable(messages);
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.map((m) => m.plain).join(' ')).toBe(words.join(' '));
  });

  it('sends nothing for an empty or blank reply', () => {
    expect(formatForTelegram('')).toEqual([]);
    expect(formatForTelegram(' \n\n ')).toEqual([]);
  });

  it('renders headings bold, bullets as •, and leaves snake_case and lone markers alone', () => {
    expect(formatForTelegram('# Title\n* one\n- two\nsnake_case_name 2 * 3').map((m) => m.html)).toEqual([
      '<b>Title</b>\n• one\n• two\nsnake_case_name 2 * 3',
    ]);
  });
});
