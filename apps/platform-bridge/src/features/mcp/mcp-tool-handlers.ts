import type { PortfolioComplianceService } from '../compliance/portfolio-compliance-service.ts';
import type { TenantCopiesService } from '../compliance/tenant-copies-service.ts';
import type { DealsService } from '../deals/deals-service.ts';
import type { EmailActivityService } from '../email-activity/email-activity-service.ts';
import type { KnowledgeSearchService } from '../knowledge/knowledge-search-service.ts';
import type { PortfolioService } from '../portfolio/portfolio-service.ts';
import type { PropertiesService } from '../properties/properties-service.ts';
import type { ProposalKind } from '../proposals/proposal-rules.ts';
import type { ProposalBody, ProposalsService } from '../proposals/proposals-service.ts';
import type { ToolInput } from './mcp-tool-arguments.ts';
import type { ToolRouteName } from './mcp-tool-table.ts';

// Each tool calls the service its route's REST router calls, with the same arguments (no HTTP loopback): the
// answer is the route's answer. Proposals made here record `mcp` as their channel in the proposal's audit entry.

/** The services the tools read and write through: the bridge router's own. */
export interface ToolServices {
  portfolio: PortfolioService;
  properties: PropertiesService;
  compliance: PortfolioComplianceService;
  copies: TenantCopiesService;
  deals: DealsService;
  email: EmailActivityService;
  proposals: ProposalsService;
  knowledgeSearch: KnowledgeSearchService;
}

/** Who calls: the key's tenant and the key, as the bridge's guard authenticated them. */
export interface ToolCaller {
  tenant: { id: number; slug: string; name: string };
  keyId: number;
}

export interface ToolAnswer {
  answer: object;
  /** a proposal's answer replayed from an earlier call with the same idempotency key */
  replayed?: boolean;
}

type Handlers = { [K in ToolRouteName]: (t: ToolInput<K>, c: ToolCaller) => Promise<ToolAnswer> };

const answered = async (answer: Promise<object>): Promise<ToolAnswer> => ({ answer: await answer });

export function createToolHandlers(s: ToolServices): Handlers {
  const submit =
    (kind: ProposalKind) =>
    async (
      t: ToolInput<'proposeDeal' | 'proposeComplianceUpdate' | 'proposeFinancialLog'>,
      c: ToolCaller,
    ) => {
      const a = await s.proposals.submit({
        tenantId: c.tenant.id,
        keyId: c.keyId,
        kind,
        idempotencyKey: t.idempotencyKey!,
        received: t.received,
        body: t.input.body as ProposalBody,
        channel: 'mcp',
      });
      return { answer: a.body, replayed: a.replayed };
    };

  return {
    getPortfolio: ({ input }, c) => answered(s.portfolio.getPortfolio(c.tenant, input.query)),
    getProperty: ({ input }, c) => answered(s.properties.getProperty(c.tenant.id, input.params.id)),
    getPropertyCompliance: ({ input }, c) =>
      answered(s.properties.getCompliance(c.tenant.id, input.params.id)),
    listPortfolioCompliance: ({ input }, c) => answered(s.compliance.list(c.tenant.id, input.query)),
    listTenantCopies: ({ input }, c) => answered(s.copies.list(c.tenant.id, input.query)),
    listDeals: ({ input }, c) => answered(s.deals.listDeals(c.tenant.id, input.query)),
    listEmailActivity: ({ input }, c) => answered(s.email.listActivity(c.tenant.id, input.query.hours)),
    searchKnowledge: ({ input }, c) => answered(s.knowledgeSearch.search(c.tenant.id, input.query)),
    listProposals: ({ input }, c) => answered(s.proposals.list(c.tenant.id, input.query)),
    getProposal: ({ input }, c) => answered(s.proposals.get(c.tenant.id, input.params.id)),
    proposeDeal: submit('deal'),
    proposeComplianceUpdate: submit('compliance_update'),
    proposeFinancialLog: submit('financial_log'),
    withdrawProposal: ({ input }, c) =>
      answered(s.proposals.withdraw(c.tenant.id, c.keyId, input.params.id, 'mcp')),
  };
}
export type ToolHandlers = ReturnType<typeof createToolHandlers>;
