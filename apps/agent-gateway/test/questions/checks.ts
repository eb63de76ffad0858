import { daysBetween } from './demo-facts.ts';

// Fact checks on one reply, not phrasing: each returns null when the reply passes, or a sentence saying what
// was wrong, so a failing question reads as a bug report.

export interface Check {
  name: string;
  run(reply: string): string | null;
  /** reads the whole reply; other checks read it without its closing "Ask next:" suggestions */
  whole?: boolean;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const FULL_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** `£1,150`, `£1,395.50`: pence only when not whole (the team's UK format). */
export function gbp(pence: number): string {
  const whole = pence % 100 === 0;
  return new Intl.NumberFormat('en-GB', {
    style: 'currency',
    currency: 'GBP',
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: whole ? 0 : 2,
  }).format(pence / 100);
}

/** `19 Oct 2026` from 2026-10-19. */
export function ukDate(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return `${d} ${MONTHS[m - 1]} ${y}`;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const refPattern = (ref: string) => new RegExp(`(?<![A-Za-z0-9-])${escape(ref)}(?![0-9])`, 'i');

export const mentions = (refs: string[], what = 'property'): Check => ({
  name: `names ${refs.join(', ') || '(none)'}`,
  run: (r) => {
    const absent = refs.filter((ref) => !refPattern(ref).test(r));
    return absent.length ? `does not name the ${what} ${absent.join(', ')}` : null;
  },
});

export const mentionsNone = (refs: string[], why: string): Check => ({
  name: `names none of ${refs.length} properties ${why}`,
  run: (r) => {
    const present = refs.filter((ref) => refPattern(ref).test(r));
    return present.length ? `names ${present.join(', ')}, which ${why}` : null;
  },
});

/** A fragment of text (an address, a deal's title), case-insensitive. */
export const says = (fragment: string, what = fragment): Check => ({
  name: `says ${what}`,
  run: (r) =>
    r.toLowerCase().includes(fragment.toLowerCase()) ? null : `does not say ${what} ("${fragment}")`,
});

export const saysNot = (fragment: string, why: string): Check => ({
  name: `does not say "${fragment}"`,
  run: (r) => (r.toLowerCase().includes(fragment.toLowerCase()) ? `says "${fragment}", but ${why}` : null),
});

export const matches = (re: RegExp, what: string): Check => ({
  name: what,
  run: (r) => (re.test(r) ? null : `does not ${what} (${re})`),
});

export const matchesNot = (re: RegExp, why: string): Check => ({
  name: `not ${re}`,
  run: (r) => (re.test(r) ? `matches ${re}: ${why}` : null),
});

/** An amount as `£1,150` (not `£1,150.00`, not `1150`). */
export const money = (pence: number, what: string): Check => {
  const text = gbp(pence);
  const re = new RegExp(`${escape(text)}(?![0-9]|[.,][0-9])`);
  return { name: `${what} ${text}`, run: (r) => (re.test(r) ? null : `does not give ${what} as ${text}`) };
};

export const date = (iso: string, what: string): Check => {
  const text = ukDate(iso);
  const re = new RegExp(`(?<![0-9])${escape(text)}`);
  return { name: `${what} ${text}`, run: (r) => (re.test(r) ? null : `does not give ${what} as ${text}`) };
};

/** The number `n` as a whole number; with `unit`, that word within 40 characters either side ("24 properties", "Properties: 24"). */
export const count = (n: number, what: string, unit?: RegExp): Check => ({
  name: `${what}: ${n}`,
  run: (r) => {
    const num = `(?<![0-9.,£])${n}(?![0-9.,%])`;
    const re = unit
      ? new RegExp(`${num}[^\\n0-9]{0,40}?${unit.source}|${unit.source}[^\\n0-9]{0,40}?${num}`, 'i')
      : new RegExp(num);
    return re.test(r) ? null : `does not give ${what} as ${n}`;
  },
});

/** Passes when any of `checks` passes (the same fact said in either of two ways). */
export const anyOf = (what: string, ...checks: Check[]): Check => ({
  name: what,
  run: (r) => {
    const failed = checks.map((c) => c.run(r));
    return failed.some((m) => m === null) ? null : `does not give ${what} (${failed.join(' / ')})`;
  },
});

/** A count the answer may or may not give, but when it does (the number `re` captures) it must be `n`. */
export const claimedCount = (re: RegExp, n: number, what: string): Check => ({
  name: `${what}, if given, is ${n}`,
  run: (r) => {
    const wrong = [...r.matchAll(new RegExp(re.source, `${re.flags.replace('g', '')}g`))].filter(
      (m) => Number(m[1]) !== n,
    );
    return wrong.length ? `says "${wrong[0]![0]}", but ${what} is ${n}` : null;
  },
});

/** A GitHub-flavoured Markdown table: a header row followed by a `| --- |` separator. */
export const table = (): Check => ({
  name: 'a Markdown table',
  run: (r) =>
    /^\|.*\|[ \t]*\n\|[ \t]*:?-{3,}/m.test(r) ? null : 'has no Markdown table (header and | --- | row)',
});

export const NOT_FOUND = /could not find|couldn['’]t find|no propert(y|ies)|not in (your|the) portfolio/i;

/** Plainly says the property does not exist, and then names none. */
export const notFound = (allRefs: string[]): Check[] => [
  matches(NOT_FOUND, 'say plainly that it is not found'),
  mentionsNone(allRefs, 'were not asked about (the answer is "not found")'),
];

// ---- applied to every answer ----------------------------------------------------------------------------

export const noEmoji: Check = {
  name: 'no emoji',
  run: (r) => {
    const m = r.match(/\p{Extended_Pictographic}/u);
    return m ? `contains the emoji ${m[0]}` : null;
  },
};

/** The help text is for "what can you do?", not a fallback for a question the assistant should answer. */
export const noFallback: Check = {
  name: 'answers the question instead of the help text',
  run: (r) =>
    /only understand|I can answer questions like|try asking/i.test(r) && r.length > 400
      ? 'answers with the help text'
      : null,
};

/** The team's UK formats: `£1,150` not `£1,150.00`, `92.1%` not `92.1 %`, `27 Sep 2025` not `27 Sept 2025` or `2025-09-27`. */
export const ukFormats: Check = {
  name: 'UK formats',
  run: (r) => {
    const bad = [
      ...(r.match(/£[\d,]+\.00(?![0-9])/g) ?? []),
      ...(r.match(/\d %/g) ?? []),
      ...(r.match(
        new RegExp(`\\b\\d{1,2} (Sept|${FULL_MONTHS.filter((m) => m !== 'May').join('|')}) \\d{4}`, 'g'),
      ) ?? []),
      ...(r.match(/(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])/g) ?? []),
    ];
    return bad.length ? `is not in UK format: ${[...new Set(bad)].join(', ')}` : null;
  },
};

/** `Ask next: “…” · “…”`, if present, is the last paragraph and well-formed. */
export const followUpsWellFormed: Check = {
  name: 'follow-up suggestions well-formed',
  whole: true,
  run: (r) => {
    if (!/Ask next:/.test(r)) return null;
    const paragraphs = r.trim().split(/\n\s*\n/);
    const last = paragraphs[paragraphs.length - 1]!.trim();
    if (!last.startsWith('Ask next:')) return '"Ask next:" is not the last paragraph';
    const q = '“[^“”\\n]{1,120}”';
    if (!new RegExp(`^Ask next: ${q}( · ${q}){0,2}$`).test(last))
      return `"Ask next:" line is not of the form Ask next: “…” · “…”: ${last}`;
    return null;
  },
};

function parseDate(day: string, month: string, year: string): string | null {
  let m = MONTHS.findIndex((x) => x.toLowerCase() === month.slice(0, 3).toLowerCase());
  if (month.length > 3 && month.toLowerCase() !== 'sept')
    m = FULL_MONTHS.findIndex((x) => x.toLowerCase() === month.toLowerCase());
  if (m < 0) return null;
  return `${year}-${String(m + 1).padStart(2, '0')}-${day.padStart(2, '0')}`;
}

const DATE = String.raw`(\d{1,2}) ([A-Z][a-z]{2,8}) (\d{4})`;

/**
 * Dates and the words around them must agree with `today` and with each other: "expired on D" needs D on or
 * before today, "expires on D" on or after, "valid until D" in the past must say it lapsed (on its line); a
 * relative phrase after a date on the same line ("(in 12 days)", "34 days ago", "10 days overdue", "tomorrow")
 * must be that date's distance from today.
 */
export function selfConsistent(today: string): Check {
  return {
    name: 'dates agree with today and with each other',
    run: (r) => {
      const problems: string[] = [];
      for (const m of r.matchAll(new RegExp(`\\b(expired|lapsed|ended)(?: on)? ${DATE}`, 'g'))) {
        const d = parseDate(m[2]!, m[3]!, m[4]!);
        if (d && d > today) problems.push(`"${m[0]}" is in the future (today is ${ukDate(today)})`);
      }
      for (const m of r.matchAll(
        new RegExp(`\\b(expires|will expire|ends|will end|is due)(?: on| by)? ${DATE}`, 'g'),
      )) {
        const d = parseDate(m[2]!, m[3]!, m[4]!);
        if (d && d < today) problems.push(`"${m[0]}" is in the past (today is ${ukDate(today)})`);
      }
      for (const m of r.matchAll(new RegExp(`\\b(valid|registered|in force) until ${DATE}`, 'g'))) {
        const d = parseDate(m[2]!, m[3]!, m[4]!);
        const lineEnd = r.indexOf('\n', m.index);
        const line = r.slice(r.lastIndexOf('\n', m.index) + 1, lineEnd < 0 ? undefined : lineEnd);
        if (d && d < today && !/expired|lapsed|ended|overdue|no longer/i.test(line))
          problems.push(
            `"${m[0]}" is in the past (today is ${ukDate(today)}) but is not said to have lapsed`,
          );
      }
      for (const line of r.split('\n')) {
        const re = new RegExp(
          // the phrase is looked for ahead of each date without consuming it, so a row's second date is seen too
          `${DATE}(?=([^\\n]{0,40}?)\\b(?:in (\\d+) days?|(\\d+) days? ago|(\\d+) days? overdue|(\\d+) days? late|(tomorrow|today|yesterday)\\b))`,
          'g',
        );
        for (const m of line.matchAll(re)) {
          if (/\d{4}/.test(m[4]!)) continue; // another date comes first: the phrase belongs to it
          const d = parseDate(m[1]!, m[2]!, m[3]!);
          if (!d) continue;
          const word = { tomorrow: 1, today: 0, yesterday: -1 } as Record<string, number>;
          const ahead =
            m[5] !== undefined
              ? Number(m[5])
              : m[9] !== undefined
                ? word[m[9]]!
                : -Number(m[6] ?? m[7] ?? m[8]);
          const actual = daysBetween(today, d);
          if (actual !== ahead)
            problems.push(
              `"${m[0]}${m[4]}…": ${ukDate(d)} is ${actual >= 0 ? `in ${actual}` : `${-actual}`} days${actual < 0 ? ' ago' : ''} from ${ukDate(today)}, not ${ahead >= 0 ? `in ${ahead}` : `${-ahead} ago`}`,
            );
        }
      }
      return problems.length ? problems.join('; ') : null;
    },
  };
}

/**
 * A property spoken of by its address is named by its reference too, so the agent can act on it: the street
 * part of the first address line ("16 Clarendon Road", "Finzels Reach") brings its ref.
 */
export function namesWhatItSpeaksOf(properties: { ref: string; street: string }[]): Check {
  return {
    name: 'names the properties it speaks of',
    run: (r) => {
      const unnamed = properties.filter((p) => {
        const street = p.street.split(',').pop()!.trim();
        return r.toLowerCase().includes(street.toLowerCase()) && !refPattern(p.ref).test(r);
      });
      return unnamed.length
        ? `speaks of ${unnamed.map((p) => `"${p.street.split(',').pop()!.trim()}"`).join(', ')} without naming ${unnamed.map((p) => p.ref).join(', ')}`
        : null;
    },
  };
}

export function everyAnswer(today: string, properties: { ref: string; street: string }[] = []): Check[] {
  return [
    noEmoji,
    noFallback,
    ukFormats,
    followUpsWellFormed,
    selfConsistent(today),
    namesWhatItSpeaksOf(properties),
  ];
}

/** The reply without its closing `Ask next:` paragraph: suggesting a question is not speaking of a property. */
export function body(reply: string): string {
  return reply.replace(/\n\s*\nAsk next:[^\n]*\s*$/, '').replace(/^Ask next:[^\n]*\s*$/, '');
}

/** Runs checks; the messages of those that failed. */
export function failures(reply: string, checks: Check[]): string[] {
  return checks.map((c) => c.run(c.whole ? reply : body(reply))).filter((m): m is string => m !== null);
}
