import type { ComplianceStatus, ComplianceType, DueKind, TenantCopyStatus } from '@pa/contracts';
import { addDays, addMonths, daysBetween } from '../../lib/clock.ts';

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

/** The date an item's status counts to, and what that date is (a deadline to act is not an expiry). */
export function dueOf(item: RulesItem): { date: string | null; kind: DueKind | null } {
  if (item.type === 'deposit_protection') {
    // A protected deposit has nothing further due; an unprotected one must be protected 30 days after receipt.
    if (item.issueDate) return { date: null, kind: null };
    const date = item.nextDueDate ?? item.expiryDate;
    return { date, kind: date ? 'protect_by' : null };
  }
  if (item.nextDueDate) return { date: item.nextDueDate, kind: 'next_check' };
  return item.expiryDate ? { date: item.expiryDate, kind: 'expiry' } : { date: null, kind: null };
}

const dueDate = (item: RulesItem) => dueOf(item).date;

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
  return addDays(addMonths(issueDate, cycle.months), -1);
}

/**
 * How long before the current gas safety record's deadline a new check may be done and still keep that deadline's
 * anniversary (Gas Safety (Installation and Use) Regulations 1998, reg. 36, as amended in 2018; HSE: a check
 * 10 to 12 months after the last one). docs/rules-england-2026.md names the sources.
 */
export const GAS_EARLY_RENEWAL_MONTHS = 2;

/**
 * The expiry of a renewal issued on `issueDate` replacing a record that expires on `currentExpiry` (null: no
 * record). A gas check done on or before the current deadline and no more than 2 months before it keeps the
 * anniversary: the new record runs 12 months from the old deadline, not from the check. Any other renewal (a late
 * check, an early one outside the window, other types) takes the type's default.
 */
export function renewalExpiry(
  type: ComplianceType,
  issueDate: string,
  currentExpiry: string | null,
): string | null {
  if (
    type === 'gas_safety' &&
    currentExpiry !== null &&
    issueDate <= currentExpiry &&
    issueDate >= addMonths(currentExpiry, -GAS_EARLY_RENEWAL_MONTHS)
  ) {
    return addMonths(currentExpiry, 12);
  }
  return defaultExpiry(type, issueDate);
}

/** Days after a check within which the tenant must be given a copy of the record. */
export const TENANT_COPY_DAYS = 28;

/**
 * The types whose record a tenant must be given a copy of: the gas safety record (reg. 36(6)) and the EICR
 * (Electrical Safety Standards in the Private Rented Sector (England) Regulations 2020, reg. 3).
 */
export const TENANT_COPY_TYPES: readonly ComplianceType[] = ['gas_safety', 'eicr'];

/**
 * The duty to give the current tenant a copy of the record: within 28 days of the check, or before the tenant
 * moves in when the check was done before the tenancy began. Served means served on or after the check (a date
 * before it belongs to an older record). 28 days exactly is still in time. Null when no copy is owed: another
 * type, no current tenancy, or no check date.
 */
export function tenantCopy(
  item: { type: ComplianceType; issueDate: string | null; servedToTenantAt: string | null },
  property: RulesProperty,
  today: string,
): { dueDate: string | null; status: TenantCopyStatus | null } {
  if (!TENANT_COPY_TYPES.includes(item.type) || !item.issueDate || !property.tenancy) {
    return { dueDate: null, status: null };
  }
  const start = property.tenancy.startDate;
  const dueDate = item.issueDate < start ? start : addDays(item.issueDate, TENANT_COPY_DAYS);
  if (item.servedToTenantAt && item.servedToTenantAt >= item.issueDate) return { dueDate, status: 'served' };
  return { dueDate, status: today > dueDate ? 'overdue' : 'due' };
}
