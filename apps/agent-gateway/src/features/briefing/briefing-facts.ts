import type { PortfolioProperty, PortfolioResponse } from '@pa/contracts';
import { type AttentionList, attentionList, attentionWindow } from './attention.ts';
import type { BriefingInput } from './briefing-input.ts';

export type { BriefingInput } from './briefing-input.ts';
import { vacancies } from './lettings-facts.ts';

type PortfolioSummary = PortfolioResponse['summary'];

/** How far ahead a briefing looks: certificates and notices a month, deal actions a week. */
export const BRIEFING_WINDOWS = { complianceDays: 30, dealDays: 7 } as const;

export interface BriefingFacts {
  tenantName: string;
  today: string;
  summary: PortfolioSummary;
  /** what needs attention in the next 30 days: the same list the chat's "what needs my attention?" gives */
  attention: AttentionList;
  voids: PortfolioProperty[];
}

export function briefingFacts(input: BriefingInput): BriefingFacts {
  const window = attentionWindow(input.today, 'days', BRIEFING_WINDOWS.complianceDays);
  return {
    tenantName: input.tenantName,
    today: input.today,
    summary: input.summary,
    attention: attentionList(input, window, { dealDays: BRIEFING_WINDOWS.dealDays }),
    voids: vacancies(input.properties).voids,
  };
}
