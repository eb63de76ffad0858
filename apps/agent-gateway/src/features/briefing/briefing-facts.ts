import type { Deal, PortfolioProperty, PortfolioResponse } from '@pa/contracts';

type PortfolioSummary = PortfolioResponse['summary'];
import {
  type ComplianceFinding,
  complianceFindings,
  needingAttention,
  type PropertyCompliance,
} from './compliance-facts.ts';
import { addDays } from './dates.ts';
import { type DealAction, dealActionsDue } from './deal-facts.ts';
import { emailsAwaitingReply, type MailItem, mixedSources } from './email-facts.ts';
import { arrearsByProperty, tenanciesEnding, type TenancyEnding, vacancies } from './lettings-facts.ts';

/** How far ahead a briefing looks. */
export const BRIEFING_WINDOWS = { complianceDays: 30, tenancyDays: 60, dealDays: 7 } as const;

export interface BriefingInput {
  tenantName: string;
  /** London date, YYYY-MM-DD */
  today: string;
  summary: PortfolioSummary;
  properties: PortfolioProperty[];
  /** compliance of the properties whose status is not valid (others hold nothing to report) */
  compliance: PropertyCompliance[];
  deals: Deal[];
  /** the last 24 hours of email: the platform's, and the assistant's own mailboxes' (labelled by source) */
  emails: MailItem[];
}

export interface BriefingFacts {
  tenantName: string;
  today: string;
  summary: PortfolioSummary;
  expired: ComplianceFinding[];
  missing: ComplianceFinding[];
  expiringSoon: ComplianceFinding[];
  arrears: PortfolioProperty[];
  tenanciesEnding: TenancyEnding[];
  voids: PortfolioProperty[];
  dealActions: DealAction[];
  emailsAwaiting: MailItem[];
  /** some mail came from the assistant's own mailboxes: each message says where it was read */
  emailSourcesNamed: boolean;
}

export function briefingFacts(input: BriefingInput): BriefingFacts {
  const { today } = input;
  const attention = needingAttention(complianceFindings(input.compliance, today));
  return {
    tenantName: input.tenantName,
    today,
    summary: input.summary,
    expired: attention.filter((f) => f.status === 'expired'),
    missing: attention.filter((f) => f.status === 'missing'),
    expiringSoon: attention.filter(
      (f) => f.status === 'expiring' && f.days !== null && f.days <= BRIEFING_WINDOWS.complianceDays,
    ),
    arrears: arrearsByProperty(input.properties),
    tenanciesEnding: tenanciesEnding(input.properties, today, addDays(today, BRIEFING_WINDOWS.tenancyDays)),
    voids: vacancies(input.properties).voids,
    dealActions: dealActionsDue(input.deals, today, BRIEFING_WINDOWS.dealDays),
    emailsAwaiting: emailsAwaitingReply(input.emails).awaiting,
    emailSourcesNamed: mixedSources(input.emails),
  };
}
