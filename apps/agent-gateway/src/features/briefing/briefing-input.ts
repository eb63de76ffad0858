import type { Deal, PortfolioProperty, PortfolioResponse, TenantCopyOwed } from '@pa/contracts';
import type { PropertyCompliance } from './compliance-facts.ts';
import type { MailItem } from './email-facts.ts';

// What a briefing and the attention list are computed from: the bridge's records as briefing-data.ts reads them.

export interface BriefingInput {
  tenantName: string;
  /** London date, YYYY-MM-DD */
  today: string;
  summary: PortfolioResponse['summary'];
  properties: PortfolioProperty[];
  /** compliance of the properties whose status is not valid (others hold nothing to report) */
  compliance: PropertyCompliance[];
  deals: Deal[];
  /** the last 24 hours of email: the platform's, and the assistant's own mailboxes' (labelled by source) */
  emails: MailItem[];
  /**
   * the gas records and EICRs whose copy the tenant is owed (due or overdue), valid certificates included, when
   * they were read (the compliance items above carry the same verdicts for the items they hold)
   */
  copies?: TenantCopyOwed[];
  /** let properties whose tenant copies were not read (the chat reads a bounded number of pages) */
  copiesUnchecked?: number;
}
