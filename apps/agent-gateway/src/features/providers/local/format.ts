import type { PortfolioProperty, Property } from '@pa/contracts';

// Formatting for the local provider's answers. The UK formats themselves (money, dates, percentages) live with
// the briefing facts, which the daily summary shares; these are the chat's own.

export { daysBetween } from '../../briefing/dates.ts';
export { TYPE_LABELS, TYPE_PLURALS } from '../../briefing/compliance-words.ts';
export {
  dueWords,
  formatDate,
  money,
  percent,
  plural,
  relativeDays,
  truncate,
} from '../../briefing/uk-format.ts';
import { money } from '../../briefing/uk-format.ts';

/** Kept for the proposal replies: the same UK form (£245,000; £1,395.50). */
export const moneyShort = money;

const LONDON_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' });
const LONDON_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});

/** "15 Jun, 08:24" (London time) for an ISO timestamp. */
export function formatTime(isoDateTime: string): string {
  return LONDON_TIME.format(new Date(isoDateTime)).replace('Sept', 'Sep');
}

/** Today's date in London (YYYY-MM-DD) at the given instant. */
export function londonDay(isoDateTime: string): string {
  return LONDON_DAY.format(new Date(isoDateTime));
}

type Addressed = Pick<PortfolioProperty, 'address'> | Pick<Property, 'address'>;

/** "16 Clarendon Road, Whalley Range, Manchester M16 8LD" */
export function addressLine(p: Addressed): string {
  const a = p.address;
  return [a.line1, a.line2, `${a.town} ${a.postcode}`].filter((x): x is string => !!x).join(', ');
}

/** "let", "notice given", "under offer"... */
export function words(snake: string): string {
  return snake.replace(/_/g, ' ');
}

export function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
