import { type ComplianceType, EMAIL_ACTIVITY_HOURS, type EmailActivity } from '@pa/contracts';

// What a property manager is asking, from the words alone (pure: no data, no clock). The answer is then read
// and written by platform-reply.ts; questions that name no intent fall through to the conversation rules.

type EmailCategory = EmailActivity['category'];

export type StatusFilter = 'expired' | 'expiring' | 'missing';

/** A period ahead of today: N days, to the end of this week / month / year. */
export type Window =
  | { kind: 'days'; days: number }
  | { kind: 'week' }
  | { kind: 'month' }
  | { kind: 'year' }
  /** the calendar month before today's: for what has already expired */
  | { kind: 'last-month' };

/** The window an attention question names: today, this week (the default), or the next N days. */
export type AttentionAsk = { kind: 'today' } | { kind: 'week' } | { kind: 'days'; days: number };

export type Target =
  { by: 'id'; id: number } | { by: 'ref'; ref: string } | { by: 'postcode'; postcode: string };

export type Intent =
  | { kind: 'read-only' }
  | { kind: 'briefing' }
  /** what needs the property manager in a window: today, this week, the next N days */
  | { kind: 'attention'; window: AttentionAsk }
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
  | { kind: 'lookup'; focus: ComplianceType | null; place: string | null }
  /** what the agency's documents say: the stopcock, the landlord's limit, the licence conditions */
  | { kind: 'knowledge' };

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

// Things the platform's records do not hold and a letting agent's notes do. Kept to phrases that mean nothing
// else: "boiler" alone is the gas certificate, "licence" alone its expiry.
export const KNOWLEDGE_WORDS =
  /\b(stop ?cocks?|stop ?taps?|water (shut-?off|valve|main)|fuse ?box(es)?|consumer units?|(gas|electricity|water) meters?|key ?safes?|lock ?box(es)?|access (arrangements?|codes?|details|instructions)|(alarm|entry|door|gate) codes?|parking|bin (days?|collections?)|repair limits?|spend(ing)? limits?|authori[sz]ation limits?|landlord'?s? (instructions?|preferences?|wishes|rules|limits?|approval)|licen[cs]e conditions?|conditions (of|on|in|for) (the |its |their )?(hmo |selective )?licen[cs]es?|selective licensing|(our|the agency'?s?) (procedures?|process|policy|policies)|procedure for|contractors?|plumbers?|electricians?|locksmiths?|roofers?|handyman|gas engineers?|heating engineers?|who (services|maintains|fixes|repairs|looks after)|serviced by|who (do|should) (we|i) call|(make|model) of (the )?boiler|boiler (make|model|engineer|servic\w*|company))\b/;

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
  if (/\blast month\b|\bprevious month\b/.test(lower)) return { kind: 'last-month' };
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
  // "in the next 30 days", "on Monday": a time, not a place
  if (
    /^(?:the\s+)?(?:next|coming|last|past|following)\b.*\b(?:days?|weeks?|months?|fortnight|year)$|^(?:this|next|the)\s+(?:week|month|year|morning|afternoon|weekend)$|^(?:mon|tues|wednes|thurs|fri|satur|sun)day$/i.test(
      place,
    )
  )
    return null;
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

/** A window ahead for what falls due; for what has expired, only "last month" means anything. */
function complianceWindow(lower: string, status: StatusFilter | null): Window | null {
  const window = windowIn(lower);
  if (status === 'missing') return null;
  if (status === 'expired') return window?.kind === 'last-month' ? window : null;
  return window?.kind === 'last-month' ? null : window;
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

const ATTENTION_WORDS =
  /\b(needs? (my |our |your )?attention|what('?s| is) (urgent|outstanding|pressing)|anything (urgent|pressing|outstanding)|urgent|any problems|issues|what should (i|we) (do|look at|focus on|deal with|prioriti[sz]e|worry about)|what do (i|we) (need|have) to (do|deal with|look at)|to-?do( list)?|needs? (me|doing)|on my plate)\b/;

/** The window of an attention question: "today", "this week" (the default), "the next 30 days", "this month". */
export function attentionAsk(lower: string): AttentionAsk {
  if (/\b(today|this morning|this afternoon|right now|now)\b/.test(lower)) return { kind: 'today' };
  const window = windowIn(lower);
  if (window?.kind === 'days')
    return window.days === 7 ? { kind: 'week' } : { kind: 'days', days: window.days };
  if (window?.kind === 'month') return { kind: 'days', days: 30 };
  return { kind: 'week' };
}

/** What the rules read from a message, worked out once. */
export interface Question {
  /** as written: references and postcodes keep their case */
  text: string;
  /** lower case, with curly apostrophes made straight */
  lower: string;
  /** the compliance type it names, if any */
  type: ComplianceType | null;
}

export function asQuestion(text: string): Question {
  const lower = text.toLowerCase().replace(/[’‘]/g, "'");
  return { text, lower, type: complianceType(lower) };
}

/** One way of asking: its intent when the message asks it that way, else null. */
export interface IntentRule {
  name: string;
  /** why it is tried before the rules after it: the messages both would take, and why this one is right */
  before: string;
  match(q: Question): Intent | null;
}

/**
 * The ways of asking, in the order they are tried: the first that matches decides. Many messages would match
 * several (most carry words of more than one kind), so the order is part of the meaning; each rule says why it
 * comes where it does, and test/local-intent-precedence.test.ts holds a message for each such pair.
 */
export const INTENT_RULES: readonly IntentRule[] = [
  {
    name: 'read-only',
    before:
      'A request to change something carries the words the reads look for ("add a deal for MAN-004"); it is ' +
      'told that nothing is changed from here, never answered as a question.',
    match: ({ lower }) =>
      /^\s*(please\s+)?(create|add|propose|record|log|register|update|delete|remove|mark|book)\b/.test(lower)
        ? { kind: 'read-only' }
        : null,
  },
  {
    name: 'briefing',
    before:
      "The day's briefing covers everything at once: the email, deal or compliance words the request carries " +
      '("my morning briefing on emails") must not narrow it.',
    match: ({ lower }) =>
      /\b(brief(ing)?|daily (summary|update|digest|report)|morning (summary|update|report)|what('?s| is) (on|happening) today|start (of|to) (my|the) day)\b/.test(
        lower,
      )
        ? { kind: 'briefing' }
        : null,
  },
  {
    name: 'emails',
    before:
      'Mail is about everything else: "who has emailed us about the acquisition?" is a question about mail, ' +
      'not the deal (mail merely mentioning deals or compliance is left to those rules).',
    match: ({ lower }) => {
      const category = emailCategory(lower);
      if (
        (/\b(e-?mails?|inbox|mailbox(es)?|messages?|correspondence|enquir(y|ies)|reply|replies|respond|response)\b/.test(
          lower,
        ) &&
          !/\b(deals?|complian\w*)\b/.test(lower)) ||
        /\b(sent|written|wrote|emailed) (to )?(us|me)\b|\bheard from\b/.test(lower)
      )
        return { kind: 'emails', hours: emailHours(lower), category };
      return null;
    },
  },
  {
    name: 'knowledge',
    before:
      'What only the agency’s documents know outranks the platform’s records it names: "who services the ' +
      'boiler at MAN-003?" asks for the engineer, not the gas certificate; "the HMO licence conditions at ' +
      'LON-006" are the licence’s text, not its expiry.',
    match: ({ lower }) => (KNOWLEDGE_WORDS.test(lower) ? { kind: 'knowledge' } : null),
  },
  {
    name: 'deals',
    before:
      'A deal names its property: "the next action on the MAN-004 deal" is about the deal, not the property.',
    match: ({ lower }) =>
      /\b(deals?|pipeline|next actions?|acquisitions?|disposals?|refinanc\w*|offers? accepted)\b/.test(lower)
        ? dealsIntent(lower)
        : null,
  },
  {
    name: 'property',
    before:
      'A reference, postcode or property id makes that property the subject: "is MAN-004 in arrears?" is ' +
      'answered for MAN-004, whatever it asks about it.',
    match: ({ text, type }) => {
      const target = explicitTarget(text);
      return target ? { kind: 'property', target, focus: type } : null;
    },
  },
  {
    name: 'epc-below-e',
    before:
      'EPCs below E have an answer of their own (the letting minimum), which the EPC compliance list is not: ' +
      '"which EPCs are below E?".',
    match: ({ lower, type }) =>
      type === 'epc' &&
      /\b(below|under|worse than|lower than|less than)\s+(an?\s+)?(e|band e|rating e)\b|\b(f|g)\b|\bband(s|ed)? (f|g)\b|\bpoor(ly)? rat|\bmees\b|\bsub-?standard\b/.test(
        lower,
      )
        ? { kind: 'epc-below-e' }
        : null,
  },
  {
    name: 'arrears',
    before: 'Rent owed is not rent collected: "how much rent is owed?" is arrears, not the rent roll.',
    match: ({ lower }) =>
      /\b(arrears|owes?|owing|owed|unpaid|behind (on|with) (the |their )?rent|late (with )?rent|debt|debtors?)\b/.test(
        lower,
      )
        ? { kind: 'arrears' }
        : null,
  },
  {
    name: 'tenancies',
    before:
      'Tenancies expire and end too: "which tenancies expire in the next 60 days?" is about tenancies, not ' +
      'certificates falling due.',
    match: ({ lower }) =>
      /\bnotice\b/.test(lower) ||
      (/\b(tenanc(y|ies)|leases?|tenants?|lets?)\b/.test(lower) &&
        /\b(end|ends|ending|expir\w*|finish\w*|run(ning)? out|renew\w*|move out|moving out|leav\w*|coming to an end)\b/.test(
          lower,
        ))
        ? { kind: 'tenancies', window: windowIn(lower), notice: /\bnotice\b/.test(lower) }
        : null,
  },
  {
    name: 'voids',
    before: 'An empty property is a void whatever it is: "which HMOs are vacant?" asks for voids.',
    match: ({ lower }) =>
      /\b(voids?|vacan(t|cy|cies)|empty|unlet|not let|to let|available to let|unoccupied|occupancy)\b/.test(
        lower,
      )
        ? { kind: 'voids' }
        : null,
  },
  {
    name: 'hmos',
    before:
      'A question about the HMOs is answered with the HMO list: "which HMOs have the highest rent?" (one ' +
      'naming a licence is compliance, which this rule leaves alone).',
    match: ({ lower, type }) =>
      /\bhmos\b|\bwhich\b.*\b(are|is an?) hmo\b|\bhouses? in multiple occupation\b/.test(lower) && !type
        ? { kind: 'hmos' }
        : null,
  },
  {
    name: 'periodic',
    before:
      'Rolling tenancies are the subject of "what is the total rent from rolling tenancies?", not the rent roll.',
    match: ({ lower }) =>
      /\bperiodic\b|\brolling\b|\bmonth to month\b/.test(lower) ? { kind: 'periodic' } : null,
  },
  {
    name: 'rent-ranking',
    before:
      '"Which property has the highest monthly rent?" ranks the properties; "monthly rent" alone is the rent roll.',
    match: ({ lower }) =>
      /\b(highest|most expensive|biggest|top|largest|lowest|cheapest|smallest)\b.*\brents?\b|\brents?\b.*\b(highest|lowest)\b/.test(
        lower,
      )
        ? {
            kind: 'rent-ranking',
            order: /\b(lowest|cheapest|smallest)\b/.test(lower) ? 'lowest' : 'highest',
          }
        : null,
  },
  {
    name: 'rent-roll',
    before: '"What is the portfolio\'s total rental income?" asks for the rent roll, not the whole overview.',
    match: ({ lower }) =>
      /\b(rent roll|rental income|income|how much rent|total rent|monthly rent|rents?\b.*\b(collect|bring|make|earn|total)|revenue|turnover)\b/.test(
        lower,
      )
        ? { kind: 'rent-roll' }
        : null,
  },
  {
    name: 'compliance',
    before:
      'A compliance type, compliance words or an expired/missing status outrank the general words: ' +
      '"portfolio compliance summary" is compliance, not the overview.',
    match: ({ lower, type }) => {
      const status = statusFilter(lower);
      if (
        type ||
        /\b(complian\w*|certificates?|certs?|safety|inspections?|checks?)\b/.test(lower) ||
        (status && status !== 'expiring')
      )
        return { kind: 'compliance', type, status, window: complianceWindow(lower, status) };
      return null;
    },
  },
  {
    name: 'expiring',
    before:
      'Something falling due, with no type named, is still compliance: "how many things are due this month?" ' +
      "asks what falls due, not for the portfolio's figures.",
    match: ({ lower, type }) => {
      const status = statusFilter(lower);
      return status === 'expiring' ? { kind: 'compliance', type, status, window: windowIn(lower) } : null;
    },
  },
  {
    name: 'overview',
    before:
      '"How many issues are there?" asks for the figures; "issues" alone would make it the briefing. A place ' +
      'named with the overview words ("summarise Leeds") is that place\'s lookup.',
    match: ({ text, lower }) => {
      if (
        !/\b(overview|portfolio|summary|summari[sz]e|how many|how big|headline|figures|numbers|kpis?)\b/.test(
          lower,
        )
      )
        return null;
      const place = placeIn(text);
      return place ? { kind: 'lookup', focus: null, place } : { kind: 'overview' };
    },
  },
  {
    name: 'attention',
    before:
      '"What needs my attention this week?" asks for the attention list; "attention" would make it a lookup. ' +
      'With a place ("what needs attention in Leeds?") it is that place\'s lookup.',
    match: ({ text, lower }) =>
      ATTENTION_WORDS.test(lower) && !placeIn(text)
        ? { kind: 'attention', window: attentionAsk(lower) }
        : null,
  },
  {
    name: 'lookup',
    before: 'Last: any message naming a place, or with a word of the platform, that no rule above took.',
    match: ({ text, lower, type }) => {
      const place = placeIn(text);
      return place ||
        /\b(attention|status|tell me about|details?|show me|look up|what about|how is)\b/.test(lower) ||
        PROPERTY_WORDS.test(text)
        ? { kind: 'lookup', focus: type, place }
        : null;
    },
  },
];

export function parseIntent(text: string): Intent | null {
  const q = asQuestion(text);
  for (const rule of INTENT_RULES) {
    const intent = rule.match(q);
    if (intent) return intent;
  }
  return null;
}
