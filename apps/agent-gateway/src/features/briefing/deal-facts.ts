import type { Deal } from '@pa/contracts';
import { daysBetween } from './dates.ts';

export interface DealAction {
  deal: Deal;
  action: string;
  dueDate: string;
  /** negative when overdue */
  days: number;
}

/** Open deals' next actions that are overdue or due within `withinDays`, most overdue first. */
export function dealActionsDue(deals: Deal[], today: string, withinDays: number): DealAction[] {
  const out: DealAction[] = [];
  for (const deal of deals) {
    if (deal.status !== 'open' || !deal.next_action || !deal.next_action_due) continue;
    const days = daysBetween(today, deal.next_action_due);
    if (days <= withinDays) out.push({ deal, action: deal.next_action, dueDate: deal.next_action_due, days });
  }
  return out.sort((a, b) => a.days - b.days || a.deal.id - b.deal.id);
}
