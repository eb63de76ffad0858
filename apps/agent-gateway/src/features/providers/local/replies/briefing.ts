import type {
  DealsResponse,
  PortfolioComplianceResponse,
  PortfolioResponse,
  TenantCopiesResponse,
} from '@pa/contracts';
import {
  type BriefingPaging,
  type BriefingReads,
  fetchBriefingData,
} from '../../../briefing/briefing-data.ts';
import { briefingFacts } from '../../../briefing/briefing-facts.ts';
import { writeBriefing } from '../../../briefing/briefing-writer.ts';
import { PLATFORM_TOOL_NAMES } from '../../../tools/platform-tools.ts';
import type { PlatformReader } from '../platform-reader.ts';

// Small pages: each is one tool result, and a tool's result is capped (20,000 characters). Ten properties'
// compliance needing attention fit with room to spare; what a trimmed page leaves out is read per property.
export const CHAT_PAGING: BriefingPaging = {
  portfolio: { limit: 100, maxPages: 20 },
  compliance: { limit: 10, maxPages: 10 },
  deals: { limit: 50, maxPages: 5 },
};

/**
 * The daily briefing: the daily summary's reads (features/briefing), made through the turn's toolbox, written by
 * the shared writer. A list longer than the pages read is cut: the answer must come within the turn.
 */
export async function briefingReply(reader: PlatformReader): Promise<string> {
  const data = await fetchBriefingData(toolboxReads(reader), {
    paging: CHAT_PAGING,
    whole: false,
    tenantCopies: true,
  });
  return writeBriefing(briefingFacts(data));
}

/** The briefing's reads as the worker's tools answer them. */
export function toolboxReads(reader: PlatformReader): BriefingReads {
  return {
    getPortfolio: (query) => reader.call<PortfolioResponse>(PLATFORM_TOOL_NAMES.portfolio, query),
    getPortfolioCompliance: (query) =>
      reader.call<PortfolioComplianceResponse>(PLATFORM_TOOL_NAMES.compliance, query),
    getCompliance: (propertyId) => reader.complianceOf(propertyId),
    getTenantCopies: (query) => reader.call<TenantCopiesResponse>(PLATFORM_TOOL_NAMES.tenantCopies, query),
    getDeals: (query) => reader.call<DealsResponse>(PLATFORM_TOOL_NAMES.deals, query),
    getWorkerEmailActivity: ({ hours }) => reader.emails(hours),
  };
}
