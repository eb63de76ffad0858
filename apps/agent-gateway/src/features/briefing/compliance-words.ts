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

/** True when the finding's date is a review or deadline (next_due_date) rather than a certificate's expiry. */
function isDeadline(f: ComplianceFinding): boolean {
  return f.item?.next_due_date != null && f.dueDate === f.item.next_due_date;
}

/**
 * The status of a finding in a few words, without its date (tables give the date a column of its own):
 * "Expired", "Missing", "To protect", "Unsatisfactory (2 × C2): remedial work due", "Rated F: below E".
 */
export function statusWord(f: ComplianceFinding): string {
  const deposit = f.type === 'deposit_protection';
  switch (f.status) {
    case 'missing':
      return deposit ? 'Not protected: no record' : 'Missing';
    case 'valid':
      return 'Valid';
    case 'expiring':
      if (deposit) return 'To protect';
      if (f.item?.remedial_due_date) return capitalise(`${defects(f)}remedial work due`);
      return isDeadline(f) ? 'Due soon' : 'Expiring soon';
    case 'expired':
      switch (f.reason) {
        case 'epc-below-e':
          return `Rated ${f.item!.rating}: below the minimum E`;
        case 'remedial-overdue':
          return capitalise(`${defects(f)}remedial work overdue`);
        case 'failed':
          return f.item!.outcome === 'fail' ? 'Check failed' : 'Unsatisfactory';
        case 'alarms-not-checked':
          return 'Not checked for this tenancy';
        case 'overdue':
          if (deposit) return 'Not protected: deadline passed';
          return isDeadline(f) ? 'Overdue' : 'Expired';
        default:
          return f.days !== null && f.days < 0 ? 'Expired' : 'Not valid by the platform’s rules';
      }
  }
}

/** The date column of a finding: "12 May 2026 (34 days ago)", "last checked 12 Jun 2024", "none on file". */
export function dateWords(f: ComplianceFinding): string {
  if (f.status === 'missing') return 'none on file';
  if (f.reason === 'alarms-not-checked')
    return f.item?.issue_date ? `last checked ${formatDate(f.item.issue_date)}` : 'never checked';
  if (f.reason === 'epc-below-e') {
    const until = f.item?.exemption_valid_until;
    return until ? `exemption ended ${formatDate(until)}` : 'no exemption';
  }
  if (!f.dueDate) return 'none';
  return `${formatDate(f.dueDate)}${f.days !== null ? ` (${relativeDays(f.days)})` : ''}`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
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
 * future one on an item that is not valid says why (a rating below E, a failed check). A deadline to act (a
 * deposit to protect, a review to do) is worded as one, never as an expiry.
 */
export function findingDetail(f: ComplianceFinding): string {
  const date = f.dueDate ? formatDate(f.dueDate) : null;
  const when = f.days !== null ? relativeDays(f.days) : '';
  const deposit = f.type === 'deposit_protection';
  switch (f.status) {
    case 'missing':
      return deposit ? 'deposit taken, no protection on record' : 'missing (no record on file)';
    case 'valid':
      return date ? `valid until ${date} (${when})` : 'valid';
    case 'expiring':
      if (deposit)
        return date
          ? `must be protected, and the prescribed information served, by ${date} (${when})`
          : 'must be protected';
      if (f.item?.remedial_due_date) return `${defects(f)}remedial work due by ${date} (${when})`;
      if (!date) return 'due for renewal soon';
      return isDeadline(f) ? `due by ${date} (${when})` : `expires on ${date} (${when})`;
    case 'expired':
      switch (f.reason) {
        case 'epc-below-e':
          return `rated ${f.item!.rating}, below the legal minimum of E for letting${date ? ` (certificate valid until ${date})` : ''}`;
        case 'remedial-overdue':
          return `${defects(f)}remedial work was due by ${date} (${when})`;
        case 'failed':
          return `the last check ${f.item!.outcome === 'fail' ? 'failed' : 'was unsatisfactory'}${f.item!.issue_date ? ` (${formatDate(f.item!.issue_date)})` : ''}`;
        case 'alarms-not-checked':
          return `not checked at the start of the current tenancy${f.item!.issue_date ? ` (last checked ${formatDate(f.item!.issue_date)})` : ''}`;
        case 'overdue':
          if (deposit) return `not protected: the deadline was ${date} (${when})`;
          return isDeadline(f) ? `overdue: was due by ${date} (${when})` : `expired on ${date} (${when})`;
        default:
          return date && f.days! < 0 ? `expired on ${date} (${when})` : 'not valid by the platform’s rules';
      }
  }
}
