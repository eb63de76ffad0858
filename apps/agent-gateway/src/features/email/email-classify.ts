import type { EmailActivity } from '@pa/contracts';

// The gateway's own reading of a message it fetched itself: the platform classifies its mail when it ingests it,
// and the worker's own mail gets the same two judgements here, from the envelope and the snippet only (no body
// is kept). Deliberately plain keyword rules, in the order a letting agent would file a message; they are run
// when the mail is read, so a better rule applies to mail already stored.

type EmailCategory = EmailActivity['category'];

const CATEGORIES: [EmailCategory, RegExp][] = [
  ['council', /\b(council|local authority|borough|licensing team|selective licen[cs]\w*)\b/],
  [
    'compliance',
    /\b(cp12|gas safe(ty)?|eicr|epc|energy performance|certificate|legionella|fire risk|smoke alarms?|carbon monoxide|deposit protection|right to rent|pat test\w*|inspection)\b/,
  ],
  ['arrears', /\b(arrears|unpaid rent|rent (is )?(late|overdue|unpaid)|missed (rent|payment)|owed?)\b/],
  ['legal', /\b(solicitors?|legal|section (8|21)|possession|court|tribunal|conveyanc\w*)\b/],
  ['invoice', /\b(invoices?|receipt|remittance|statement of account|payment due)\b/],
  ['offer', /\b(offers?|bid|asking price)\b/],
  ['viewing', /\b(viewings?|view the (property|flat|house)|book a visit)\b/],
  [
    'maintenance',
    /\b(repairs?|leak\w*|boiler|broken|damp|mould|heating|hot water|plumb\w*|electrician|maintenance|fault\w*|blocked)\b/,
  ],
];

export function classifyEmail(subject: string, snippet: string): EmailCategory {
  const text = `${subject} ${snippet}`.toLowerCase();
  for (const [category, re] of CATEGORIES) if (re.test(text)) return category;
  return 'other';
}

// Machines do not expect an answer; a person asking something does.
const AUTOMATED_SENDER =
  /^(no-?reply|do-?not-?reply|donotreply|mailer-daemon|postmaster|bounces?|notifications?|alerts?)\b/i;
const ASKS =
  /\?|\b(please (?!find|see)|could you|can you|would you|will you|let (me|us) know|confirm|get back to|respond|reply|call me|urgent|asap|when (can|will|could)|are you able)\b/i;

export function needsReply(fromAddress: string, subject: string, snippet: string): boolean {
  if (AUTOMATED_SENDER.test(fromAddress)) return false;
  return ASKS.test(`${subject} ${snippet}`);
}
