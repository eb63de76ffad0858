import type { ComplianceType, EmailActivity } from '@pa/contracts';

type EmailCategory = EmailActivity['category'];
import { EMAIL_ACTIVITY_HOURS } from '@pa/contracts';

// What a property manager is asking, from the words alone (pure: no data, no clock). The answer is then read
// and written by platform-reply.ts; questions that name no intent fall through to the conversation rules.

export type StatusFilter = 'expired' | 'expiring' | 'missing';

/** A period ahead of today: N days, to the end of this week / month / year. */
export type Window = { kind: 'days'; days: number } | { kind: 'week' } | { kind: 'month' } | { kind: 'year' };

export type Target =
  { by: 'id'; id: number } | { by: 'ref'; ref: string } | { by: 'postcode'; postcode: string };

export type Intent =
  | { kind: 'read-only' }
  | { kind: 'briefing' }
  | { kind: 'emails'; hours: number; category: EmailCategory | null }
  | {
      kind: 'deals';
      status: 'open' | 'won' | 'lost' | 'all';
      due: 'overdue' | Window | null;
      /** won and lost only */
      closed: boolean;
    }
  | { kind: 'property'; target: Target; focus: ComplianceType | null }
  | { kind: 'compliance'; type: ComplianceType | null; status: StatusFilter | null; window: Window | null }
  | { kind: 'epc-below-e' }
  | { kind: 'arrears' }
  | { kind: 'tenancies'; window: Window | null; notice: boolean }
  | { kind: 'voids' }
  | { kind: 'rent-roll' }
  | { kind: 'rent-ranking'; order: 'highest' | 'lowest' }
  | { kind: 'periodic' }
  | { kind: 'hmos' }
  | { kind: 'overview' }
  | { kind: 'lookup'; focus: ComplianceType | null; place: string | null };

const TYPE_PATTERNS: [ComplianceType, RegExp][] = [
  ['gas_safety', /\b(gas( safety)?|cp12s?|boilers?)\b/],
  ['eicr', /\b(eicrs?|electrical( safety| installation)?|electrics?)\b/],
  ['epc', /\b(epcs?|energy performance|energy certificates?|energy ratings?)\b/],
  ['hmo_licence', /\bhmo licen[cs]es?\b|\blicen[cs]es?\b|\blicensing\b/],
  ['smoke_co_alarms', /\b(smoke|carbon monoxide|co alarms?|alarms?)\b/],
  ['legionella_risk_assessment', /\blegionella\b/],
  ['fire_risk_assessment', /\bfire risk\b|\bfras?\b|\bfire safety\b/],
  ['deposit_protection', /\bdeposits?\b/],
  ['right_to_rent', /\bright to rent\b/],
  ['pat', /\bpat\b|\bportable appliance/],
];

export const PROPERTY_WORDS =
  /\b(portfolio|propert(y|ies)|complian\w*|gas|eicr|epc|certificate\w*|deals?|email\w*|tenan\w*|rent|arrears|briefing|landlord|hmo|licen[cs]e\w*|voids?|vacan\w*|[A-Z]{3}-\d{3})\b/i;

export function complianceType(lower: string): ComplianceType | null {
  for (const [type, re] of TYPE_PATTERNS) if (re.test(lower)) return type;
  return null;
}

function statusFilter(lower: string): StatusFilter | null {
  const expired = /\b(expired|overdue|out of date|lapsed|invalid|not valid)\b/.test(lower);
  const soon = /\b(expir(ing|es|e|y)|due|coming up|renew\w*|upcoming|run out|running out)\b/.test(lower);
  // "expired or expiring soon": everything that needs attention
  if (expired && soon && /\b(or|and)\b/.test(lower)) return null;
  if (/\b(ha(ve|s) no|without|do(es)?n'?t have|lack\w*|no record)\b/.test(lower)) return 'missing';
  if (/\b(expired|overdue|out of date|lapsed|invalid|not valid|expir(ed|y) already)\b/.test(lower))
    return 'expired';
  if (/\b(expir(ing|es|e|y)|due|coming up|renew\w*|upcoming|run out|running out)\b/.test(lower))
    return 'expiring';
  if (/\b(missing|no record|without|lacking)\b/.test(lower)) return 'missing';
  return null;
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  six: 6,
  twelve: 12,
  thirty: 30,
  sixty: 60,
  ninety: 90,
};

/** "next 30 days", "within 2 months", "this month", "this year", "this week", "the next fortnight". */
export function windowIn(lower: string): Window | null {
  const m =
    /\b(?:next|within|in|coming|over the next)\s+(?:the\s+)?(?:next\s+)?(\d{1,3}|a|one|two|three|four|six|twelve|thirty|sixty|ninety)\s*(days?|weeks?|months?)\b/.exec(
      lower,
    );
  if (m) {
    const n = /^\d+$/.test(m[1]!) ? Number(m[1]) : NUMBER_WORDS[m[1]!]!;
    const unit = m[2]!;
    return { kind: 'days', days: unit.startsWith('week') ? n * 7 : unit.startsWith('month') ? n * 30 : n };
  }
  if (/\bfortnight\b/.test(lower)) return { kind: 'days', days: 14 };
  if (
    /\b(this|current|the rest of the) (calendar )?year\b|\bbefore (the )?(end of the year|christmas|new year)\b|\bby (the )?end of (the )?year\b/.test(
      lower,
    )
  )
    return { kind: 'year' };
  if (/\b(this|current) month\b|\bby (the )?end of (the )?month\b/.test(lower)) return { kind: 'month' };
  if (/\b(this|current|next) week\b|\bnext 7 days\b/.test(lower)) return { kind: 'week' };
  if (/\bsoon\b/.test(lower)) return null;
  return null;
}

function emailHours(lower: string): number {
  const m = /\b(?:last|past|previous)\s+(\d{1,3})\s*(hours?|hrs?|h|days?)\b/.exec(lower);
  if (m) {
    const n = Number(m[1]) * (m[2]!.startsWith('d') ? 24 : 1);
    return Math.min(EMAIL_ACTIVITY_HOURS.max, Math.max(EMAIL_ACTIVITY_HOURS.min, n));
  }
  if (/\b(?:last|past) (?:two|2) days\b/.test(lower)) return 48;
  if (/\b(this|last|past) week\b/.test(lower)) return 168;
  return 24;
}

export function explicitTarget(text: string): Target | null {
  const ref = /\b([A-Za-z]{3}-\d{3})\b/.exec(text);
  if (ref) return { by: 'ref', ref: ref[1]!.toUpperCase() };
  const postcode = /\b([A-Za-z]{1,2}\d[A-Za-z\d]?)\s*(\d[A-Za-z]{2})\b/.exec(text);
  if (postcode) return { by: 'postcode', postcode: `${postcode[1]} ${postcode[2]}`.toUpperCase() };
  const id =
    /\bpropert(?:y|ies)\s*(?:id\s*)?(?:#|no\.?\s*|number\s*)?(\d{1,9})\b/i.exec(text) ??
    /#(\d{1,9})\b/.exec(text);
  if (id) return { by: 'id', id: Number(id[1]) };
  return null;
}

/**
 * The place a question names after "tell me about", "summarise", "properties in"…: "14 Oak Street", "Leeds".
 * Null when none is named, or it is a word like "my portfolio".
 */
export function placeIn(text: string): string | null {
  const m =
    /\b(?:tell me about|what about|how is|how's|summari[sz]e|summary (?:of|for)|overview (?:of|for)|show me|look up|details (?:of|for)|propert(?:y|ies) (?:in|at|on)|anything (?:in|at|on)|attention (?:at|in|on)|happening (?:at|in|on)|(?:^|\s)(?:in|at|on))\s+(.+?)\s*(?:doing|going)?\s*[?.!]*$/i.exec(
      text.trim(),
    );
  if (!m) return null;
  const place = m[1]!
    .replace(/^(?:(?:in|at|on|about)\s+)?(?:the|my|our)?\s*/i, '')
    .replace(/[?.!,]+$/, '')
    .trim();
  if (!place || place.length > 60) return null;
  if (
    /^(portfolio|properties|property|everything|all|it|them|compliance|deals?|emails?|arrears|today|this week|this month|this year|the portfolio|my portfolio|our portfolio|the moment|general|total|you)$/i.test(
      place,
    )
  )
    return null;
  return place;
}

const EMAIL_CATEGORIES: [EmailCategory, RegExp][] = [
  ['council', /\b(council|local authority)\b/],
  ['arrears', /\b(arrears|unpaid|owed)\b/],
  ['maintenance', /\b(maintenance|repairs?|leaks?|boiler)\b/],
  ['viewing', /\bviewings?\b/],
  ['offer', /\boffers?\b/],
  ['invoice', /\binvoices?\b/],
  ['legal', /\b(legal|solicitors?)\b/],
];

function emailCategory(lower: string): EmailCategory | null {
  for (const [category, re] of EMAIL_CATEGORIES) if (re.test(lower)) return category;
  return null;
}

function dealsIntent(lower: string): Intent {
  const status = /\ball deals\b/.test(lower)
    ? 'all'
    : /\b(won|completed|closed)\b/.test(lower)
      ? 'won'
      : /\blost\b/.test(lower)
        ? 'lost'
        : 'open';
  const closed = /\bwon\b/.test(lower) && /\blost\b/.test(lower);
  const due = /\b(overdue|late|missed|behind)\b/.test(lower) ? 'overdue' : windowIn(lower);
  return { kind: 'deals', status: closed ? 'all' : status, due, closed };
}

export function parseIntent(text: string): Intent | null {
  const lower = text.toLowerCase().replace(/[’‘]/g, "'");
  if (/^\s*(please\s+)?(create|add|propose|record|log|register|update|delete|remove|mark|book)\b/.test(lower))
    return { kind: 'read-only' };
  if (
    /\b(brief(ing)?|daily (summary|update|digest|report)|morning (summary|update|report)|what('?s| is) (on|happening) today|start (of|to) (my|the) day|needs? attention today|what should i (do|look at|focus on))\b/.test(
      lower,
    )
  )
    return { kind: 'briefing' };
  const category = emailCategory(lower);
  if (
    (/\b(e-?mails?|inbox|mailbox(es)?|messages?|correspondence|enquir(y|ies)|reply|replies|respond|response)\b/.test(
      lower,
    ) &&
      !/\b(deals?|complian\w*)\b/.test(lower)) ||
    /\b(sent|written|wrote|emailed) (to )?(us|me)\b|\bheard from\b/.test(lower)
  )
    return { kind: 'emails', hours: emailHours(lower), category };
  if (/\b(deals?|pipeline|next actions?|acquisitions?|disposals?|refinanc\w*|offers? accepted)\b/.test(lower))
    return dealsIntent(lower);

  const type = complianceType(lower);
  const target = explicitTarget(text);
  if (target) return { kind: 'property', target, focus: type };

  if (
    type === 'epc' &&
    /\b(below|under|worse than|lower than|less than)\s+(an?\s+)?(e|band e|rating e)\b|\b(f|g)\b|\bband(s|ed)? (f|g)\b|\bpoor(ly)? rat|\bmees\b|\bsub-?standard\b/.test(
      lower,
    )
  )
    return { kind: 'epc-below-e' };
  if (
    /\b(arrears|owes?|owing|owed|unpaid|behind (on|with) (the |their )?rent|late (with )?rent|debt|debtors?)\b/.test(
      lower,
    )
  )
    return { kind: 'arrears' };
  if (
    /\bnotice\b/.test(lower) ||
    (/\b(tenanc(y|ies)|leases?|tenants?|lets?)\b/.test(lower) &&
      /\b(end|ends|ending|expir\w*|finish\w*|run(ning)? out|renew\w*|move out|moving out|leav\w*|coming to an end)\b/.test(
        lower,
      ))
  )
    return { kind: 'tenancies', window: windowIn(lower), notice: /\bnotice\b/.test(lower) };
  if (
    /\b(voids?|vacan(t|cy|cies)|empty|unlet|not let|to let|available to let|unoccupied|occupancy)\b/.test(
      lower,
    )
  )
    return { kind: 'voids' };
  if (/\bhmos\b|\bwhich\b.*\b(are|is an?) hmo\b|\bhouses? in multiple occupation\b/.test(lower) && !type)
    return { kind: 'hmos' };
  if (/\bperiodic\b|\brolling\b|\bmonth to month\b/.test(lower)) return { kind: 'periodic' };
  if (
    /\b(highest|most expensive|biggest|top|largest|lowest|cheapest|smallest)\b.*\brents?\b|\brents?\b.*\b(highest|lowest)\b/.test(
      lower,
    )
  )
    return {
      kind: 'rent-ranking',
      order: /\b(lowest|cheapest|smallest)\b/.test(lower) ? 'lowest' : 'highest',
    };
  if (
    /\b(rent roll|rental income|income|how much rent|total rent|monthly rent|rents?\b.*\b(collect|bring|make|earn|total)|revenue|turnover)\b/.test(
      lower,
    )
  )
    return { kind: 'rent-roll' };

  const status = statusFilter(lower);
  if (
    type ||
    /\b(complian\w*|certificates?|certs?|safety|inspections?|checks?)\b/.test(lower) ||
    (status && status !== 'expiring')
  )
    return {
      kind: 'compliance',
      type,
      status,
      window: status === 'expired' || status === 'missing' ? null : windowIn(lower),
    };
  if (status === 'expiring') return { kind: 'compliance', type, status, window: windowIn(lower) };

  const place = placeIn(text);
  if (
    /\b(overview|portfolio|summary|summari[sz]e|how many|how big|headline|figures|numbers|kpis?)\b/.test(
      lower,
    )
  ) {
    return place ? { kind: 'lookup', focus: null, place } : { kind: 'overview' };
  }
  if (
    /\b(needs? attention|what('?s| is) (urgent|outstanding)|anything urgent|any problems|issues)\b/.test(
      lower,
    ) &&
    !place
  )
    return { kind: 'briefing' };
  if (
    place ||
    /\b(attention|status|tell me about|details?|show me|look up|what about|how is)\b/.test(lower) ||
    PROPERTY_WORDS.test(text)
  )
    return { kind: 'lookup', focus: type, place };
  return null;
}
