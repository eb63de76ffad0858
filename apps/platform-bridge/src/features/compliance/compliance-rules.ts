import type { ComplianceStatus, ComplianceType } from '@pa/contracts';
import { addDays, daysBetween } from '../../lib/clock.ts';

// The UK lettings compliance rules. Everything works on calendar dates (YYYY-MM-DD) already converted to
// Europe/London, so daylight-saving changes cannot shift a result. The rules exist twice: here, for the
// per-item statuses the compliance endpoint shows, and as SQL in rollup-statement.ts, which evaluates a whole
// tenant in one statement for the rollups. The SQL takes its constants (windows, lead days, statuses, required
// types) from this file; rollup-statement.test.ts holds the two to the same verdicts.

export interface TypeRule {
  /** days before the due date from which the item counts as expiring soon; null when it has no due date */
  windowDays: number | null;
  /** how long a new certificate lasts, used to default an expiry date */
  cycle: { months: number } | { days: number } | null;
}

export const TYPE_RULES: Record<ComplianceType, TypeRule> = {
  gas_safety: { windowDays: 60, cycle: { months: 12 } },
  eicr: { windowDays: 90, cycle: { months: 60 } },
  epc: { windowDays: 90, cycle: { months: 120 } },
  smoke_co_alarms: { windowDays: null, cycle: null },
  hmo_licence: { windowDays: 90, cycle: { months: 60 } },
  legionella_risk_assessment: { windowDays: 60, cycle: { months: 24 } },
  fire_risk_assessment: { windowDays: 60, cycle: { months: 12 } },
  deposit_protection: { windowDays: 7, cycle: { days: 30 } },
  right_to_rent: { windowDays: 28, cycle: null },
  pat: { windowDays: 30, cycle: { months: 12 } },
};

/** A smoke/CO alarm check counts for a tenancy when done at most this many days before it began. */
export const ALARM_CHECK_LEAD_DAYS = 28;

/** Letting statuses under which a property must hold its certificates (as must any property with a tenancy). */
export const LET_STATUSES: readonly string[] = ['let', 'notice_given', 'under_offer'];

/** The certificates a let property must hold: always, with gas, as an HMO, and when a deposit was taken. */
export const REQUIRED_TYPES = {
  let: ['eicr', 'epc', 'smoke_co_alarms', 'legionella_risk_assessment'],
  gas: ['gas_safety'],
  hmo: ['hmo_licence', 'fire_risk_assessment'],
  deposit: ['deposit_protection'],
} as const satisfies Record<string, readonly ComplianceType[]>;

export interface RulesProperty {
  lettingStatus: string;
  hasGas: boolean;
  isHmo: boolean;
  tenancy: { startDate: string; depositPence: number | null } | null;
}

export interface RulesItem {
  type: ComplianceType;
  issueDate: string | null;
  expiryDate: string | null;
  nextDueDate: string | null;
  outcome: string | null;
  rating: string | null;
  remedialDueDate: string | null;
  exemptionValidUntil: string | null;
}

export type ItemStatus = Exclude<ComplianceStatus, 'missing'>;

export function requiredTypes(p: RulesProperty): ComplianceType[] {
  const isLet = LET_STATUSES.includes(p.lettingStatus) || p.tenancy !== null;
  if (!isLet) return [];
  const types: ComplianceType[] = [...REQUIRED_TYPES.let];
  if (p.hasGas) types.push(...REQUIRED_TYPES.gas);
  if (p.isHmo) types.push(...REQUIRED_TYPES.hmo);
  if (p.tenancy?.depositPence) types.push(...REQUIRED_TYPES.deposit);
  return types;
}

function dueDate(item: RulesItem): string | null {
  // A protected deposit has nothing further due; an unprotected one is due 30 days after receipt.
  if (item.type === 'deposit_protection' && item.issueDate) return null;
  return item.nextDueDate ?? item.expiryDate;
}

export function evaluateItem(
  item: RulesItem,
  property: RulesProperty,
  today: string,
): { status: ItemStatus; daysUntilDue: number | null } {
  const due = dueDate(item);
  const daysUntilDue = due ? daysBetween(today, due) : null;
  const window = TYPE_RULES[item.type].windowDays;

  const remedialOpen =
    item.outcome === 'unsatisfactory' && item.remedialDueDate !== null && item.remedialDueDate >= today;
  const epcBelowE =
    item.type === 'epc' &&
    (item.rating === 'F' || item.rating === 'G') &&
    !(item.exemptionValidUntil && item.exemptionValidUntil >= today);
  const alarmsNotCheckedForTenancy =
    item.type === 'smoke_co_alarms' &&
    property.tenancy !== null &&
    (!item.issueDate || item.issueDate < addDays(property.tenancy.startDate, -ALARM_CHECK_LEAD_DAYS));

  if (
    (daysUntilDue !== null && daysUntilDue < 0) ||
    item.outcome === 'fail' ||
    (item.outcome === 'unsatisfactory' && !remedialOpen) ||
    epcBelowE ||
    alarmsNotCheckedForTenancy
  ) {
    return { status: 'expired', daysUntilDue };
  }
  if ((daysUntilDue !== null && window !== null && daysUntilDue <= window) || remedialOpen) {
    return { status: 'expiring_soon', daysUntilDue };
  }
  return { status: 'valid', daysUntilDue };
}

const SEVERITY: Record<ComplianceStatus, number> = { valid: 0, expiring_soon: 1, expired: 2, missing: 3 };

export function worst(statuses: Iterable<ComplianceStatus>): ComplianceStatus {
  let result: ComplianceStatus = 'valid';
  for (const s of statuses) if (SEVERITY[s] > SEVERITY[result]) result = s;
  return result;
}

export interface PropertyEvaluation<I extends RulesItem> {
  items: Array<{ item: I; status: ItemStatus; daysUntilDue: number | null }>;
  missing: ComplianceType[];
  status: ComplianceStatus;
  counts: { valid: number; expiring_soon: number; expired: number; missing: number };
}

export function evaluateProperty<I extends RulesItem>(
  property: RulesProperty,
  items: I[],
  today: string,
): PropertyEvaluation<I> {
  const evaluated = items.map((item) => ({ item, ...evaluateItem(item, property, today) }));
  const present = new Set(items.map((i) => i.type));
  const missing = requiredTypes(property).filter((t) => !present.has(t));
  const counts = { valid: 0, expiring_soon: 0, expired: 0, missing: missing.length };
  for (const e of evaluated) counts[e.status]++;
  const status = worst([
    ...evaluated.map((e) => e.status),
    ...(missing.length ? (['missing'] as const) : []),
  ]);
  return { items: evaluated, missing, status, counts };
}

/** The expiry a certificate of this type issued on `issueDate` would have by default. */
export function defaultExpiry(type: ComplianceType, issueDate: string): string | null {
  const cycle = TYPE_RULES[type].cycle;
  if (!cycle) return null;
  if ('days' in cycle) return addDays(issueDate, cycle.days);
  const d = new Date(`${issueDate}T00:00:00Z`);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + cycle.months);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return addDays(d.toISOString().slice(0, 10), -1);
}
