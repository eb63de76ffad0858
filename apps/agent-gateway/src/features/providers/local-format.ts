import type { ComplianceItem, ComplianceType, PortfolioProperty, Property } from '@pa/contracts';

// Formatting for the local provider's platform answers: British English, pounds, dates like "12 May 2026".

const GBP = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP' });
const GBP_WHOLE = new Intl.NumberFormat('en-GB', {
  style: 'currency',
  currency: 'GBP',
  maximumFractionDigits: 0,
});
const LONG_DATE = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const LONDON_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' });
const LONDON_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
});

export function money(pence: number): string {
  return GBP.format(pence / 100);
}

/** £245,000 for round sums, £1,395.50 otherwise. */
export function moneyShort(pence: number): string {
  return pence % 100 === 0 ? GBP_WHOLE.format(pence / 100) : GBP.format(pence / 100);
}

/** "12 May 2026" for an ISO date (YYYY-MM-DD). */
export function formatDate(isoDate: string): string {
  return LONG_DATE.format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`));
}

/** "15 Jun, 08:24" (London time) for an ISO timestamp. */
export function formatTime(isoDateTime: string): string {
  return LONDON_TIME.format(new Date(isoDateTime));
}

/** Today's date in London (YYYY-MM-DD) at the given instant. */
export function londonDay(isoDateTime: string): string {
  return LONDON_DAY.format(new Date(isoDateTime));
}

/** Whole days from `today` to `date` (both YYYY-MM-DD); negative when `date` is in the past. */
export function daysBetween(today: string, date: string): number {
  const a = Date.parse(`${today.slice(0, 10)}T00:00:00Z`);
  const b = Date.parse(`${date.slice(0, 10)}T00:00:00Z`);
  return Math.round((b - a) / 86_400_000);
}

/** "34 days ago", "yesterday", "today", "tomorrow", "in 12 days". */
export function relativeDays(days: number): string {
  if (days === 0) return 'today';
  if (days === -1) return 'yesterday';
  if (days === 1) return 'tomorrow';
  return days < 0 ? `${-days} days ago` : `in ${days} days`;
}

/** "3 days overdue", "due today", "due in 2 days". */
export function dueWords(days: number): string {
  if (days < 0) return `${-days} day${days === -1 ? '' : 's'} overdue`;
  if (days === 0) return 'due today';
  if (days === 1) return 'due tomorrow';
  return `due in ${days} days`;
}

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

type Addressed = Pick<PortfolioProperty, 'address'> | Pick<Property, 'address'>;

/** "16 Clarendon Road, Whalley Range, Manchester M16 8LD" */
export function addressLine(p: Addressed): string {
  const a = p.address;
  return [a.line1, a.line2, `${a.town} ${a.postcode}`].filter((x): x is string => !!x).join(', ');
}

/** "**MAN-004** 16 Clarendon Road, Whalley Range, Manchester M16 8LD" */
export function propertyLabel(p: Pick<PortfolioProperty, 'ref' | 'address'>): string {
  return `**${p.ref}** ${addressLine(p)}`;
}

/** The date an item is due (remedial work first), with its days from `today`. */
export function itemDue(item: ComplianceItem, today: string): { date: string | null; days: number | null } {
  if (item.remedial_due_date)
    return { date: item.remedial_due_date, days: daysBetween(today, item.remedial_due_date) };
  const date = item.next_due_date ?? item.expiry_date;
  if (date) return { date, days: daysBetween(today, date) };
  return { date: null, days: item.days_until_due };
}

/** One line about an item that is not valid: what, when, and the note. */
export function itemProblem(item: ComplianceItem, today: string, withLabel = true): string {
  const label = withLabel ? `${TYPE_LABELS[item.type]} ` : '';
  const due = itemDue(item, today);
  let what: string;
  if (item.remedial_due_date) {
    const codes = item.eicr_codes;
    const found = codes
      ? [
          codes.c1 ? `${codes.c1} × C1` : '',
          codes.c2 ? `${codes.c2} × C2` : '',
          codes.fi ? `${codes.fi} × FI` : '',
        ]
          .filter(Boolean)
          .join(', ')
      : '';
    const verdict = item.outcome === 'unsatisfactory' ? 'unsatisfactory' : 'remedial work needed';
    const days = due.days ?? 0;
    what =
      `${label}${verdict}${found ? ` (${found})` : ''}: remedial work due by ${formatDate(item.remedial_due_date)} ` +
      `(${days < 0 ? `${-days} days overdue` : relativeDays(days)})`;
  } else if (item.status === 'expired') {
    what = due.date
      ? `${label}expired on ${formatDate(due.date)} (${relativeDays(due.days ?? 0)})`
      : `${label}${label ? 'is ' : ''}out of date (${item.issue_date ? `last done ${formatDate(item.issue_date)}` : 'no valid date on record'})`;
  } else {
    what = due.date
      ? `${label}expires on ${formatDate(due.date)} (${relativeDays(due.days ?? 0)})`
      : `${label}is due for renewal soon`;
  }
  // Notes explain a problem (why a check is overdue, the defects found); on an item that is merely coming up
  // for renewal they describe the last, passed check, which would only confuse.
  const explains = item.status === 'expired' || item.remedial_due_date !== null;
  const note = item.notes && explains ? ` — ${truncate(item.notes, 140)}` : '';
  return `${what}${note}`;
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "let", "notice given", "under offer"... */
export function words(snake: string): string {
  return snake.replace(/_/g, ' ');
}
