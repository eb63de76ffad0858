import type { ComplianceType } from '@pa/contracts';
import type { ComplianceFinding } from './compliance-facts.ts';
import { formatDate, relativeDays } from './uk-format.ts';

export const TYPE_LABELS: Record<ComplianceType, string> = {
  gas_safety: 'Gas safety certificate (CP12)',
  eicr: 'EICR (electrical safety)',
  epc: 'EPC',
  smoke_co_alarms: 'Smoke and CO alarms',
  hmo_licence: 'HMO licence',
  legionella_risk_assessment: 'Legionella risk assessment',
  fire_risk_assessment: 'Fire risk assessment',
  deposit_protection: 'Deposit protection',
  right_to_rent: 'Right to rent check',
  pat: 'PAT testing',
};

/** Plural phrases for headings: "gas safety certificates". */
export const TYPE_PLURALS: Record<ComplianceType, string> = {
  gas_safety: 'gas safety certificates',
  eicr: 'EICRs',
  epc: 'EPCs',
  smoke_co_alarms: 'smoke and CO alarm checks',
  hmo_licence: 'HMO licences',
  legionella_risk_assessment: 'legionella risk assessments',
  fire_risk_assessment: 'fire risk assessments',
  deposit_protection: 'deposit protections',
  right_to_rent: 'right to rent checks',
  pat: 'PAT tests',
};

/** The status word of a finding: "Expired", "Missing", "Expiring soon", "Valid". */
export function statusWord(f: ComplianceFinding): string {
  if (f.status === 'expired')
    return f.reason === 'overdue' || f.reason === 'remedial-overdue' ? 'Expired' : 'Not valid';
  if (f.status === 'missing') return 'Missing';
  if (f.status === 'expiring') return f.item?.remedial_due_date ? 'Remedial work due' : 'Expiring soon';
  return 'Valid';
}

/** "unsatisfactory (2 × C2): " for an EICR with defects, empty otherwise. */
function defects(f: ComplianceFinding): string {
  const c = f.item?.eicr_codes;
  const found = c
    ? [c.c1 ? `${c.c1} × C1` : '', c.c2 ? `${c.c2} × C2` : '', c.fi ? `${c.fi} × FI` : '']
        .filter(Boolean)
        .join(', ')
    : '';
  const verdict = f.item?.outcome === 'unsatisfactory' ? 'unsatisfactory' : '';
  if (!verdict && !found) return '';
  return `${verdict || 'defects'}${found ? ` (${found})` : ''}: `;
}

/**
 * What is wrong, in words that never contradict the date: a past date is "expired on … (N days ago)", a
 * future one on an item that is not valid says why (a rating below E, a failed check).
 */
export function findingDetail(f: ComplianceFinding): string {
  const date = f.dueDate ? formatDate(f.dueDate) : null;
  const when = f.days !== null ? relativeDays(f.days) : '';
  switch (f.status) {
    case 'missing':
      return 'no record on file';
    case 'valid':
      return date ? `valid until ${date} (${when})` : 'valid';
    case 'expiring':
      if (f.item?.remedial_due_date) return `${defects(f)}remedial work due by ${date} (${when})`;
      return date ? `expires on ${date} (${when})` : 'due for renewal soon';
    case 'expired':
      switch (f.reason) {
        case 'epc-below-e':
          return `rated ${f.item!.rating}, below the legal minimum of E for letting${date ? ` (certificate valid until ${date})` : ''}`;
        case 'remedial-overdue':
          return `${defects(f)}remedial work was due by ${date} (${when})`;
        case 'failed':
          return `the last check ${f.item!.outcome === 'fail' ? 'failed' : 'was unsatisfactory'}${f.item!.issue_date ? ` (${formatDate(f.item!.issue_date)})` : ''}`;
        case 'overdue':
          return `expired on ${date} (${when})`;
        default:
          return date && f.days! < 0 ? `expired on ${date} (${when})` : 'not valid';
      }
  }
}
