import type { ComplianceItem, ComplianceType } from '@pa/contracts';
import type { BriefingInput } from './briefing-input.ts';
import { type ComplianceFinding, complianceFindings, needingAttention } from './compliance-facts.ts';
import { dateWords, findingDetail, statusWord, TYPE_LABELS } from './compliance-words.ts';
import { addDays, daysBetween, londonDate } from './dates.ts';
import { dealActionsDue } from './deal-facts.ts';
import { emailsAwaitingReply, mailSource, mixedSources } from './email-facts.ts';
import { type ArrearsTrend, arrearsTrends } from './lettings-facts.ts';
import { dueWords, formatDate, money, relativeDays } from './uk-format.ts';

// What needs the property manager in a window (today, this week, the next 7 or 30 days), as one list the
// chat's "what needs my attention this week?", the daily briefing and its preview all state: statutory safety
// first (gas, electrical, smoke and CO alarms), then the other certificates, deposits to protect, notices,
// deal actions, arrears and email awaiting a reply. Every line names the property, the item, the date and why
// it matters. Pure: a function of the bridge's records (the briefing's reads) and the window.

export type AttentionWindowKind = 'today' | 'week' | 'days';

export interface AttentionWindow {
  kind: AttentionWindowKind;
  /** days after today the window reaches (0: today only) */
  days: number;
  /** the last London date in the window, YYYY-MM-DD */
  until: string;
  /** "today", "this week (to 22 Jun 2026)", "in the next 30 days (to 15 Jul 2026)" */
  words: string;
}

/**
 * The window of a question. "This week" is the next seven days, as the other answers count it, so that it
 * means as much on a Friday as on a Monday.
 */
export function attentionWindow(today: string, kind: AttentionWindowKind, days = 7): AttentionWindow {
  if (kind === 'today') return { kind, days: 0, until: today, words: 'today' };
  const n = kind === 'week' ? 7 : days;
  const until = addDays(today, n);
  return {
    kind,
    days: n,
    until,
    words: `${kind === 'week' ? 'this week' : `in the next ${n} days`} (to ${formatDate(until)})`,
  };
}

export type AttentionGroup =
  | 'safety'
  | 'copies'
  | 'compliance'
  | 'deposits'
  | 'tenancies'
  | 'rent-reviews'
  | 'deals'
  | 'arrears'
  | 'emails';

/** The groups in the order they are read, with their headings. */
export const ATTENTION_GROUPS: readonly { group: AttentionGroup; title: string }[] = [
  { group: 'safety', title: 'Safety: gas, electrical, smoke and CO alarms' },
  { group: 'copies', title: 'Tenant copies to serve (gas record, EICR: 28 days)' },
  { group: 'compliance', title: 'Other certificates and checks' },
  { group: 'deposits', title: 'Deposits to protect' },
  { group: 'tenancies', title: 'Notices and possession dates' },
  { group: 'rent-reviews', title: 'Rent reviews due (section 13)' },
  { group: 'deals', title: 'Deal actions' },
  { group: 'arrears', title: 'Rent arrears' },
  { group: 'emails', title: 'Email awaiting a reply' },
];

export interface AttentionLine {
  group: AttentionGroup;
  /** the property's ref, when the line is about one */
  ref: string | null;
  /** "Gas safety certificate (CP12)", a deal's title, "Rent arrears", an email's subject */
  item: string;
  /** what is wrong and when, in words: "expired on 12 May 2026 (34 days ago)", "must be protected by …" */
  state: string;
  /** the same in a few words without the date, for a table's status column: "Expired", "To protect" */
  status: string;
  /** the date that matters (YYYY-MM-DD), if any */
  date: string | null;
  /** the date column of a table: "12 May 2026 (34 days ago)", "none on file" */
  when: string;
  /** why it matters, in a few words */
  why: string;
  /** a statutory safety item (gas, electrical, alarms): never cut from a briefing */
  safety: boolean;
  /** most urgent first across the whole list: compare with byRank */
  rank: number[];
  /** the compliance finding behind the line, when it is one */
  finding?: ComplianceFinding;
}

export interface AttentionList {
  today: string;
  window: AttentionWindow;
  /** every line, most urgent first within each group, groups in ATTENTION_GROUPS' order */
  lines: AttentionLine[];
  /** the hours of email read */
  emailHours: number;
}

/** Statutory severity of a certificate: gas, electrical and alarms first (they keep tenants alive). */
const TYPE_SEVERITY: Record<ComplianceType, number> = {
  gas_safety: 0,
  eicr: 1,
  smoke_co_alarms: 2,
  deposit_protection: 3,
  hmo_licence: 4,
  fire_risk_assessment: 5,
  epc: 6,
  right_to_rent: 7,
  legionella_risk_assessment: 8,
  pat: 9,
};

export const SAFETY_TYPES: ReadonlySet<ComplianceType> = new Set(['gas_safety', 'eicr', 'smoke_co_alarms']);

/** Why each certificate matters, in a few words (the rules behind them are named in docs/daily-summary.md). */
export const WHY: Record<ComplianceType, string> = {
  gas_safety: 'legal duty: a Gas Safe check every 12 months',
  eicr: 'legal duty: an electrical inspection every 5 years, remedial work within 28 days',
  smoke_co_alarms: 'legal duty: alarms checked working on the first day of each tenancy',
  deposit_protection:
    'a deposit must be protected and the prescribed information served within 30 days of receipt',
  hmo_licence: 'letting an unlicensed HMO is an offence',
  fire_risk_assessment: 'required for shared parts (Fire Safety Order 2005)',
  epc: 'a valid EPC rated E or better is needed to let',
  right_to_rent: 'letting without a right to rent check risks a civil penalty',
  legionella_risk_assessment: 'landlords must assess the legionella risk',
  pat: 'appliances supplied with the let must be safe',
};

const GROUP_ORDER = new Map(ATTENTION_GROUPS.map((g, i) => [g.group, i]));
const STATUS_ORDER = { expired: 0, missing: 1, expiring: 2, valid: 3 } as const;

/** Most urgent first: by the rank each line carries. */
export function byRank(a: AttentionLine, b: AttentionLine): number {
  for (let i = 0; i < Math.max(a.rank.length, b.rank.length); i++) {
    const d = (a.rank[i] ?? 0) - (b.rank[i] ?? 0);
    if (d !== 0) return d;
  }
  return (a.ref ?? '').localeCompare(b.ref ?? '') || a.item.localeCompare(b.item);
}

function complianceLine(f: ComplianceFinding, today: string): AttentionLine {
  const group: AttentionGroup = SAFETY_TYPES.has(f.type)
    ? 'safety'
    : f.type === 'deposit_protection'
      ? 'deposits'
      : 'compliance';
  const overdue = f.status !== 'expiring';
  return {
    group,
    ref: f.property.ref,
    item: TYPE_LABELS[f.type],
    state: findingDetail(f),
    status: statusWord(f),
    date: f.dueDate ?? (f.reason === 'alarms-not-checked' ? (f.item?.issue_date ?? null) : null),
    when: dateWords(f),
    why: WHY[f.type],
    safety: group === 'safety',
    // what is already wrong before what falls due; then the law's order; then the oldest date first
    rank: [
      GROUP_ORDER.get(group)!,
      overdue ? 0 : 1,
      TYPE_SEVERITY[f.type],
      STATUS_ORDER[f.status],
      f.dueDate ? daysBetween(today, f.dueDate) : -100_000,
    ],
    finding: f,
  };
}

/** Everything that needs the property manager in `window`, from the briefing's reads. */
export function attentionList(
  input: BriefingInput,
  window: AttentionWindow,
  opts: {
    /** the hours of email `input` holds */
    emailHours?: number;
    /** how far ahead deal actions are listed, when not the window's own days (the briefing: a week) */
    dealDays?: number;
  } = {},
): AttentionList {
  const emailHours = opts.emailHours ?? 24;
  const { today } = input;
  const lines: AttentionLine[] = [];

  // certificates: every one expired or missing, on any property, and those falling due in the window
  for (const f of needingAttention(complianceFindings(input.compliance, today))) {
    if (f.status === 'expiring' && (f.dueDate === null || f.dueDate > window.until)) continue;
    lines.push(complianceLine(f, today));
  }

  // tenant copies: a gas record or an EICR must reach the tenant within 28 days of the check (the bridge
  // decides when, and whether it was served); a valid certificate can still owe one. They come from the read of
  // copies owed and from the compliance items, which carry the same verdicts: each item once.
  const owed = new Map<number, { ref: string; item: ComplianceItem }>();
  for (const { ref, item } of input.copies ?? []) owed.set(item.id, { ref, item });
  for (const { property, compliance } of input.compliance)
    for (const item of compliance.items)
      if (!owed.has(item.id)) owed.set(item.id, { ref: property.ref, item });
  for (const { ref, item } of owed.values()) {
    const due = item.tenant_copy_due_date;
    if (!due || (item.tenant_copy_status !== 'overdue' && item.tenant_copy_status !== 'due')) continue;
    if (item.tenant_copy_status === 'due' && due > window.until) continue;
    const days = daysBetween(today, due);
    lines.push({
      group: 'copies',
      ref,
      item: `${TYPE_LABELS[item.type]}: tenant’s copy`,
      state:
        item.tenant_copy_status === 'overdue'
          ? `not served: it was due by ${formatDate(due)} (${relativeDays(days)})`
          : `must be served by ${formatDate(due)} (${relativeDays(days)})`,
      status: item.tenant_copy_status === 'overdue' ? 'Not served: overdue' : 'To serve',
      date: due,
      when: `${formatDate(due)} (${relativeDays(days)})`,
      why: 'the tenant must be given a copy within 28 days of the check',
      safety: false,
      rank: [GROUP_ORDER.get('copies')!, TYPE_SEVERITY[item.type], days],
    });
  }

  // notices and possession: a tenancy ends only by them (from 1 May 2026 a fixed term's end no longer does)
  for (const p of input.properties) {
    const possession = p.tenancy_possession_date;
    const notice = p.tenancy_status === 'notice_given' || p.tenancy_notice_given_on !== null;
    if (!possession && !notice) continue;
    const end = possession ?? p.tenancy_end_date;
    if (end !== null && end > window.until) continue;
    const days = end ? daysBetween(today, end) : null;
    const given = p.tenancy_notice_given_on ? `notice given ${formatDate(p.tenancy_notice_given_on)}; ` : '';
    lines.push({
      group: 'tenancies',
      ref: p.ref,
      item: possession ? 'Possession date' : 'Tenancy under notice',
      state: end
        ? `${given}${possession ? 'possession due' : 'ends'} on ${formatDate(end)} (${relativeDays(days!)})`
        : `${given}no end date on record`,
      status: possession ? 'Possession due' : 'Notice given',
      date: end,
      when: end ? `${formatDate(end)} (${relativeDays(days!)})` : 'none on record',
      why: possession
        ? 'arrange the handover and the check-out inspection'
        : 'book the check-out, agree the deposit’s return and plan the re-let',
      safety: false,
      rank: [GROUP_ORDER.get('tenancies')!, days ?? 100_000],
    });
  }

  // rent reviews: a section 13 increase may take effect once a year, from the date the bridge gives
  for (const p of input.properties) {
    const next = p.tenancy_earliest_next_increase_on;
    // an opportunity rather than a duty: listed as its date comes round, not every day after it
    if (!next || next > window.until || next < today || p.tenancy_status !== 'active') continue;
    const days = daysBetween(today, next);
    const last = p.tenancy_last_rent_increase_on;
    lines.push({
      group: 'rent-reviews',
      ref: p.ref,
      item: 'Rent review',
      state: `an increase may take effect from ${formatDate(next)} (${relativeDays(days)}); ${last ? `last increase ${formatDate(last)}` : 'no increase yet'}`,
      status: 'Increase possible',
      date: next,
      when: `${formatDate(next)} (${relativeDays(days)})`,
      why: 'a section 13 notice gives at least 2 months’ notice of a new rent, once a year',
      safety: false,
      rank: [GROUP_ORDER.get('rent-reviews')!, days],
    });
  }

  for (const d of dealActionsDue(input.deals, today, opts.dealDays ?? window.days)) {
    const ref = input.properties.find((p) => p.id === d.deal.property_id)?.ref ?? null;
    lines.push({
      group: 'deals',
      ref,
      item: d.deal.title,
      state: `${d.action} (${dueWords(d.days)})`,
      status: d.action,
      date: d.dueDate,
      when: `${formatDate(d.dueDate)} (${dueWords(d.days)})`,
      why: d.days < 0 ? 'the next action on the deal is overdue' : 'the next action on the deal falls due',
      safety: false,
      rank: [GROUP_ORDER.get('deals')!, d.days],
    });
  }

  arrearsTrends(input.properties).forEach((trend, order) => {
    lines.push({ ...arrearsLine(trend), rank: [GROUP_ORDER.get('arrears')!, order] });
  });

  const named = mixedSources(input.emails);
  const refOf = new Map(input.properties.map((p) => [p.id, p.ref]));
  for (const e of emailsAwaitingReply(input.emails).awaiting) {
    lines.push({
      group: 'emails',
      ref: e.linked.property_id === null ? null : (refOf.get(e.linked.property_id) ?? null),
      item: e.subject,
      state: `from ${e.from}${named ? ` (${mailSource(e)})` : ''}`,
      status: `from ${e.from}${named ? ` (${mailSource(e)})` : ''}`,
      date: londonDate(e.received_at),
      when: formatDate(londonDate(e.received_at)),
      why: 'asks for a reply',
      safety: false,
      rank: [GROUP_ORDER.get('emails')!, -Date.parse(e.received_at) / 1000],
    });
  }

  return { today, window, lines: lines.sort(byRank), emailHours };
}

/**
 * A property's arrears as a line, saying how they moved in 30 days when the bridge knows (its history began 30
 * days ago or earlier): "up £450.00 in 30 days, now £1,150.00". Unchanged and unknown arrears read as they stand.
 */
function arrearsLine({ property: p, changePence: change }: ArrearsTrend): Omit<AttentionLine, 'rank'> {
  const owed = `${money(p.arrears_pence)} owed`;
  const moved =
    change === null || change === 0 ? null : change > 0 ? `up ${money(change)}` : `down ${money(-change)}`;
  return {
    group: 'arrears',
    ref: p.ref,
    item: 'Rent arrears',
    state: moved
      ? `${moved} in 30 days, now ${money(p.arrears_pence)}`
      : change === 0
        ? `${owed}, unchanged in 30 days`
        : owed,
    status: moved ? `${owed}, ${moved}` : owed,
    date: null,
    when: 'now',
    why:
      change !== null && change > 0
        ? 'arrears growing: contact the tenant now'
        : 'rent owed: contact the tenant before it grows',
    safety: false,
  };
}

/** The lines of one group, in order. */
export function linesOf(list: AttentionList, group: AttentionGroup): AttentionLine[] {
  return list.lines.filter((l) => l.group === group);
}
