import { describe, expect, it } from 'vitest';
import { formatForWhatsApp, markdownToWhatsApp } from '../src/features/channels/whatsapp/whatsapp-format.ts';

// The provider's Markdown as WhatsApp shows it: WhatsApp has its own markers (*bold*, _italic_, ~strike~,
// `code`, ```blocks```) and no escaping, so only Markdown's own markup is rewritten.

describe('markdownToWhatsApp', () => {
  it('turns bold, italic, strikethrough and headings into WhatsApp’s markers', () => {
    expect(markdownToWhatsApp('### 12A — 1 High St')).toBe('*12A — 1 High St*');
    expect(markdownToWhatsApp('**3 certificates** have *expired*, __two__ ~~not~~')).toBe(
      '*3 certificates* have _expired_, *two* ~not~',
    );
    expect(markdownToWhatsApp('## The **gas** check')).toBe('*The gas check*');
  });

  it('writes links as text and URL, and star bullets as dashes', () => {
    expect(markdownToWhatsApp('* see [the review queue](https://p.example/review?id=1)')).toBe(
      '- see the review queue (https://p.example/review?id=1)',
    );
    expect(markdownToWhatsApp('- [https://a.example](https://a.example)')).toBe('- https://a.example');
  });

  it('leaves code, arithmetic and snake_case alone and drops table rules', () => {
    expect(markdownToWhatsApp('`a*b*c` and 2 * 3 * 4 and gas_safety_cert')).toBe(
      '`a*b*c` and 2 * 3 * 4 and gas_safety_cert',
    );
    expect(markdownToWhatsApp('```ts\nconst **x** = 1\n```')).toBe('```\nconst **x** = 1\n```');
    expect(markdownToWhatsApp('| a | b |\n|---|:-:|\n| 1 | 2 |')).toBe('| a | b |\n| 1 | 2 |');
  });

  it('closes a code block the provider left open', () => {
    expect(markdownToWhatsApp('```\nstill code')).toBe('```\nstill code\n```');
  });
});

describe('formatForWhatsApp', () => {
  it('keeps a short reply in one message and sends nothing for an empty one', () => {
    expect(formatForWhatsApp('**Done.**')).toEqual(['*Done.*']);
    expect(formatForWhatsApp('  \n\n')).toEqual([]);
  });

  it('splits on line boundaries, each part at most the limit, the parts joining back in order', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}: ${'x'.repeat(20)}`);
    const parts = formatForWhatsApp(lines.join('\n'), 200);
    expect(parts.length).toBeGreaterThan(4);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(200);
    expect(parts.join('\n')).toBe(lines.join('\n'));
  });

  it('closes a code block at a split and opens it again in the next part', () => {
    const code = Array.from({ length: 30 }, (_, i) => `row ${i}`).join('\n');
    const parts = formatForWhatsApp(`Rows:\n\`\`\`\n${code}\n\`\`\``, 80);
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(80);
      expect((p.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(parts.slice(1).every((p) => p.startsWith('```'))).toBe(true);
  });

  it('cuts a line longer than a message at a space', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const parts = formatForWhatsApp(words, 120);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(120);
    expect(parts.join(' ')).toBe(words);
  });
});
