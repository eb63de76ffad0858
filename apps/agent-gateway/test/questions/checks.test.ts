import { describe, expect, it } from 'vitest';
import {
  body,
  claimedCount,
  count,
  date,
  everyAnswer,
  failures,
  gbp,
  mentions,
  mentionsNone,
  money,
  namesWhatItSpeaksOf,
  notFound,
  selfConsistent,
  table,
  ukDate,
  ukFormats,
} from './checks.ts';
import { addDays, daysBetween, emailsNeedingReply, londonDate } from './demo-facts.ts';

// The referee's own checks, on replies quoted in issue 12 and on good ones: a check that cannot fail would make
// the question set's score meaningless.

const TODAY = '2026-11-23';

describe('formats', () => {
  it('money in pounds, pence only when not whole', () => {
    expect(gbp(115_000)).toBe('£1,150');
    expect(gbp(139_550)).toBe('£1,395.50');
    expect(gbp(3_929_167)).toBe('£39,291.67');
    expect(money(115_000, 'arrears').run('owes £1,150.')).toBeNull();
    expect(money(115_000, 'arrears').run('owes £1,150.00')).toMatch(/£1,150/);
    expect(money(115_000, 'arrears').run('owes £11,500')).toMatch(/£1,150/);
  });

  it('dates as 19 Oct 2026', () => {
    expect(ukDate('2026-10-19')).toBe('19 Oct 2026');
    expect(ukDate('2026-12-05')).toBe('5 Dec 2026');
    expect(date('2026-12-05', 'due').run('due by 5 Dec 2026')).toBeNull();
    expect(date('2026-12-05', 'due').run('due by 15 Dec 2026')).not.toBeNull();
    expect(ukFormats.run('£1,150.00, 92.1 %, 27 Sept 2025, 2026-11-23')).toBe(
      'is not in UK format: £1,150.00, 1 %, 27 Sept 2025, 2026-11-23',
    );
    expect(ukFormats.run('£1,150, 92.1%, 27 Sep 2025, 19 May 2026')).toBeNull();
  });

  it('London dates and calendar arithmetic', () => {
    expect(londonDate('2026-06-30T23:30:00Z')).toBe('2026-07-01'); // BST
    expect(londonDate('2026-12-31T23:30:00Z')).toBe('2026-12-31'); // GMT
    expect(addDays('2026-11-23', 43)).toBe('2027-01-05');
    expect(daysBetween('2026-11-23', '2026-10-20')).toBe(-34);
  });
});

describe('facts', () => {
  it('refs are whole words: MAN-004 is not MAN-0045, and lower case counts', () => {
    expect(mentions(['MAN-004']).run('see man-004')).toBeNull();
    expect(mentions(['MAN-004']).run('see MAN-0045')).toMatch(/MAN-004/);
    expect(mentionsNone(['LON-005'], 'owe nothing').run('LON-005 £640')).toMatch(/LON-005/);
  });

  it('counts with their unit on either side', () => {
    const c = count(24, 'properties', /propert/);
    expect(c.run('**Properties:** 24')).toBeNull();
    expect(c.run('24 properties')).toBeNull();
    expect(c.run('240 properties')).not.toBeNull();
  });

  it('a count, when given, must be right (issue 12: "5 more are expiring soon", the bridge says 6)', () => {
    const c = claimedCount(/(\d+) (?:more |further )?items? (?:are )?expiring soon/i, 6, 'expiring soon');
    expect(c.run('No count given.')).toBeNull();
    expect(c.run('A further 6 items are expiring soon.')).toBeNull();
    expect(c.run('5 more items are expiring soon.')).toBe(
      'says "5 more items are expiring soon", but expiring soon is 6',
    );
  });

  it('a Markdown table needs its separator row', () => {
    expect(table().run('| Ref | Due |\n| --- | --- |\n| MAN-004 | 5 Dec 2026 |')).toBeNull();
    expect(table().run('| Ref | Due |\n| MAN-004 | 5 Dec 2026 |')).not.toBeNull();
  });

  it('"not found" must be plain and name no property', () => {
    const refs = ['MAN-001', 'MAN-004'];
    expect(failures('I could not find 14 Oak Street in your portfolio.', notFound(refs))).toEqual([]);
    // the issue: the overview instead of "not found"
    expect(failures('### Portfolio overview\n- MAN-004 needs attention', notFound(refs))).toHaveLength(2);
    expect(
      failures('I could not find it. The references are: MAN-001, MAN-004.', notFound(refs)),
    ).toHaveLength(1);
  });

  it('suggestions in the closing Ask next line are not part of the answer', () => {
    const reply = 'No HMO licences fall due this year.\n\nAsk next: “What needs attention at BRS-004?”';
    expect(body(reply)).toBe('No HMO licences fall due this year.');
    expect(failures(reply, [mentionsNone(['BRS-004'], 'x')])).toEqual([]);
  });

  it('a property spoken of by its address is named by its ref', () => {
    const props = [
      { ref: 'MAN-004', street: '16 Clarendon Road' },
      { ref: 'BRS-003', street: 'Apartment 9, Finzels Reach' },
    ];
    const check = namesWhatItSpeaksOf(props);
    expect(check.run('Re: Rent arrears – 16 Clarendon Road | MAN-004')).toBeNull();
    expect(check.run('New let – Apartment 9, Finzels Reach')).toBe(
      'speaks of "Finzels Reach" without naming BRS-003',
    );
    expect(check.run('Acquisition – 52 Ladybarn Lane')).toBeNull();
  });

  it('email needing a reply: not when a reply followed in the thread', () => {
    const mail = (id: number, thread: string, direction: 'inbound' | 'outbound', at: string) => ({
      id,
      thread_id: thread,
      direction,
      from: 'a@example.com',
      to: ['b@example.com'],
      subject: `s${id}`,
      snippet: '',
      received_at: at,
      has_attachments: false,
      category: 'maintenance' as const,
      requires_response: direction === 'inbound',
      linked: { property_id: null, deal_id: null },
      mailbox: 'b@example.com',
    });
    const emails = [
      mail(1, 't1', 'inbound', '2026-11-23T09:00:00Z'),
      mail(2, 't1', 'outbound', '2026-11-23T10:00:00Z'),
      mail(3, 't2', 'inbound', '2026-11-23T11:00:00Z'),
      mail(4, 't3', 'outbound', '2026-11-23T08:00:00Z'),
      mail(5, 't3', 'inbound', '2026-11-23T12:00:00Z'),
    ];
    expect(emailsNeedingReply(emails).map((e) => e.id)).toEqual([3, 5]);
  });
});

describe('every answer', () => {
  const consistent = selfConsistent(TODAY);

  it('catches the EPC that "expired" in the future (issue 12)', () => {
    expect(consistent.run('LDS-003 … expired on 21 Jan 2033 (in 2252 days) — Band F')).toMatch(
      /"expired on 21 Jan 2033" is in the future/,
    );
  });

  it('catches a day count that does not match the date', () => {
    expect(consistent.run('expired on 20 Oct 2026 (34 days ago)')).toBeNull();
    expect(consistent.run('| MAN-004 | 20 Oct 2026 | 34 days overdue |')).toBeNull();
    // a row with the date twice: the phrase belongs to the second
    expect(consistent.run('| MAN-004 | 20 Oct 2026 | expired on 20 Oct 2026 (34 days ago) |')).toBeNull();
    expect(consistent.run('| MAN-004 | 20 Oct 2026 | expired on 20 Oct 2026 (30 days ago) |')).toMatch(
      /not 30 ago/,
    );
    expect(consistent.run('expired on 20 Oct 2026 (30 days ago)')).toMatch(/not 30 ago/);
    expect(consistent.run('expires on 5 Dec 2026 (in 12 days)')).toBeNull();
    expect(consistent.run('expires on 5 Dec 2026 (in 14 days)')).toMatch(/in 12 days/);
    expect(consistent.run('24 Nov 2026 (due tomorrow)')).toBeNull();
    expect(consistent.run('25 Nov 2026 (due tomorrow)')).not.toBeNull();
    expect(consistent.run('expires on 20 Oct 2026')).toMatch(/in the past/);
    expect(consistent.run('exemption registered until 24 Oct 2026')).toMatch(/not said to have lapsed/);
    expect(consistent.run('exemption registered until 24 Oct 2026 (expired)')).toBeNull();
  });

  it('no emoji, no help text instead of an answer, well-formed suggestions', () => {
    const all = everyAnswer(TODAY);
    expect(failures('**Arrears:** £1,150', all)).toEqual([]);
    expect(failures('**Arrears:** £1,150 ⚠️', all)).toEqual(['contains the emoji ⚠']);
    expect(failures(`I only understand a few kinds of question. ${'x'.repeat(400)}`, all)).toEqual([
      'answers with the help text',
    ]);
    expect(failures('Done.\n\nAsk next: “Which EPCs are below E?” · “Summarise Leeds”', all)).toEqual([]);
    expect(failures('Done.\n\nAsk next: "Which EPCs are below E?"', all)).toHaveLength(1);
    expect(failures('Ask next: “Which EPCs are below E?”\n\nDone.', all)).toHaveLength(1);
  });
});
