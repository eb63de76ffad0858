// How the page writes things for a letting agent: money as £1,395.00 (round sums of £10,000 or more as
// £250,000), dates as 19 Oct 2026 in UK time, field and value names in words rather than JSON keys.

import { formatDateTime, fromNow } from '../common/time.js';

// the times are both pages' (../common/time.js); the review queue's modules take them from here with the rest
export { formatDateTime, fromNow };

const moneyWithPence = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP' });
const moneyWhole = new Intl.NumberFormat('en-GB', {
  style: 'currency',
  currency: 'GBP',
  maximumFractionDigits: 0,
});
const calendarDate = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** @param {number} pence */
export function formatMoney(pence) {
  return pence % 100 === 0 && pence >= 1_000_000
    ? moneyWhole.format(pence / 100)
    : moneyWithPence.format(pence / 100);
}

/**
 * A calendar date (`YYYY-MM-DD`) as "19 Oct 2026"; the date is the same everywhere, so it is formatted in UTC.
 * @param {string} iso
 */
export function formatDate(iso) {
  const [y, m, d] = iso.split('-').map(Number);
  return calendarDate.format(new Date(Date.UTC(y ?? 0, (m ?? 1) - 1, d ?? 1)));
}

/** @param {import('./types.js').Address} a */
export function formatAddress(a) {
  return [a.line1, a.line2, a.town, a.postcode].filter(Boolean).join(', ');
}

/** @type {Record<import('./types.js').ProposalKind, string>} */
export const KIND_LABELS = {
  deal: 'Deal',
  compliance_update: 'Compliance update',
  financial_log: 'Financial log',
};

/** @type {Record<import('./types.js').ProposalStatus, string>} */
export const STATUS_LABELS = {
  pending_review: 'Waiting for review',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
  withdrawn: 'Withdrawn',
};

/** What an approval created, as a sentence's object. */
export const RECORD_LABELS = {
  deal: 'deal',
  compliance_item: 'compliance record',
  financial_log: 'financial log entry',
};

const COMPLIANCE_TYPES = {
  gas_safety: 'Gas safety certificate',
  eicr: 'Electrical installation condition report (EICR)',
  epc: 'Energy performance certificate (EPC)',
  smoke_co_alarms: 'Smoke and CO alarms',
  hmo_licence: 'HMO licence',
  legionella_risk_assessment: 'Legionella risk assessment',
  fire_risk_assessment: 'Fire risk assessment',
  deposit_protection: 'Deposit protection',
  right_to_rent: 'Right to rent check',
  pat: 'Portable appliance test (PAT)',
};

/** Field names in words; a nested field is its path, e.g. `contractor/company`. */
const FIELD_LABELS = {
  title: 'Title',
  deal_type: 'Deal type',
  stage: 'Stage',
  value_pence: 'Value',
  expected_close_date: 'Expected close date',
  counterparty: 'Counterparty',
  property_id: 'Property',
  compliance_type: 'Certificate or check',
  issue_date: 'Issue date',
  expiry_date: 'Expiry date',
  next_due_date: 'Next due date',
  reference_number: 'Reference number',
  outcome: 'Outcome',
  rating: 'EPC rating',
  status: 'Compliance status',
  served_to_tenant_at: 'Served to the tenant',
  'eicr_codes/c1': 'EICR C1 (danger present)',
  'eicr_codes/c2': 'EICR C2 (potentially dangerous)',
  'eicr_codes/c3': 'EICR C3 (improvement recommended)',
  'eicr_codes/fi': 'EICR FI (further investigation)',
  'contractor/name': 'Engineer',
  'contractor/company': 'Contractor',
  'contractor/scheme': 'Registration scheme',
  'contractor/registration_number': 'Registration number',
  date: 'Date',
  direction: 'Income or expense',
  category: 'Category',
  net_pence: 'Net amount',
  vat_pence: 'VAT',
  gross_pence: 'Gross amount',
  payee_or_payer: 'Payee or payer',
  reference: 'Reference',
  review_notes: 'Notes for the reviewer',
};

/** Fields whose values are codes to be written in words. */
const WORDED_VALUES = new Set(['deal_type', 'stage', 'outcome', 'direction', 'category', 'status']);

/** @param {string} s */
function sentenceCase(s) {
  const words = s.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Where a kind names a field otherwise: a deal's `status` is the deal's, not a compliance status. */
const FIELD_LABELS_OF_KIND = { deal: { status: 'Deal status' } };

/**
 * @param {string} path e.g. `expiry_date`, `contractor/company`
 * @param {import('./types.js').ProposalKind} [kind]
 */
export function fieldLabel(path, kind) {
  const ofKind =
    kind === 'deal' ? /** @type {Record<string, string>} */ (FIELD_LABELS_OF_KIND.deal)[path] : null;
  const known = ofKind ?? /** @type {Record<string, string>} */ (FIELD_LABELS)[path];
  if (known) return known;
  return path
    .split('/')
    .map((part) => sentenceCase(part.replace(/_pence$/, '')))
    .join(': ');
}

/**
 * A value as the reviewer reads it, given the field it belongs to.
 * @param {string} path
 * @param {unknown} value
 */
export function formatValue(path, value) {
  if (value === null || value === undefined || value === '') return '—';
  const field = path.split('/').pop() ?? path;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number')
    return field.endsWith('_pence') ? formatMoney(value) : value.toLocaleString('en-GB');
  if (typeof value !== 'string') return JSON.stringify(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return formatDate(value);
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(value)) return formatDateTime(value);
  if (field === 'compliance_type') {
    return /** @type {Record<string, string>} */ (COMPLIANCE_TYPES)[value] ?? sentenceCase(value);
  }
  if (WORDED_VALUES.has(field)) return sentenceCase(value);
  return value;
}

/**
 * Pounds as typed ("1,395", "£1395.5", "250000") to pence; null when it is not an amount.
 * @param {string} typed
 */
export function parsePounds(typed) {
  const s = typed.replace(/[£,\s]/g, '');
  if (!/^\d+(\.\d{1,2})?$/.test(s)) return null;
  const [whole = '0', frac = ''] = s.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}

/**
 * Pence as the money fields show it for editing: "1,395.00".
 * @param {number} pence
 */
export function penceToPounds(pence) {
  return (pence / 100).toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** An API problem's field message as a sentence: "must not be empty" → "Must not be empty." @param {string} s */
export function asSentence(s) {
  const t = s.trim();
  if (!t) return t;
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A date as typed in the UK ("17/01/2027", "17-1-2027", "17 Jan 2027", or ISO "2027-01-17") to `YYYY-MM-DD`;
 * null when it is not a real calendar date.
 * @param {string} typed
 */
export function parseUkDate(typed) {
  const s = typed.trim().toLowerCase();
  let y, m, d;
  let match = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  if (match) [, y, m, d] = match.map(Number);
  else if ((match = /^(\d{1,2})[/.\- ](\d{1,2})[/.\- ](\d{4})$/.exec(s))) [, d, m, y] = match.map(Number);
  else if ((match = /^(\d{1,2})\s+([a-z]{3})[a-z]*\.?\s+(\d{4})$/.exec(s))) {
    d = Number(match[1]);
    m = MONTHS.indexOf(match[2] ?? '') + 1;
    y = Number(match[3]);
  } else return null;
  if (!y || !m || !d || m < 1 || m > 12) return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

/**
 * `YYYY-MM-DD` as the date fields show it for editing: "17/01/2027".
 * @param {string} iso
 */
export function isoToUkDate(iso) {
  const [y, m, d] = iso.split('-');
  return `${d}/${m}/${y}`;
}

/** The kind the API's summaries begin with, which the card's badge already says. */
const SUMMARY_PREFIX = /^(Deal proposal|Compliance update|Financial log): /;

/**
 * A proposal's one-line summary as the card's headline: without the kind (the badge says it), and its amounts
 * ("£19,800") written to the penny as the rest of the page writes them.
 * @param {string} summary
 */
export function summaryText(summary) {
  const text = summary
    .replace(SUMMARY_PREFIX, '')
    .replace(/£(\d{1,3}(?:,\d{3})*)(?:\.(\d{2}))?/g, (_, pounds, pence) =>
      formatMoney(Number(pounds.replace(/,/g, '')) * 100 + Number(pence ?? 0)),
    );
  return text.charAt(0).toUpperCase() + text.slice(1);
}
