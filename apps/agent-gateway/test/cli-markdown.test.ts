import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { terminalRenderer } from '../src/cli/markdown.ts';

// The terminal chat shows a complete reply as rendered markdown (cli/markdown.ts, marked-terminal): no markdown
// syntax left for a person to read past.

const REPLY = [
  '### Expired gas safety certificates',
  '',
  'Two properties need **urgent** attention:',
  '',
  '| Ref | Address | Expired |',
  '|---|---|---|',
  '| MAN-004 | 4 Deansgate | 2 Oct 2026 |',
  '| MAN-007 | 7 Oxford Road | 14 Nov 2026 |',
  '',
  '- book an engineer',
  '- tell the tenants',
].join('\n');

describe('terminalRenderer', () => {
  it('draws headings, emphasis, tables and lists instead of showing their markdown', () => {
    const text = stripVTControlCharacters(terminalRenderer(80)(REPLY));
    expect(text).not.toContain('#');
    expect(text).not.toContain('**');
    expect(text).not.toMatch(/\|\s*-{3}/);
    expect(text).not.toContain('| Ref |');
    expect(text).toMatch(/^Expired gas safety certificates$/m);
    expect(text).toContain('Two properties need urgent attention:');
    // the table's cells, in a drawn table
    expect(text).toMatch(/│ MAN-004 +│ 4 Deansgate +│ 2 Oct 2026 +│/);
    expect(text).toMatch(/^\s*\* book an engineer$/m);
    expect(text.endsWith('\n')).toBe(false);
  });

  it('wraps long paragraphs to the window', () => {
    const text = stripVTControlCharacters(terminalRenderer(40)('word '.repeat(40).trim()));
    const lines = text.split('\n');
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
  });
});
