import type { ComplianceType } from '@pa/contracts';
import type { KindedBody } from './proposal-body.ts';

// One line in words for the reviewer's list, e.g. "Deal proposal: Re-let – Flat 2, 45 Hoe Street (letting,
// £19,800) at LON-007", with dates as a UK reader writes them (10 Jun 2026).

const POUNDS = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP' });
const WHOLE_POUNDS = new Intl.NumberFormat('en-GB', {
  style: 'currency',
  currency: 'GBP',
  maximumFractionDigits: 0,
});

const DAY = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A calendar date (YYYY-MM-DD) as a UK reader writes it: 10 Jun 2026. */
export function formatDay(isoDate: string): string {
  return DAY.format(new Date(`${isoDate}T00:00:00Z`));
}

/** Pence as pounds to the penny (£185.00), as invoices and ledgers show them. */
export function formatPence(pence: number): string {
  return POUNDS.format(pence / 100);
}

/** A deal's value: in whole pounds when it is a round sum (£19,800), else to the penny. */
export function formatValue(pence: number): string {
  return pence % 100 === 0 ? WHOLE_POUNDS.format(pence / 100) : formatPence(pence);
}

export const COMPLIANCE_TYPE_NAME: Record<ComplianceType, string> = {
  gas_safety: 'gas safety certificate',
  eicr: 'EICR',
  epc: 'EPC',
  smoke_co_alarms: 'smoke and CO alarm check',
  hmo_licence: 'HMO licence',
  legionella_risk_assessment: 'legionella risk assessment',
  fire_risk_assessment: 'fire risk assessment',
  deposit_protection: 'deposit protection',
  right_to_rent: 'right to rent check',
  pat: 'PAT test',
};

const words = (v: string) => v.replaceAll('_', ' ');

export function proposalSummary(p: KindedBody, propertyRef: string | null): string {
  const at = propertyRef ? ` at ${propertyRef}` : '';
  switch (p.kind) {
    case 'deal': {
      const b = p.body;
      const details = [
        words(b.deal_type),
        ...(b.value_pence === undefined ? [] : [formatValue(b.value_pence)]),
      ];
      // a deal on a property not yet on the platform says so inside its details
      if (b.property_id === null) details.push('a property not yet on the platform');
      return `Deal proposal: ${b.title} (${details.join(', ')})${b.property_id === null ? '' : at}`;
    }
    case 'compliance_update': {
      const b = p.body;
      const outcome = b.outcome ? `, ${words(b.outcome)}` : '';
      return `Compliance update: ${COMPLIANCE_TYPE_NAME[b.compliance_type]} issued ${formatDay(b.issue_date)}${outcome}${at}`;
    }
    case 'financial_log': {
      const b = p.body;
      const vat = b.vat_pence ? ` + VAT ${formatPence(b.vat_pence)}` : '';
      const party = b.payee_or_payer
        ? ` ${b.direction === 'income' ? 'from' : 'to'} ${b.payee_or_payer}`
        : '';
      return `Financial log: ${b.direction}, ${words(b.category)} ${formatPence(b.net_pence)}${vat}${party} on ${formatDay(b.date)}${at}`;
    }
  }
}
