import type {
  ComplianceItem,
  ComplianceResponse,
  ComplianceType,
  Deal,
  DealsResponse,
  EmailActivity,
  EmailActivityResponse,
  PortfolioProperty,
  PortfolioResponse,
  Property,
} from '@pa/contracts';
import { EMAIL_ACTIVITY_HOURS } from '@pa/contracts';
import { PLATFORM_TOOL_NAMES } from '../tools/platform-tools.ts';
import {
  addressLine,
  daysBetween,
  dueWords,
  formatDate,
  formatTime,
  itemDue,
  itemProblem,
  londonDay,
  money,
  moneyShort,
  plural,
  propertyLabel,
  relativeDays,
  truncate,
  TYPE_LABELS,
  TYPE_PLURALS,
  words,
} from './local-format.ts';
import type { ToolCallRecord, Toolbox } from './provider.ts';

// The local provider's answers from real platform data. It reads ONLY through the turn's toolbox (so every
// call is recorded with the turn), deterministically: the question is matched against a few intents, the
// tools are called, and the answer is written from what they returned. A failed tool becomes a reply in words.

/** True when the worker is bound: its toolbox carries the platform read tools. */
export function hasPlatformTools(tools: Toolbox): boolean {
  return tools.definitions.some((d) => d.name === PLATFORM_TOOL_NAMES.portfolio);
}

export const BRIEFING_MAX_CHARS = 4000;
/** Pages of the portfolio walked at most (× PAGE_SIZE properties). */
const MAX_PORTFOLIO_PAGES = 20;
const PAGE_SIZE = 25;
/** Compliance reads per answer at most; more properties than this are left out with a note. */
const MAX_COMPLIANCE_CALLS = 40;
const COMPLIANCE_CONCURRENCY = 4;
const MAX_LIST_LINES = 30;

// ---- intents ------------------------------------------------------------------------------------------------

type StatusFilter = 'expired' | 'expiring' | 'missing';

type Target = { by: 'id'; id: number } | { by: 'ref'; ref: string } | { by: 'postcode'; postcode: string };

type Intent =
  | { kind: 'read-only' }
  | { kind: 'briefing' }
  | { kind: 'emails'; hours: number }
  | { kind: 'deals'; status: 'open' | 'won' | 'lost' | 'all' }
  | { kind: 'property'; target: Target; focus: ComplianceType | null }
  | {
      kind: 'compliance';
      type: ComplianceType | null;
      status: StatusFilter | null;
      withinDays: number | null;
    }
  | { kind: 'overview' }
  | { kind: 'lookup'; focus: ComplianceType | null };

const TYPE_PATTERNS: [ComplianceType, RegExp][] = [
  ['gas_safety', /\b(gas( safety)?|cp12|boiler)\b/],
  ['eicr', /\b(eicrs?|electrical( safety| installation)?|electrics?)\b/],
  ['epc', /\b(epcs?|energy performance|energy certificates?)\b/],
  ['hmo_licence', /\bhmo licen[cs]es?\b|\blicen[cs]es?\b|\blicensing\b/],
  ['smoke_co_alarms', /\b(smoke|carbon monoxide|co alarms?|alarms?)\b/],
  ['legionella_risk_assessment', /\blegionella\b/],
  ['fire_risk_assessment', /\bfire risk\b|\bfras?\b/],
  ['deposit_protection', /\bdeposits?\b/],
  ['right_to_rent', /\bright to rent\b/],
  ['pat', /\bpat\b|\bportable appliance/],
];

export const PROPERTY_WORDS =
  /\b(portfolio|propert(y|ies)|complian\w*|gas|eicr|epc|certificate\w*|deals?|email\w*|tenan\w*|rent|arrears|briefing|landlord|hmo|licen[cs]e\w*|[A-Z]{3}-\d{3})\b/i;

export function complianceType(lower: string): ComplianceType | null {
  for (const [type, re] of TYPE_PATTERNS) if (re.test(lower)) return type;
  return null;
}

function statusFilter(lower: string): StatusFilter | null {
  if (/\b(expired|overdue|out of date|lapsed|invalid|expir(ed|y) already)\b/.test(lower)) return 'expired';
  if (/\b(expir(ing|es|e)|due (soon|for renewal)|coming up|renew\w*|upcoming)\b/.test(lower))
    return 'expiring';
  if (/\b(missing|no record|without)\b/.test(lower)) return 'missing';
  return null;
}

function withinDays(lower: string): number | null {
  const m = /\b(?:next|within|in)\s+(\d{1,3})\s*(days?|weeks?|months?)\b/.exec(lower);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2]!;
  return unit.startsWith('week') ? n * 7 : unit.startsWith('month') ? n * 30 : n;
}

function emailHours(lower: string): number {
  const m = /\b(?:last|past|previous)\s+(\d{1,3})\s*(hours?|hrs?|h|days?)\b/.exec(lower);
  if (m) {
    const n = Number(m[1]) * (m[2]!.startsWith('d') ? 24 : 1);
    return Math.min(EMAIL_ACTIVITY_HOURS.max, Math.max(EMAIL_ACTIVITY_HOURS.min, n));
  }
  if (/\b(?:last|past) (?:two|2) days\b/.test(lower)) return 48;
  if (/\b(this|last|past) week\b/.test(lower)) return 168;
  if (/\b(yesterday|last day|past day)\b/.test(lower)) return 24;
  return 24;
}

function explicitTarget(text: string): Target | null {
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

export function parseIntent(text: string): Intent | null {
  const lower = text.toLowerCase();
  if (/^\s*(please\s+)?(create|add|propose|record|log|register|update|delete|remove|mark|book)\b/.test(lower))
    return { kind: 'read-only' };
  if (
    /\b(brief(ing)?|daily (summary|update|digest|report)|morning (summary|update|report)|what('?s| is) (on|happening) today|start (of|to) (my|the) day|needs? attention today)\b/.test(
      lower,
    )
  )
    return { kind: 'briefing' };
  if (/\b(e-?mails?|inbox|mailbox(es)?|messages?|correspondence|enquir(y|ies))\b/.test(lower))
    return { kind: 'emails', hours: emailHours(lower) };
  if (/\b(deals?|pipeline|next actions?|acquisitions?|disposals?|refinanc\w*)\b/.test(lower)) {
    const status = /\ball deals\b/.test(lower)
      ? 'all'
      : /\b(won|completed|closed)\b/.test(lower)
        ? 'won'
        : /\blost\b/.test(lower)
          ? 'lost'
          : 'open';
    return { kind: 'deals', status };
  }
  const type = complianceType(lower);
  const target = explicitTarget(text);
  if (target) return { kind: 'property', target, focus: type };
  const status = statusFilter(lower);
  if (type || status || /\b(complian\w*|certificates?|certs?|safety|inspections?)\b/.test(lower))
    return { kind: 'compliance', type, status, withinDays: withinDays(lower) };
  if (
    /\b(overview|portfolio|summary|occupancy|vacan\w*|voids?|rent roll|arrears|how many|income)\b/.test(lower)
  )
    return { kind: 'overview' };
  if (
    /\b(needs? attention|what('?s| is) (urgent|outstanding))\b/.test(lower) &&
    !/\b(at|for|on|in)\s+\w/.test(lower)
  )
    return { kind: 'briefing' };
  if (
    /\b(attention|status|tell me about|details?|show me|look up|what about|how is)\b/.test(lower) ||
    PROPERTY_WORDS.test(text)
  )
    return { kind: 'lookup', focus: type };
  return null;
}

// ---- reading through the toolbox ---------------------------------------------------------------------------

export class ToolFailure extends Error {
  constructor(readonly record: ToolCallRecord) {
    super(record.result);
  }
}

export interface PortfolioView {
  tenant: PortfolioResponse['tenant'];
  asOf: string;
  today: string;
  summary: PortfolioResponse['summary'];
  properties: PortfolioProperty[];
  /** set when the walk could not read every property */
  incomplete: string | null;
}

export class PlatformReader {
  private portfolioView: Promise<PortfolioView> | undefined;
  private readonly compliance = new Map<number, Promise<ComplianceResponse>>();

  constructor(
    private readonly tools: Toolbox,
    private readonly signal: AbortSignal,
  ) {}

  private async call<T>(name: string, args: Record<string, unknown>): Promise<T & { truncated?: unknown }> {
    const record = await this.tools.call(name, args, this.signal);
    this.signal.throwIfAborted();
    if (!record.ok) throw new ToolFailure(record);
    try {
      return JSON.parse(record.result) as T & { truncated?: unknown };
    } catch {
      throw new ToolFailure({
        ...record,
        ok: false,
        result: `${name} returned an answer that could not be read.`,
      });
    }
  }

  portfolio(): Promise<PortfolioView> {
    this.portfolioView ??= this.walkPortfolio();
    return this.portfolioView;
  }

  private async walkPortfolio(): Promise<PortfolioView> {
    const properties: PortfolioProperty[] = [];
    let cursor: string | null = null;
    let first: PortfolioResponse | undefined;
    let incomplete: string | null = null;
    for (let page = 0; page < MAX_PORTFOLIO_PAGES; page++) {
      const args: Record<string, unknown> = { limit: PAGE_SIZE };
      if (cursor) args.cursor = cursor;
      const res = await this.call<PortfolioResponse>(PLATFORM_TOOL_NAMES.portfolio, args);
      first ??= res;
      properties.push(...res.properties);
      if (res.truncated) {
        incomplete = 'the platform’s answer was trimmed, so some properties may be missing below';
        break;
      }
      cursor = res.next_cursor;
      if (!cursor) break;
      if (page === MAX_PORTFOLIO_PAGES - 1)
        incomplete = `only the first ${properties.length} properties were read`;
    }
    const base = first!;
    return {
      tenant: base.tenant,
      asOf: base.as_of,
      today: londonDay(base.as_of),
      summary: base.summary,
      properties,
      incomplete,
    };
  }

  property(id: number): Promise<Property> {
    return this.call<Property>(PLATFORM_TOOL_NAMES.property, { property_id: id });
  }

  complianceOf(id: number): Promise<ComplianceResponse> {
    let pending = this.compliance.get(id);
    if (!pending) {
      pending = this.call<ComplianceResponse>(PLATFORM_TOOL_NAMES.compliance, { property_id: id });
      this.compliance.set(id, pending);
    }
    return pending;
  }

  /** Compliance of many properties, a few at a time, in the given order. */
  async complianceMany(ids: number[]): Promise<ComplianceResponse[]> {
    const out: ComplianceResponse[] = new Array<ComplianceResponse>(ids.length);
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const i = next++;
        out[i] = await this.complianceOf(ids[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(COMPLIANCE_CONCURRENCY, ids.length) }, worker));
    return out;
  }

  async deals(status: string): Promise<{ deals: Deal[]; incomplete: boolean }> {
    const deals: Deal[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const args: Record<string, unknown> = { status, limit: 50 };
      if (cursor) args.cursor = cursor;
      const res = await this.call<DealsResponse>(PLATFORM_TOOL_NAMES.deals, args);
      deals.push(...res.deals);
      if (res.truncated) return { deals, incomplete: true };
      cursor = res.next_cursor;
      if (!cursor) return { deals, incomplete: false };
    }
    return { deals, incomplete: true };
  }

  emails(hours: number): Promise<EmailActivityResponse & { truncated?: unknown }> {
    return this.call<EmailActivityResponse>(PLATFORM_TOOL_NAMES.emailActivity, { hours });
  }
}

// ---- the answer ----------------------------------------------------------------------------------------------

/**
 * The reply to `text` from platform data, or null when the question is not about the platform (the caller
 * then answers with its conversational rules). Never throws for a tool failure; rethrows an abort.
 */
export async function platformReply(
  text: string,
  tools: Toolbox,
  signal: AbortSignal,
): Promise<string | null> {
  const intent = parseIntent(text);
  if (!intent) return null;
  const reader = new PlatformReader(tools, signal);
  try {
    return await answer(intent, text, reader);
  } catch (err) {
    if (err instanceof ToolFailure && !signal.aborted) return failureReply(err.record);
    throw err;
  }
}

async function answer(intent: Intent, text: string, reader: PlatformReader): Promise<string> {
  switch (intent.kind) {
    case 'read-only':
      return READ_ONLY;
    case 'briefing':
      return briefing(reader);
    case 'emails':
      return emailReply(reader, intent.hours);
    case 'deals':
      return dealsReply(reader, intent.status);
    case 'property': {
      const view = await reader.portfolio();
      const found = resolveTarget(intent.target, view.properties);
      if (!found) return notFound(intent.target, view);
      return propertyReply(reader, view, found, intent.focus);
    }
    case 'compliance':
    case 'overview':
    case 'lookup': {
      const view = await reader.portfolio();
      const mentioned = mentionedProperties(text, view.properties);
      const focus = intent.kind === 'overview' ? null : intent.kind === 'lookup' ? intent.focus : intent.type;
      if (mentioned.length === 1) return propertyReply(reader, view, mentioned[0]!, focus);
      if (intent.kind === 'compliance')
        return complianceReply(reader, view, intent, mentioned.length > 1 ? mentioned : null);
      if (mentioned.length > 1) return whichOne(mentioned);
      return overviewReply(view);
    }
  }
}

const READ_ONLY = [
  'I can only **read** the platform from here: I have not created or changed anything.',
  '',
  'Proposals (new deals, compliance updates, financial logs) need the proposal tools, which are not enabled for ' +
    'this assistant. You can make the change in the platform itself, where it will be reviewed.',
].join('\n');

function failureReply(record: ToolCallRecord): string {
  return [
    '**I could not read the property platform just now**, so I cannot answer that reliably.',
    '',
    `Reason: ${record.result}`,
    '',
    'Nothing has been changed. If the key was refused, bind the assistant again with a valid platform key; ' +
      'otherwise try again in a moment.',
  ].join('\n');
}

// ---- finding properties ----------------------------------------------------------------------------------

function compactPostcode(p: string): string {
  return p.replace(/\s+/g, '').toUpperCase();
}

function resolveTarget(target: Target, properties: PortfolioProperty[]): PortfolioProperty | null {
  switch (target.by) {
    case 'id':
      return properties.find((p) => p.id === target.id) ?? null;
    case 'ref':
      return properties.find((p) => p.ref.toUpperCase() === target.ref) ?? null;
    case 'postcode':
      return (
        properties.find((p) => compactPostcode(p.address.postcode) === compactPostcode(target.postcode)) ??
        null
      );
  }
}

function notFound(target: Target, view: PortfolioView): string {
  const what =
    target.by === 'id'
      ? `property id ${target.id}`
      : target.by === 'ref'
        ? `a property with the reference **${target.ref}**`
        : `a property at the postcode **${target.postcode}**`;
  const refs = view.properties.slice(0, 30).map((p) => p.ref);
  return [
    `I could not find ${what} in ${view.tenant.name}’s portfolio (${plural(view.properties.length, 'property', 'properties')}).`,
    '',
    refs.length ? `Known references: ${refs.join(', ')}${view.properties.length > 30 ? ', …' : ''}.` : '',
  ]
    .join('\n')
    .trim();
}

const ABBREVIATIONS: Record<string, string> = {
  rd: 'road',
  ln: 'lane',
  ave: 'avenue',
  sq: 'square',
  gdns: 'gardens',
};
const GENERIC = new Set(
  (
    'the a an my our this that it them all each every any property properties portfolio house houses flat flats ' +
    'apartment apartments home homes road street lane place here there today now moment please compliance ' +
    'gas eicr epc safety certificate certificates status attention hmo licence license deals deal emails email ' +
    'tenant tenants tenancy rent arrears week weeks day days month months year next last soon overview summary'
  ).split(' '),
);

function normalise(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .map((w) => ABBREVIATIONS[w] ?? w)
    .join(' ')} `;
}

function haystack(p: PortfolioProperty): string {
  const a = p.address;
  return normalise([p.ref, a.line1, a.line2 ?? '', a.town, a.postcode, a.postcode.split(' ')[0]].join(' '));
}

/** Street names of a property's address lines: "16 Clarendon Road" → "clarendon road". */
function streetNames(p: PortfolioProperty): string[] {
  const names: string[] = [];
  for (const line of [p.address.line1, p.address.line2]) {
    if (!line) continue;
    for (const part of line.split(',')) {
      const name = normalise(part.replace(/^\s*(flat|apartment|studio|unit)\s+\w+\s*/i, ''))
        .replace(/^ \d+[a-z]? /, ' ')
        .trim();
      if (name.length >= 6 && name.includes(' ') && !/^(upper|lower) maisonette$/.test(name))
        names.push(name);
    }
  }
  return names;
}

/**
 * The properties a question names by a street, area, town or postcode fragment ("at 16 Clarendon Road",
 * "in BS6", "Beech Road"). Phrases after at/for/on/of/about/in are tried first, the most specific winning;
 * then any street name of the portfolio that appears in the question.
 */
export function mentionedProperties(text: string, properties: PortfolioProperty[]): PortfolioProperty[] {
  const hay = properties.map((p) => ({ p, h: haystack(p) }));
  const candidates: PortfolioProperty[][] = [];
  const segments = text.split(/\b(?:at|for|on|of|about|in|near|with)\b|[?!.;:]/i);
  for (const segment of segments.slice(1)) {
    const phrase = normalise(segment.replace(/^\s*(the|my|our|property|properties)\s+/i, ''));
    const meaningful = phrase
      .trim()
      .split(' ')
      .filter((w) => w && !GENERIC.has(w));
    if (meaningful.length === 0 || phrase.trim().length < 3) continue;
    const matches = hay.filter((x) => x.h.includes(phrase)).map((x) => x.p);
    if (matches.length > 0) candidates.push(matches);
  }
  if (candidates.length > 0) return candidates.sort((a, b) => a.length - b.length)[0]!;
  const whole = normalise(text);
  return properties.filter((p) => streetNames(p).some((name) => whole.includes(` ${name} `)));
}

function whichOne(matches: PortfolioProperty[]): string {
  const lines = matches.slice(0, 15).map((p) => `- ${propertyLabel(p)} (${words(p.letting_status)})`);
  return [
    `That matches **${matches.length} properties**:`,
    '',
    ...lines,
    matches.length > 15 ? `- … and ${matches.length - 15} more` : '',
    '',
    'Which one do you mean? Ask with its reference, e.g. "what needs attention at ' + matches[0]!.ref + '?"',
  ]
    .filter((l, i, all) => l !== '' || (all[i - 1] ?? '') !== '')
    .join('\n');
}

// ---- one property --------------------------------------------------------------------------------------------

async function propertyReply(
  reader: PlatformReader,
  view: PortfolioView,
  target: PortfolioProperty,
  focus: ComplianceType | null,
): Promise<string> {
  const [property, compliance] = await Promise.all([
    reader.property(target.id),
    reader.complianceOf(target.id),
  ]);
  const today = londonDay(compliance.as_of);
  const lines: string[] = [];
  lines.push(`### ${property.ref} — ${addressLine(property)}`);
  const facts = [
    `${capitalise(words(property.property_type))}, ${plural(property.bedrooms, 'bedroom')}`,
    words(property.letting_status),
    words(property.management_type),
    words(property.tenure),
  ];
  if (property.is_hmo)
    facts.push(
      `HMO${property.hmo_licence_type ? ` (${property.hmo_licence_type} licence` : ' ('}${property.max_occupants ? `, up to ${property.max_occupants} occupants` : ''})`,
    );
  if (property.units_total > 1)
    facts.push(`${property.units_occupied} of ${property.units_total} units occupied`);
  lines.push(facts.join(' · '));
  lines.push('');
  lines.push(`**Tenancy:** ${tenancyText(property, today)}`);
  lines.push(`**Arrears:** ${property.arrears_pence > 0 ? `${money(property.arrears_pence)} ⚠️` : 'none'}`);
  const s = property.compliance_summary;
  lines.push(
    `**Compliance:** ${words(s.status)} — ${s.valid} valid, ${s.expiring_soon} expiring soon, ${s.expired} expired, ${s.missing} missing`,
  );

  if (focus) {
    lines.push('');
    lines.push(`**${TYPE_LABELS[focus]}:** ${focusText(compliance, focus, today)}`);
  }

  const attention = attentionItems(property, compliance, today);
  lines.push('');
  if (attention.length === 0) {
    lines.push(
      '✅ **Nothing needs attention** here: every compliance item on file is valid and there are no arrears.',
    );
  } else {
    lines.push(`**Needs attention (${attention.length}):**`);
    for (const a of attention) lines.push(`- ${a}`);
  }
  if (view.incomplete) lines.push('', `_Note: ${view.incomplete}._`);
  return lines.join('\n');
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function tenancyText(p: Property, today: string): string {
  const t = p.current_tenancy;
  if (!t) return p.letting_status === 'void' ? 'none — the property is void' : 'no current tenancy';
  const term = t.is_periodic
    ? 'periodic'
    : t.end_date
      ? `fixed term to ${formatDate(t.end_date)}`
      : 'no end date on record';
  const rent = `${money(t.rent_pence)} ${t.rent_frequency === 'weekly' ? 'a week' : t.rent_frequency === 'annually' ? 'a year' : 'a month'}`;
  let deposit = 'no deposit on record';
  if (t.deposit) {
    deposit = t.deposit.protected_at
      ? `deposit ${money(t.deposit.amount_pence)} protected${t.deposit.scheme ? ` with ${t.deposit.scheme}` : ''} on ${formatDate(t.deposit.protected_at)}`
      : `deposit ${money(t.deposit.amount_pence)} **not yet protected**`;
  }
  const ends =
    t.end_date && (t.status === 'notice_given' || daysBetween(today, t.end_date) <= 60)
      ? ` (ends ${relativeDays(daysBetween(today, t.end_date))})`
      : '';
  return `${words(t.status)} since ${formatDate(t.start_date)}, ${term}${ends}; rent ${rent}; ${deposit}`;
}

function focusText(c: ComplianceResponse, type: ComplianceType, today: string): string {
  if (c.missing.includes(type)) return '**missing** — no record on file.';
  const items = c.items.filter((i) => i.type === type);
  if (items.length === 0) return 'not required here (no record and none expected).';
  return items
    .map((i) => {
      if (i.status === 'valid') {
        const due = itemDue(i, today);
        return due.date ? `valid until ${formatDate(due.date)} (${relativeDays(due.days ?? 0)})` : 'valid';
      }
      return itemProblem(i, today, false);
    })
    .join('; ');
}

const STATUS_RANK: Record<ComplianceItem['status'], number> = { expired: 0, expiring_soon: 1, valid: 2 };

function attentionItems(p: Property, c: ComplianceResponse, today: string): string[] {
  const out: string[] = [];
  const problems = c.items
    .filter((i) => i.status !== 'valid')
    .sort(
      (a, b) =>
        STATUS_RANK[a.status] - STATUS_RANK[b.status] ||
        (itemDue(a, today).days ?? -9999) - (itemDue(b, today).days ?? -9999),
    );
  for (const item of problems.filter((i) => i.status === 'expired'))
    out.push(`❗ ${boldLabel(item)} ${itemProblem(item, today, false)}`);
  for (const type of c.missing) out.push(`❗ **${TYPE_LABELS[type]}** missing — no record on file`);
  for (const item of problems.filter((i) => i.status === 'expiring_soon'))
    out.push(`⏳ ${boldLabel(item)} ${itemProblem(item, today, false)}`);
  if (p.arrears_pence > 0) out.push(`💷 Rent arrears of **${money(p.arrears_pence)}**`);
  const t = p.current_tenancy;
  if (t?.deposit && !t.deposit.protected_at)
    out.push(`💷 Deposit of ${money(t.deposit.amount_pence)} not yet protected in a scheme`);
  if (t?.status === 'notice_given' && t.end_date)
    out.push(
      `🔑 Tenant has given notice: the tenancy ends on ${formatDate(t.end_date)} (${relativeDays(daysBetween(today, t.end_date))})`,
    );
  if (!t && p.letting_status === 'void') out.push('🔑 The property is void (no tenancy)');
  return out;
}

function boldLabel(item: ComplianceItem): string {
  return `**${TYPE_LABELS[item.type]}**`;
}

// ---- compliance across the portfolio ----------------------------------------------------------------------

interface Finding {
  property: PortfolioProperty;
  type: ComplianceType;
  status: StatusFilter;
  item: ComplianceItem | null;
  /** days until due (negative overdue); missing items sort first */
  days: number;
}

const NEEDS: Record<StatusFilter | 'any', ReadonlySet<string>> = {
  // A property's compliance_status is its worst item ('missing' worst), so a property can only hold an
  // expired item when its status is expired or missing, and so on.
  expired: new Set(['expired', 'missing']),
  expiring: new Set(['expiring_soon', 'expired', 'missing']),
  missing: new Set(['missing']),
  any: new Set(['expiring_soon', 'expired', 'missing']),
};

async function collectFindings(
  reader: PlatformReader,
  properties: PortfolioProperty[],
  need: StatusFilter | 'any',
): Promise<{ findings: Finding[]; checked: number; skipped: number; today: string | null }> {
  const candidates = properties.filter((p) => NEEDS[need].has(p.compliance_status));
  const read = candidates.slice(0, MAX_COMPLIANCE_CALLS);
  const results = await reader.complianceMany(read.map((p) => p.id));
  const findings: Finding[] = [];
  let today: string | null = null;
  results.forEach((c, i) => {
    const property = read[i]!;
    const day = londonDay(c.as_of);
    today ??= day;
    for (const item of c.items) {
      if (item.status === 'valid') continue;
      findings.push({
        property,
        type: item.type,
        status: item.status === 'expired' ? 'expired' : 'expiring',
        item,
        days: itemDue(item, day).days ?? -99_999,
      });
    }
    for (const type of c.missing)
      findings.push({ property, type, status: 'missing', item: null, days: -100_000 });
  });
  findings.sort((a, b) => a.days - b.days || a.property.ref.localeCompare(b.property.ref));
  return { findings, checked: read.length, skipped: candidates.length - read.length, today };
}

async function complianceReply(
  reader: PlatformReader,
  view: PortfolioView,
  intent: Extract<Intent, { kind: 'compliance' }>,
  scope: PortfolioProperty[] | null,
): Promise<string> {
  const properties = scope ?? view.properties;
  const { findings, checked, skipped } = await collectFindings(reader, properties, intent.status ?? 'any');
  const today = view.today;
  let relevant = findings.filter((f) => !intent.type || f.type === intent.type);
  if (intent.withinDays !== null && intent.status !== 'expired' && intent.status !== 'missing')
    relevant = relevant.filter((f) => f.status !== 'expiring' || f.days <= intent.withinDays!);

  const what = intent.type ? TYPE_PLURALS[intent.type] : 'compliance items';
  const where = scope ? ` at ${plural(scope.length, 'matching property', 'matching properties')}` : '';
  const lines: string[] = [];
  const sections: [StatusFilter, string][] = intent.status
    ? [[intent.status, '']]
    : [
        ['expired', '❗ Expired'],
        ['missing', '❗ Missing'],
        ['expiring', '⏳ Expiring soon'],
      ];
  const heading = (s: StatusFilter) =>
    s === 'expired'
      ? `Expired ${what}`
      : s === 'missing'
        ? `Missing ${what}`
        : `${capitalise(what)} expiring soon`;

  if (intent.status) {
    const list = relevant.filter((f) => f.status === intent.status);
    const props = new Set(list.map((f) => f.property.id)).size;
    if (list.length === 0) {
      lines.push(
        `✅ **No ${intent.status === 'expiring' ? `${what} are expiring soon` : `${heading(intent.status).toLowerCase()}`}**${where}.`,
      );
    } else {
      lines.push(
        `**${heading(intent.status)}${where}: ${plural(list.length, 'item')} at ${plural(props, 'property', 'properties')}**` +
          (intent.withinDays !== null && intent.status === 'expiring'
            ? ` (next ${intent.withinDays} days)`
            : ''),
      );
      lines.push('');
      lines.push(...findingLines(list, today, !intent.type));
    }
    if (intent.status === 'expired') {
      const soon = findings.filter(
        (f) => f.status === 'expiring' && (!intent.type || f.type === intent.type),
      );
      if (soon.length > 0)
        lines.push(
          '',
          `${plural(soon.length, 'more item')} ${soon.length === 1 ? 'is' : 'are'} expiring soon — ask “${intent.type ? `which ${TYPE_PLURALS[intent.type]} are` : 'what is'} expiring soon?”.`,
        );
    }
  } else {
    const total = relevant.length;
    lines.push(
      total === 0
        ? `✅ **All ${what}${where} are in order**: nothing expired, expiring soon or missing.`
        : `**${capitalise(what)}${where} needing attention: ${total}**`,
    );
    for (const [status, title] of sections) {
      const list = relevant.filter((f) => f.status === status);
      if (list.length === 0) continue;
      lines.push('', `**${title} (${list.length})**`, ...findingLines(list, today, !intent.type));
    }
  }
  lines.push('');
  const note = [
    `Checked the compliance of ${plural(checked, 'property', 'properties')} whose status is not fully valid (of ${properties.length}), as of ${formatDate(today)}.`,
  ];
  if (skipped > 0) note.push(`${skipped} more were not checked to keep this quick.`);
  if (view.incomplete) note.push(`Note: ${view.incomplete}.`);
  lines.push(`_${note.join(' ')}_`);
  return lines.join('\n');
}

function findingLines(list: Finding[], today: string, withType: boolean): string[] {
  const lines: string[] = [];
  for (const f of list.slice(0, MAX_LIST_LINES)) {
    const label = withType ? `${TYPE_LABELS[f.type]} ` : '';
    const detail = f.item ? itemProblem(f.item, today, false) : 'missing — no record on file';
    lines.push(`- ${propertyLabel(f.property)} — ${label}${detail}`);
  }
  if (list.length > MAX_LIST_LINES) lines.push(`- … and ${list.length - MAX_LIST_LINES} more`);
  return lines;
}

// ---- portfolio overview -----------------------------------------------------------------------------------

function overviewReply(view: PortfolioView): string {
  const s = view.summary;
  const byLetting = new Map<string, number>();
  for (const p of view.properties)
    byLetting.set(p.letting_status, (byLetting.get(p.letting_status) ?? 0) + 1);
  const letting = [...byLetting.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${words(k)}`)
    .join(', ');
  const hmos = view.properties.filter((p) => p.is_hmo).length;
  const worst = (status: string) =>
    view.properties.filter((p) => p.compliance_status === status).map((p) => p.ref);
  const expired = worst('expired');
  const missing = worst('missing');
  const lines = [
    `### Portfolio overview — ${view.tenant.name}`,
    `_As of ${formatDate(view.today)}_`,
    '',
    `- **Properties:** ${s.properties_total}${hmos ? ` (${plural(hmos, 'HMO')})` : ''} — ${letting}`,
    `- **Units:** ${s.units_total} (${s.units_occupied} occupied, ${s.units_vacant} vacant) — occupancy **${(s.occupancy_rate * 100).toFixed(1)} %**`,
    `- **Rent roll:** ${money(s.rent_roll_monthly_pence)} a month`,
    `- **Arrears:** ${s.arrears_pence > 0 ? `**${money(s.arrears_pence)}**` : 'none'}`,
    `- **Compliance items:** ${s.compliance.valid} valid, ${s.compliance.expiring_soon} expiring soon, ${s.compliance.expired} expired, ${s.compliance.missing} missing`,
    `- **Open deals:** ${s.open_deals} (pipeline ${moneyShort(s.pipeline_value_pence)})`,
  ];
  if (expired.length || missing.length) {
    lines.push('', '**Properties needing compliance attention:**');
    if (missing.length) lines.push(`- With a missing item: ${missing.join(', ')}`);
    if (expired.length) lines.push(`- With an expired item: ${expired.join(', ')}`);
  }
  lines.push(
    '',
    'Ask “which gas safety certificates have expired?” or “what needs attention at ' +
      (view.properties[0]?.ref ?? 'MAN-004') +
      '?” for details.',
  );
  if (view.incomplete) lines.push('', `_Note: ${view.incomplete}._`);
  return lines.join('\n');
}

// ---- deals ----------------------------------------------------------------------------------------------------

async function dealsReply(reader: PlatformReader, status: 'open' | 'won' | 'lost' | 'all'): Promise<string> {
  const view = await reader.portfolio();
  const { deals, incomplete } = await reader.deals(status);
  const today = view.today;
  const refs = new Map(view.properties.map((p) => [p.id, p.ref]));
  const label = status === 'all' ? 'Deals' : `${capitalise(status)} deals`;
  if (deals.length === 0)
    return `There are **no ${status === 'all' ? '' : `${status} `}deals** on the platform.`;

  const value = deals.reduce((sum, d) => sum + (d.value_pence ?? 0), 0);
  const lines = [
    `### ${label}: ${deals.length}${value ? ` (total value ${moneyShort(value)})` : ''}`,
    `_As of ${formatDate(today)}_`,
  ];
  const groups = groupDeals(deals, today);
  for (const [title, list] of groups) {
    if (list.length === 0) continue;
    lines.push('', `**${title} (${list.length})**`);
    for (const d of list) lines.push(...dealLines(d, today, refs));
  }
  if (incomplete) lines.push('', '_Note: only part of the deal list could be read._');
  return lines.join('\n');
}

function groupDeals(deals: Deal[], today: string): [string, Deal[]][] {
  const due = (d: Deal) => (d.next_action_due ? daysBetween(today, d.next_action_due) : null);
  const sorted = [...deals].sort((a, b) => (due(a) ?? 99_999) - (due(b) ?? 99_999) || a.id - b.id);
  return [
    ['❗ Overdue', sorted.filter((d) => d.status === 'open' && (due(d) ?? 0) < 0 && d.next_action_due)],
    [
      'Due in the next 7 days',
      sorted.filter((d) => d.status === 'open' && due(d) !== null && due(d)! >= 0 && due(d)! <= 7),
    ],
    ['Later', sorted.filter((d) => d.status === 'open' && due(d) !== null && due(d)! > 7)],
    ['No next action set', sorted.filter((d) => d.status === 'open' && due(d) === null)],
    ['Closed', sorted.filter((d) => d.status !== 'open')],
  ];
}

function dealLines(d: Deal, today: string, refs: Map<number, string>): string[] {
  const facts = [words(d.stage)];
  if (d.value_pence !== null) facts.push(moneyShort(d.value_pence));
  if (d.property_id !== null) facts.push(refs.get(d.property_id) ?? `property ${d.property_id}`);
  if (d.counterparty) facts.push(d.counterparty);
  if (d.status !== 'open') facts.push(d.status);
  const out = [`- **${d.title}** · ${facts.join(' · ')}`];
  if (d.next_action) {
    const due = d.next_action_due
      ? ` — ${formatDate(d.next_action_due)} (${dueWords(daysBetween(today, d.next_action_due))})`
      : '';
    out.push(`  Next: ${d.next_action}${due}`);
  }
  return out;
}

// ---- email ------------------------------------------------------------------------------------------------------

interface EmailView {
  awaiting: EmailActivity[];
  replied: EmailActivity[];
  total: number;
  hours: number;
  trimmed: boolean;
}

function sortEmails(res: EmailActivityResponse & { truncated?: unknown }): EmailView {
  const needs = res.items.filter((e) => e.direction === 'inbound' && e.requires_response);
  const repliedLater = (e: EmailActivity) =>
    res.items.some(
      (o) =>
        o.direction === 'outbound' &&
        o.thread_id === e.thread_id &&
        Date.parse(o.received_at) > Date.parse(e.received_at),
    );
  const byTime = (a: EmailActivity, b: EmailActivity) =>
    Date.parse(b.received_at) - Date.parse(a.received_at);
  return {
    awaiting: needs.filter((e) => !repliedLater(e)).sort(byTime),
    replied: needs.filter(repliedLater).sort(byTime),
    total: res.items.length,
    hours: res.hours,
    trimmed: !!res.truncated,
  };
}

function emailLine(e: EmailActivity, refs: Map<number, string> | null): string {
  const ref = e.linked.property_id !== null && refs ? refs.get(e.linked.property_id) : undefined;
  return `- **${e.subject}** — from ${e.from}, ${formatTime(e.received_at)} · ${e.category}${ref ? ` · ${ref}` : ''}`;
}

async function emailReply(reader: PlatformReader, hours: number): Promise<string> {
  const res = await reader.emails(hours);
  const view = sortEmails(res);
  const period =
    view.hours % 24 === 0 && view.hours >= 72 ? `${view.hours / 24} days` : `${view.hours} hours`;
  const lines: string[] = [];
  if (view.awaiting.length === 0 && view.replied.length === 0) {
    lines.push(
      `✅ **No email needs a response** from the last ${period} (${plural(view.total, 'message')} in all).`,
    );
  } else {
    lines.push(
      `### Email needing a response — last ${period}`,
      `**${view.awaiting.length} awaiting a reply**${view.replied.length ? `, ${view.replied.length} already answered in the thread` : ''} (${plural(view.total, 'message')} in all)`,
      '',
    );
    for (const e of view.awaiting.slice(0, MAX_LIST_LINES)) lines.push(emailLine(e, null));
    if (view.awaiting.length > MAX_LIST_LINES)
      lines.push(`- … and ${view.awaiting.length - MAX_LIST_LINES} more`);
    if (view.replied.length) {
      lines.push('', '**Answered since (check they are resolved):**');
      for (const e of view.replied.slice(0, 10)) lines.push(emailLine(e, null));
    }
  }
  if (view.trimmed)
    lines.push('', '_Note: the platform’s answer was trimmed; ask for fewer hours to see everything._');
  return lines.join('\n');
}

// ---- daily briefing -----------------------------------------------------------------------------------------

async function briefing(reader: PlatformReader): Promise<string> {
  const view = await reader.portfolio();
  const [{ findings }, { deals }, mail] = await Promise.all([
    collectFindings(reader, view.properties, 'any'),
    reader.deals('open'),
    reader.emails(24),
  ]);
  const today = view.today;
  const email = sortEmails(mail);
  const s = view.summary;
  const expired = findings.filter((f) => f.status === 'expired');
  const missing = findings.filter((f) => f.status === 'missing');
  const soon = findings.filter((f) => f.status === 'expiring' && f.days <= 30);
  const actionDays = (d: Deal) => (d.next_action_due ? daysBetween(today, d.next_action_due) : null);
  const dueDeals = deals
    .filter((d) => d.next_action && actionDays(d) !== null && actionDays(d)! <= 7)
    .sort((a, b) => actionDays(a)! - actionDays(b)!);

  const build = (n: number, noteLen: number): string => {
    const cut = (t: string) => truncate(t, noteLen);
    const lines = [
      `### Daily briefing — ${view.tenant.name}, ${formatDate(today)}`,
      '',
      `**Portfolio:** ${s.properties_total} properties, occupancy ${(s.occupancy_rate * 100).toFixed(1)} %, rent roll ${money(s.rent_roll_monthly_pence)} a month, arrears ${money(s.arrears_pence)}, ${s.open_deals} open deals.`,
      '',
      `**❗ Compliance expired (${expired.length})**`,
      ...expired
        .slice(0, n)
        .map(
          (f) =>
            `- **${f.property.ref}** ${cut(`${TYPE_LABELS[f.type]}: ${f.item ? itemProblem(f.item, today, false).replace(/ — .*$/, '') : 'missing'}`)}`,
        ),
      ...(expired.length > n ? [`- … and ${expired.length - n} more`] : []),
      '',
      `**❗ Missing (${missing.length}):** ${missing
        .slice(0, n * 2)
        .map((f) => `${f.property.ref} ${TYPE_LABELS[f.type]}`)
        .join('; ')}${missing.length > n * 2 ? '; …' : ''}`,
      '',
      `**⏳ Expiring in the next 30 days (${soon.length})**`,
      ...soon
        .slice(0, n)
        .map(
          (f) =>
            `- **${f.property.ref}** ${cut(`${TYPE_LABELS[f.type]}: ${f.item ? itemProblem(f.item, today, false).replace(/ — .*$/, '') : ''}`)}`,
        ),
      ...(soon.length > n ? [`- … and ${soon.length - n} more`] : []),
      '',
      `**📋 Deal actions overdue or due this week (${dueDeals.length})**`,
      ...dueDeals
        .slice(0, n)
        .map((d) => `- ${cut(`${d.title}: ${d.next_action}`)} — ${dueWords(actionDays(d)!)}`),
      ...(dueDeals.length > n ? [`- … and ${dueDeals.length - n} more`] : []),
      '',
      `**✉️ Email awaiting a reply, last 24 hours (${email.awaiting.length})**`,
      ...email.awaiting.slice(0, n).map((e) => `- ${cut(e.subject)} — ${e.from}`),
      ...(email.awaiting.length > n ? [`- … and ${email.awaiting.length - n} more`] : []),
    ];
    return lines.join('\n');
  };
  for (const [n, len] of [
    [10, 140],
    [8, 110],
    [6, 90],
    [4, 80],
    [3, 60],
  ] as const) {
    const text = build(n, len);
    if (text.length <= BRIEFING_MAX_CHARS) return text;
  }
  return truncate(build(2, 50), BRIEFING_MAX_CHARS);
}
