import type { ComplianceStatus, ReviewWarning } from '@pa/contracts';
import type { ComplianceItem } from '../../generated/prisma/client.ts';
import { addDays } from '../../lib/clock.ts';
import { toRulesItem } from '../compliance/compliance-mapper.ts';
import { evaluateItem, requiredTypes, type RulesProperty } from '../compliance/compliance-rules.ts';
import type { KindedBody } from '../proposals/proposal-body.ts';
import { formatPence } from '../proposals/proposal-summary.ts';
import { complianceFieldsAfter } from './proposal-effects.ts';
import type { AmountStats } from './review-queue-repository.ts';

// What a reviewer should look at twice before approving. Each rule is one function of the proposal and the facts
// the service loads for a whole page at once.

/**
 * The "unusual amount" rule: a financial log whose net amount is more than UNUSUAL_FACTOR times, or less than
 * 1/UNUSUAL_FACTOR of, the median net amount of the property's logs of the same category dated in the last
 * AMOUNT_WINDOW_DAYS (up to today, London), provided there are at least AMOUNT_MIN_LOGS of them to judge by.
 */
export const UNUSUAL_FACTOR = 3;
export const AMOUNT_MIN_LOGS = 3;
export const AMOUNT_WINDOW_DAYS = 365;

/** Titles compare case- and space-insensitively (the repository's SQL normalises the same way). */
export function normaliseTitle(title: string): string {
  return title.trim().replace(/\s+/g, ' ').toLowerCase();
}

export interface WarningFacts {
  /** today in Europe/London (YYYY-MM-DD) */
  today: string;
  /** the proposal names a property that is not (or no longer) the tenant's */
  propertyMissing: boolean;
  /** the property's facts for the compliance rules, and its current item of the proposal's type */
  compliance?: { property: RulesProperty; current: ComplianceItem | null };
  /** open deals whose title matches the proposed deal's */
  sameTitleDeals: Array<{ id: number; stage: string }>;
  /** the property's recent logs of the proposed log's category */
  amounts?: AmountStats;
}

const statusWords = (s: ComplianceStatus) => s.replaceAll('_', ' ');

function complianceStatusChange(
  b: Extract<KindedBody, { kind: 'compliance_update' }>['body'],
  facts: NonNullable<WarningFacts['compliance']>,
  today: string,
): ReviewWarning | null {
  const { property, current } = facts;
  const before: ComplianceStatus | null = current
    ? evaluateItem(toRulesItem(current), property, today).status
    : requiredTypes(property).includes(b.compliance_type)
      ? 'missing'
      : null;
  const f = complianceFieldsAfter(b, current);
  const after = evaluateItem(
    {
      type: b.compliance_type,
      issueDate: f.issue_date as string,
      expiryDate: f.expiry_date as string | null,
      nextDueDate: null,
      outcome: b.outcome ?? null,
      rating: b.rating ?? null,
      remedialDueDate: null,
      // an exemption belongs to the item, not the certificate, and stays
      exemptionValidUntil: current?.exemptionValidUntil?.toISOString().slice(0, 10) ?? null,
    },
    property,
    today,
  ).status;
  if (before === after) return null;
  return {
    code: 'compliance-status-change',
    message: before
      ? `Status would change from ${statusWords(before)} to ${statusWords(after)}.`
      : `The property has no item of this type yet; the new one would be ${statusWords(after)}.`,
  };
}

function unusualAmount(net: number, category: string, stats: AmountStats | undefined): ReviewWarning | null {
  if (!stats || stats.count < AMOUNT_MIN_LOGS || stats.median <= 0) return null;
  const median = Math.round(stats.median);
  const usual = `the property's median ${category.replaceAll('_', ' ')} of ${formatPence(median)} (${stats.count} logs in the last 12 months)`;
  if (net > UNUSUAL_FACTOR * stats.median) {
    return {
      code: 'unusual-amount',
      message: `${formatPence(net)} is more than ${UNUSUAL_FACTOR}× ${usual}.`,
    };
  }
  if (net * UNUSUAL_FACTOR < stats.median) {
    return {
      code: 'unusual-amount',
      message: `${formatPence(net)} is less than a third of ${usual}.`,
    };
  }
  return null;
}

const futureDate = (what: string, date: string, today: string): ReviewWarning | null =>
  date > today ? { code: 'future-date', message: `The ${what} ${date} is in the future.` } : null;

export function reviewWarnings(p: KindedBody, facts: WarningFacts): ReviewWarning[] {
  const warnings: Array<ReviewWarning | null> = [];
  if (facts.propertyMissing) {
    warnings.push({
      code: 'property-not-found',
      message: 'The property is no longer on the platform; approving would fail.',
    });
  }
  switch (p.kind) {
    case 'deal':
      for (const d of facts.sameTitleDeals) {
        warnings.push({
          code: 'duplicate-open-deal',
          message: `An open deal with the same title already exists (deal ${d.id}, stage ${d.stage.replaceAll('_', ' ')}).`,
        });
      }
      break;
    case 'compliance_update':
      if (facts.compliance) warnings.push(complianceStatusChange(p.body, facts.compliance, facts.today));
      warnings.push(futureDate('issue date', p.body.issue_date, facts.today));
      break;
    case 'financial_log':
      warnings.push(futureDate('date', p.body.date, facts.today));
      warnings.push(unusualAmount(p.body.net_pence, p.body.category, facts.amounts));
      break;
  }
  return warnings.filter((w) => w !== null);
}

/** The window of the unusual-amount rule: logs dated after the first day and up to the second. */
export function amountWindow(today: string): [string, string] {
  return [addDays(today, -AMOUNT_WINDOW_DAYS), today];
}
