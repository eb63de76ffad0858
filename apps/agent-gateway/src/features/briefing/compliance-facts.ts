import type {
  ComplianceItem,
  ComplianceResponse,
  ComplianceType,
  PortfolioProperty,
  PropertyComplianceAttention,
} from '@pa/contracts';
import { daysBetween } from './dates.ts';

// What is wrong (or coming due) with each property's certificates, from the bridge's own per-item verdicts.

export type FindingStatus = 'expired' | 'expiring' | 'missing' | 'valid';

/** Why an expired item is not valid: its date passed, or something else (a failed check, an EPC below E). */
export type ExpiredReason =
  | 'overdue'
  | 'remedial-overdue'
  | 'failed'
  | 'epc-below-e'
  /** smoke and CO alarms last checked before the current tenancy began (they must be at its start) */
  | 'alarms-not-checked'
  | 'not-valid';

export interface ComplianceFinding {
  property: PortfolioProperty;
  type: ComplianceType;
  status: FindingStatus;
  item: ComplianceItem | null;
  /** the date that matters: remedial work's deadline when open, else the next due or expiry date */
  dueDate: string | null;
  /** days from today to `dueDate`, negative when past; null without a date */
  days: number | null;
  reason: ExpiredReason | null;
}

export interface PropertyCompliance {
  property: PortfolioProperty;
  compliance: ComplianceResponse;
}

/**
 * One property of the portfolio-wide compliance read (a page `as_of`) as the per-property read's answer: the same
 * status and missing types, and its items that are not valid, which are all a finding needs.
 */
export function attentionAsCompliance(p: PropertyComplianceAttention, asOf: string): ComplianceResponse {
  return { property_id: p.property_id, as_of: asOf, status: p.status, items: p.items, missing: p.missing };
}

function reasonFor(item: ComplianceItem, days: number | null, today: string): ExpiredReason {
  if (item.type === 'epc' && (item.rating === 'F' || item.rating === 'G')) return 'epc-below-e';
  if (item.remedial_due_date && item.remedial_due_date < today) return 'remedial-overdue';
  if (item.outcome === 'fail' || item.outcome === 'unsatisfactory') return 'failed';
  if (days !== null && days < 0) return 'overdue';
  // the bridge gives alarm checks no due date: one that passed yet is not valid predates the tenancy
  if (item.type === 'smoke_co_alarms' && days === null) return 'alarms-not-checked';
  return 'not-valid';
}

function finding(property: PortfolioProperty, item: ComplianceItem, today: string): ComplianceFinding {
  const status: FindingStatus =
    item.status === 'expired' ? 'expired' : item.status === 'expiring_soon' ? 'expiring' : 'valid';
  const remedialOpen = item.remedial_due_date !== null && item.status !== 'valid';
  const dueDate = remedialOpen ? item.remedial_due_date : (item.next_due_date ?? item.expiry_date);
  const days = dueDate ? daysBetween(today, dueDate) : item.days_until_due;
  return {
    property,
    type: item.type,
    status,
    item,
    dueDate,
    days,
    reason: status === 'expired' ? reasonFor(item, days, today) : null,
  };
}

const RANK: Record<FindingStatus, number> = { expired: 0, missing: 1, expiring: 2, valid: 3 };

/** Most urgent first: expired (longest overdue first), missing, then by due date; ties by property ref. */
export function byUrgency(a: ComplianceFinding, b: ComplianceFinding): number {
  return (
    RANK[a.status] - RANK[b.status] ||
    (a.days ?? -100_000) - (b.days ?? -100_000) ||
    a.property.ref.localeCompare(b.property.ref) ||
    a.type.localeCompare(b.type)
  );
}

/** Every item and every missing type of the given properties, sorted by urgency. */
export function complianceFindings(records: PropertyCompliance[], today: string): ComplianceFinding[] {
  const out: ComplianceFinding[] = [];
  for (const { property, compliance } of records) {
    for (const item of compliance.items) out.push(finding(property, item, today));
    for (const type of compliance.missing)
      out.push({ property, type, status: 'missing', item: null, dueDate: null, days: null, reason: null });
  }
  return out.sort(byUrgency);
}

/** The findings that need attention now: expired, missing or expiring soon (by the bridge's windows). */
export function needingAttention(findings: ComplianceFinding[]): ComplianceFinding[] {
  return findings.filter((f) => f.status !== 'valid');
}

/** Items not yet expired whose due date falls between today and `until` (inclusive). */
export function dueBy(findings: ComplianceFinding[], until: string): ComplianceFinding[] {
  return findings.filter(
    (f) =>
      f.status !== 'expired' &&
      f.status !== 'missing' &&
      f.dueDate !== null &&
      f.days! >= 0 &&
      f.dueDate <= until,
  );
}

/** EPCs rated below E (F or G), from the compliance item's rating. */
export function epcsBelowE(findings: ComplianceFinding[]): ComplianceFinding[] {
  return findings.filter((f) => f.type === 'epc' && (f.item?.rating === 'F' || f.item?.rating === 'G'));
}
