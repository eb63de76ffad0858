import { describe, expect, it } from 'vitest';
import { followUpIntent, withContext } from '../src/features/providers/local/follow-up.ts';
import { parseIntent, placeIn, windowIn } from '../src/features/providers/local/intent.ts';
import { askNext, table } from '../src/features/providers/local/markdown.ts';

// The local provider's question parser on its own: many phrasings, one intent each. No data, no clock.

const kind = (q: string) => parseIntent(q)?.kind ?? null;

describe('parseIntent', () => {
  it.each([
    ['Which properties have arrears?', 'arrears'],
    ['Who owes rent?', 'arrears'],
    ['What are my total arrears?', 'arrears'],
    ['which tenancies end in the next 60 days?', 'tenancies'],
    ['Who has given notice?', 'tenancies'],
    ['Leases expiring this month', 'tenancies'],
    ['Which tenancies are periodic?', 'periodic'],
    ['Which properties are void?', 'voids'],
    ['How many empty units do I have?', 'voids'],
    ["What's my occupancy?", 'voids'],
    ["What's my rent roll?", 'rent-roll'],
    ['Which property has the highest rent?', 'rent-ranking'],
    ['Which EPCs are below E?', 'epc-below-e'],
    ['Any EPCs rated F or G?', 'epc-below-e'],
    ['Give me a portfolio overview', 'overview'],
    ['Give me my daily briefing', 'briefing'],
    ['What needs attention today?', 'attention'],
    ['What needs my attention this week?', 'attention'],
    ['What should I do today?', 'attention'],
    ['Anything urgent?', 'attention'],
    ['What needs attention in Leeds?', 'lookup'],
    ['Which emails need a reply?', 'emails'],
    ['What has the council sent us this week?', 'emails'],
    ['Which deal actions are overdue?', 'deals'],
    ['What needs attention at MAN-004?', 'property'],
    ['lds-004', 'property'],
    ['what about se228hj', 'property'],
    ['summarise Leeds', 'lookup'],
    ['tell me about 14 Oak Street', 'lookup'],
    ['Create a deal for 5 Oak Street', 'read-only'],
    ['what is the weather like?', null],
  ])('%s → %s', (question, expected) => {
    expect(kind(question)).toBe(expected);
  });

  it('attention: the window asked, this week when none is', () => {
    expect(parseIntent('What should I do today?')).toEqual({ kind: 'attention', window: { kind: 'today' } });
    expect(parseIntent('What needs my attention this week?')).toEqual({
      kind: 'attention',
      window: { kind: 'week' },
    });
    expect(parseIntent('What needs my attention in the next 30 days?')).toEqual({
      kind: 'attention',
      window: { kind: 'days', days: 30 },
    });
    expect(parseIntent('Anything urgent?')).toEqual({ kind: 'attention', window: { kind: 'week' } });
  });

  it('compliance: type, status and window', () => {
    expect(parseIntent('Which gas safety certificates have expired?')).toEqual({
      kind: 'compliance',
      type: 'gas_safety',
      status: 'expired',
      window: null,
    });
    expect(parseIntent('Which gas safety certificates have expired or are expiring soon?')).toMatchObject({
      type: 'gas_safety',
      status: null,
    });
    expect(parseIntent('HMO licences expiring this year')).toMatchObject({
      type: 'hmo_licence',
      window: { kind: 'year' },
    });
    expect(parseIntent("What's expiring in the next 30 days?")).toMatchObject({
      type: null,
      status: 'expiring',
      window: { kind: 'days', days: 30 },
    });
    expect(parseIntent('Which properties have no EPC?')).toMatchObject({ type: 'epc', status: 'missing' });
    expect(parseIntent('What compliance is overdue?')).toMatchObject({ type: null, status: 'expired' });
  });

  it('deals: won or lost together are the closed deals', () => {
    expect(parseIntent('Which deals have we won or lost?')).toMatchObject({ kind: 'deals', closed: true });
    expect(parseIntent('What deals are open?')).toMatchObject({
      kind: 'deals',
      status: 'open',
      closed: false,
    });
  });

  it('email: hours and kind', () => {
    expect(parseIntent('Which emails need a response in the last 48 hours?')).toMatchObject({ hours: 48 });
    expect(parseIntent('Any emails about arrears this week?')).toMatchObject({
      hours: 168,
      category: 'arrears',
    });
  });
});

describe('windows and places', () => {
  it.each([
    ['in the next 30 days', { kind: 'days', days: 30 }],
    ['within 2 weeks', { kind: 'days', days: 14 }],
    ['next three months', { kind: 'days', days: 90 }],
    ['this month', { kind: 'month' }],
    ['before the end of the year', { kind: 'year' }],
    ['this week', { kind: 'week' }],
    ['soon', null],
  ])('%s', (text, expected) => {
    expect(windowIn(text)).toEqual(expected);
  });

  it('names the place after "tell me about", "summarise", "in"; not "my portfolio"', () => {
    expect(placeIn('tell me about 14 Oak Street')).toBe('14 Oak Street');
    expect(placeIn('Summarise Birmingham')).toBe('Birmingham');
    expect(placeIn("What's going on in London?")).toBe('London');
    expect(placeIn('summarise my portfolio')).toBeNull();
  });
});

describe('follow-ups', () => {
  it('"there" takes the property of the previous question', () => {
    expect(withContext("What's the rent there?", ['Tell me about MAN-004'])).toBe(
      "What's the rent there at MAN-004?",
    );
    expect(withContext('What about LDS-001?', ['Tell me about MAN-004'])).toBe('What about LDS-001?');
  });

  it('"And EICRs?" keeps the previous compliance question, with the new type', () => {
    const text = 'And EICRs?';
    expect(followUpIntent(text, parseIntent(text), ['Which gas safety certificates have expired?'])).toEqual({
      kind: 'compliance',
      type: 'eicr',
      status: 'expired',
      window: null,
    });
  });
});

describe('markdown', () => {
  it('escapes a | in a cell and cuts long tables with "and N more"', () => {
    const t = table(['Ref', 'Note'], [['A', 'x | y']]);
    expect(t).toBe('| Ref | Note |\n| --- | --- |\n| A | x \\| y |');
    const long = table(
      ['N'],
      Array.from({ length: 35 }, (_, i) => [String(i)]),
    );
    // the header, the separator and 30 rows
    expect(long.split('\n').filter((l) => l.startsWith('| ')).length).toBe(32);
    expect(long).toMatch(/and 5 more$/);
  });

  it('Ask next: one to three questions in curly quotes, without curly quotes inside', () => {
    expect(askNext(['Which EPCs are below E?', 'What needs attention at MAN-004?'])).toBe(
      'Ask next: “Which EPCs are below E?” · “What needs attention at MAN-004?”',
    );
    expect(askNext(['a', 'b', 'c', 'd'])).toBe('Ask next: “a” · “b” · “c”');
    expect(askNext(['Say “hi”'])).toBe('Ask next: “Say hi”');
    expect(askNext([])).toBe('');
  });
});
