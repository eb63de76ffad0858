import type { Clock } from '../lib/clock.ts';
import { type ArrearsDayRow, buildArrearsHistory } from './demo-arrears.ts';
import { createCalendar, type DemoCalendar } from './demo-calendar.ts';
import { buildDeals, type DealRow } from './demo-deals.ts';
import { ACCOUNTS_MAILBOX, buildEmails, type EmailRow, LETTINGS_MAILBOX } from './demo-emails.ts';
import { buildFinance, type FinanceRow } from './demo-finance.ts';
import { buildPortfolio, type Portfolio } from './demo-portfolio.ts';
import { buildProposals, type ProposalPlan } from './demo-proposals.ts';

// The whole demo as plain rows, computed from the clock alone (no database), so that it can be checked
// and reasoned about apart from the writing. See docs/operations.md, "The demo".

export const DEMO_TENANT_SLUG = 'demo-lettings';
export const DEMO_TENANT_NAME = 'Demo Lettings Ltd';
export const DEMO_MAILBOXES = [LETTINGS_MAILBOX, ACCOUNTS_MAILBOX];
/** Flags the demo turns on; every other flag is created off. */
export const DEMO_FLAGS_ON = [
  'assistant_external_bridge',
  'assistant_bridge_writes',
  'assistant_bridge_review_queue',
] as const;

export interface DemoPlan {
  calendar: DemoCalendar;
  portfolio: Portfolio;
  arrears: ArrearsDayRow[];
  deals: DealRow[];
  emails: EmailRow[];
  finance: FinanceRow[];
  proposals: ProposalPlan[];
}

export function buildDemoPlan(clock: Clock): DemoPlan {
  const calendar = createCalendar(clock);
  const portfolio = buildPortfolio(calendar);
  return {
    calendar,
    portfolio,
    arrears: buildArrearsHistory(calendar, portfolio),
    deals: buildDeals(calendar),
    emails: buildEmails(calendar, portfolio),
    finance: buildFinance(calendar, portfolio),
    proposals: buildProposals(calendar, portfolio),
  };
}
