import type { ComplianceOutcome, DealType, EpcRating, PortfolioProperty } from '@pa/contracts';
import type { z } from 'zod';
import { mentionedProperties } from './property-match.ts';

// The local provider's reading of "propose …" requests in plain words: amounts, VAT, dates, references, names
// and the property a request is about. Pure functions over the message (and the portfolio for properties), so
// that proposal-intent.ts and replies/proposals.ts only decide and answer.

/** Money in a message: "£250,000", "£1.2m", "£250k", "£120.50" → pence; null when there is none. */
const MONEY = /£\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?\s*(k|m|million|thousand)?\b/gi;

function toPence(whole: string, fraction: string | undefined, scale: string | undefined): number {
  const pounds = Number(`${whole.replace(/,/g, '')}.${fraction ?? '0'}`);
  const unit = scale?.toLowerCase();
  const factor = unit === 'k' || unit === 'thousand' ? 1_000 : unit === 'm' || unit === 'million' ? 1e6 : 1;
  return Math.round(pounds * factor * 100);
}

interface MoneyMention {
  pence: number;
  /** where the mention starts in the message */
  at: number;
  /** the words just before it, lower case (to tell "VAT £24" from "£120") */
  before: string;
}

function moneyMentions(text: string): MoneyMention[] {
  return [...text.matchAll(MONEY)].map((m) => ({
    pence: toPence(m[1]!, m[2], m[3]),
    at: m.index,
    before: text.slice(Math.max(0, m.index - 12), m.index).toLowerCase(),
  }));
}

/** The first sum of money in the message that is not the VAT, in pence. */
export function mainAmount(text: string): number | null {
  return moneyMentions(text).find((m) => !/\bvat\b[^£]*$/.test(m.before))?.pence ?? null;
}

/** Net and VAT of an amount as said: "£120 + VAT" (20 %), "£144 inc VAT", "£120, VAT £24", or no VAT. */
export function netAndVat(text: string): { net: number; vat: number; vatSaid: boolean } | null {
  const amount = mainAmount(text);
  if (amount === null) return null;
  const explicit = moneyMentions(text).find((m) => /\bvat\b[^£]*$/.test(m.before));
  if (explicit) return { net: amount, vat: explicit.pence, vatSaid: true };
  if (/\b(?:inc(?:l(?:uding|\.)?)?|inclusive of|with)\s+vat\b/i.test(text)) {
    const net = Math.round(amount / 1.2);
    return { net, vat: amount - net, vatSaid: true };
  }
  if (/(?:\+|\bplus|\band)\s*(?:20\s*%\s*)?vat\b/i.test(text))
    return { net: amount, vat: Math.round(amount * 0.2), vatSaid: true };
  return {
    net: amount,
    vat: 0,
    vatSaid: /\b(no|zero[- ]rated|without|exempt from)\s+vat\b|\bvat[- ]free\b/i.test(text),
  };
}

// ---- dates ----------------------------------------------------------------------------------------------------

const MONTHS = 'january february march april may june july august september october november december'.split(
  ' ',
);

function addDays(isoDate: string, days: number): string {
  return new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function validDate(y: number, m: number, d: number): string | null {
  const iso = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  const back = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(back.getTime()) && back.getUTCDate() === d ? iso : null;
}

/**
 * The date a phrase names, judged from `today` (YYYY-MM-DD, London): today, yesterday, "3 days ago",
 * 2026-06-12, 12/06/2026, "12 June 2026", "12th June" (this year). Null when it names none.
 */
export function dateIn(text: string, today: string): string | null {
  const lower = text.toLowerCase();
  const iso = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(lower);
  if (iso) return validDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const uk = /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/.exec(lower);
  if (uk) return validDate(Number(uk[3]), Number(uk[2]), Number(uk[1]));
  const named = new RegExp(
    `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(${MONTHS.map((m) => `${m.slice(0, 3)}(?:${m.slice(3)})?`).join('|')})\\.?(?:\\s+(\\d{4}))?\\b`,
  ).exec(lower);
  if (named) {
    const month = MONTHS.findIndex((m) => m.startsWith(named[2]!.slice(0, 3))) + 1;
    const year = named[3] ? Number(named[3]) : Number(today.slice(0, 4));
    return validDate(year, month, Number(named[1]));
  }
  if (/\btoday\b|\bthis morning\b|\bthis afternoon\b/.test(lower)) return today;
  if (/\byesterday\b/.test(lower)) return addDays(today, -1);
  const ago = /\b(\d{1,3}) days? ago\b/.exec(lower);
  if (ago) return addDays(today, -Number(ago[1]));
  return null;
}

// ---- references, names, details -------------------------------------------------------------------------------

const REFERENCE =
  /\b(?:ref(?:erence)?|invoice|certificate|cert)\.?(?:\s+(?:no\.?|number))?\s*[:#]?\s*((?=[A-Z0-9/-]*\d)[A-Z0-9][A-Z0-9/-]{1,49})\b/i;

/** "ref GS-12345", "reference: INV/2231", "invoice no. 4471" → the reference itself. */
export function referenceIn(text: string): string | null {
  return REFERENCE.exec(text)?.[1] ?? null;
}

/** The message without its reference, so that a reference is never taken for a property. */
export function withoutReference(text: string): string {
  return text.replace(REFERENCE, ' ');
}

// A name as people write one: capitalised words, with "of", "and", "&" between them ("Acme Plumbing Ltd").
const NAME = String.raw`([A-Z][\w'’&.-]*(?:\s+(?:[A-Z&][\w'’&.-]*|of|and|&))*)`;

function nameAfter(text: string, words: string): string | null {
  const m = new RegExp(String.raw`\b(?:${words})\s+${NAME}`).exec(text);
  const name = m?.[1]?.replace(/[.,;:]+$/, '').trim();
  // a property reference is not a name
  return name && !/^[A-Z]{3}-\d{3}$/.test(name) ? name.slice(0, 200) : null;
}

/** Who was paid ("paid to Acme Plumbing") or who paid ("from J. Smith"). */
export function counterpartyIn(text: string, direction: 'income' | 'expense'): string | null {
  return direction === 'expense'
    ? nameAfter(text, 'paid to|payee|to')
    : nameAfter(text, 'paid by|payer|received from|from');
}

/** The other side of a deal: "from Acme Estates", "with Jones & Co", "vendor …", "buyer …". */
export function dealCounterpartyIn(text: string): string | null {
  return nameAfter(text, 'from|with|vendor|vendors|buyer|buyers|seller|sellers|lender|landlord|counterparty');
}

/** The contractor of a certificate: "by Acme Gas Ltd" (a company) or "by John Smith". */
export function contractorIn(text: string): { name?: string; company?: string } | null {
  const by = nameAfter(text, 'by');
  if (!by) return null;
  return /\b(ltd|limited|plc|llp|services|gas|electrical|electrics|plumbing|heating|& co|group)\b/i.test(by)
    ? { company: by }
    : { name: by };
}

export function outcomeIn(lower: string): z.infer<typeof ComplianceOutcome> | null {
  if (/\bunsatisfactory\b/.test(lower)) return 'unsatisfactory';
  if (/\bsatisfactory\b/.test(lower)) return 'satisfactory';
  if (/\bfail(ed|s)?\b/.test(lower)) return 'fail';
  if (/\bpass(ed|es)?\b/.test(lower)) return 'pass';
  return null;
}

export function ratingIn(text: string): z.infer<typeof EpcRating> | null {
  const m = /\b(?:rating|rated|band|grade)\s+(?:of\s+)?([A-G])\b/i.exec(text);
  return m ? (m[1]!.toUpperCase() as z.infer<typeof EpcRating>) : null;
}

/** The expiry a message states: "expires on 1 June 2027", "valid until 2027-06-01". */
export function expiryIn(text: string, today: string): string | null {
  const m = /\b(?:expires?|expiring|expiry|valid (?:until|till|to)|runs (?:until|to))\b(.{0,40})/i.exec(text);
  return m ? dateIn(m[1]!, today) : null;
}

const DEAL_TYPES: [z.infer<typeof DealType>, RegExp][] = [
  ['refinance', /\b(refinanc\w*|remortgag\w*)\b/],
  ['management_instruction', /\bmanagement( instruction)?\b|\binstruct(ion)? to manage\b/],
  ['disposal', /\b(dispos(e|al)|sell|sale|selling)\b/],
  ['letting', /\b(let|letting|to rent out|rent out)\b/],
  ['acquisition', /\b(acqui\w*|buy|buying|purchas\w*)\b/],
];

export function dealTypeIn(lower: string): z.infer<typeof DealType> {
  for (const [type, re] of DEAL_TYPES) if (re.test(lower)) return type;
  return 'acquisition';
}

/** How a deal's title starts: "Acquire 14 Oak Street". */
export const TITLE_VERB: Record<z.infer<typeof DealType>, string> = {
  acquisition: 'Acquire',
  disposal: 'Sell',
  letting: 'Let',
  management_instruction: 'Manage',
  refinance: 'Refinance',
};

const STOP = String.raw`(?=\s+(?:for|at|with|from|valued|worth|priced|by|on|in|to|ref)\b|\s*[,.;!?(]|\s+£|$)`;

/** What a deal is about, as the message names it: "to acquire 14 Oak Street for …" → "14 Oak Street". */
export function dealSubjectIn(text: string): string | null {
  const patterns = [
    String.raw`\b(?:acquire|buy|purchase|sell|dispose of|let|rent out|refinance|remortgage|manage)\s+(?:the\s+)?(.+?)${STOP}`,
    String.raw`\b(?:acquisition|purchase|disposal|sale|letting|refinanc(?:e|ing)|remortgage|management)\s+of\s+(?:the\s+)?(.+?)${STOP}`,
    String.raw`\bdeal\s+(?:for|on|at|about)\s+(?:the\s+)?(.+?)${STOP}`,
  ];
  for (const p of patterns) {
    const m = new RegExp(p, 'i').exec(text);
    const subject = m?.[1]?.trim();
    if (subject && /[a-z0-9]/i.test(subject) && !/^(a|an|it|this|that|them)$/i.test(subject))
      return titleCase(subject).slice(0, 150);
  }
  return null;
}

function titleCase(phrase: string): string {
  return phrase
    .split(/\s+/)
    .map((w) => (/^[a-z]/.test(w) && w.length > 2 ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(' ');
}

// ---- the property -----------------------------------------------------------------------------------------------

export type PropertyMatch =
  | { kind: 'found'; property: PortfolioProperty }
  | { kind: 'unknown'; said: string }
  | { kind: 'ambiguous'; matches: PortfolioProperty[] }
  | { kind: 'none' };

function compactPostcode(p: string): string {
  return p.replace(/\s+/g, '').toUpperCase();
}

/** The portfolio property a request names by reference, postcode or street; what it said when none matches. */
export function propertyIn(text: string, properties: PortfolioProperty[]): PropertyMatch {
  const words = withoutReference(text);
  const ref = /\b([A-Za-z]{3}-\d{3})\b/.exec(words);
  if (ref) {
    const wanted = ref[1]!.toUpperCase();
    const property = properties.find((p) => p.ref.toUpperCase() === wanted);
    return property ? { kind: 'found', property } : { kind: 'unknown', said: wanted };
  }
  const postcode = /\b([A-Za-z]{1,2}\d[A-Za-z\d]?)\s*(\d[A-Za-z]{2})\b/.exec(words);
  if (postcode) {
    const wanted = `${postcode[1]} ${postcode[2]}`.toUpperCase();
    const property = properties.find((p) => compactPostcode(p.address.postcode) === compactPostcode(wanted));
    return property ? { kind: 'found', property } : { kind: 'unknown', said: wanted };
  }
  const mentioned = mentionedProperties(words, properties);
  if (mentioned.length === 1) return { kind: 'found', property: mentioned[0]! };
  if (mentioned.length > 1) return { kind: 'ambiguous', matches: mentioned };
  return { kind: 'none' };
}
