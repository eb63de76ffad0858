// UK formats for everything a property manager reads: £1,395 (pence only when not whole), 92.1%, 19 Oct 2026.

const GBP = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP' });
const GBP_WHOLE = new Intl.NumberFormat('en-GB', {
  style: 'currency',
  currency: 'GBP',
  maximumFractionDigits: 0,
});
const SHORT_DATE = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** "£1,395", or "£1,395.50" when the sum is not whole pounds. */
export function money(pence: number): string {
  return pence % 100 === 0 ? GBP_WHOLE.format(pence / 100) : GBP.format(pence / 100);
}

/** "19 Oct 2026" for an ISO date (YYYY-MM-DD…). */
export function formatDate(isoDate: string): string {
  // en-GB writes "Sept" for September in some ICU versions; the house style is three letters.
  return SHORT_DATE.format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`)).replace('Sept', 'Sep');
}

/** "92.1%" for a rate between 0 and 1. */
export function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
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

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}
