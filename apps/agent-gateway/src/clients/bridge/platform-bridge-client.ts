import {
  BRIDGE_BASE,
  bridgeRoutes,
  type ComplianceResponse,
  type ComplianceUpdateProposalBody,
  type DEAL_STATUS_FILTERS,
  type DealProposalBody,
  type DealsArgs,
  type DealsResponse,
  type EmailActivityArgs,
  type EmailActivityResponse,
  type FinancialLogProposalBody,
  type KnowledgeChangesArgs,
  type KnowledgeChangesResponse,
  type MailboxesResponse,
  type PortfolioArgs,
  type PortfolioComplianceArgs,
  type PortfolioComplianceResponse,
  type PortfolioResponse,
  type Property,
  type Proposal,
  type ProposalCreated,
  type ProposalsArgs,
  type ProposalsResponse,
  type TenantCopiesArgs,
  type TenantCopiesResponse,
} from '@pa/contracts';
import type { z } from 'zod';
import type { BridgePropose, BridgeRead, Values } from './bridge-arguments.ts';
import {
  type BridgeCallOptions,
  createBridgeTransport,
  type PlatformBridgeClientOptions,
  type ProposeCallOptions,
} from './bridge-transport.ts';

// The ONLY code in the gateway that talks to the platform bridge (/api/assistant-bridge/*, docs/bridge-api.md):
// one typed method per route of the bridge's route table, each answer parsed by its @pa/contracts schema. How a
// call travels and is retried is bridge-transport.ts; what a failure is, bridge-errors.ts.

export const BRIDGE_PATH = BRIDGE_BASE;

// The bridge's query parameters as typed arguments; left out, the bridge's defaults apply.
export type PortfolioQuery = PortfolioArgs;
export type PortfolioComplianceQuery = PortfolioComplianceArgs;
export type TenantCopiesQuery = TenantCopiesArgs;
export type DealsQuery = DealsArgs;
export type EmailActivityQuery = EmailActivityArgs;
export type ProposalsQuery = ProposalsArgs;
export type KnowledgeChangesQuery = KnowledgeChangesArgs;
// The proposal bodies as a caller writes them (defaults such as deal_type and vat_pence may be left out).
export type DealProposalInput = z.input<typeof DealProposalBody>;
export type ComplianceUpdateProposalInput = z.input<typeof ComplianceUpdateProposalBody>;
export type FinancialLogProposalInput = z.input<typeof FinancialLogProposalBody>;

export { DEAL_STATUS_FILTERS } from '@pa/contracts';
export type DealsStatusFilter = (typeof DEAL_STATUS_FILTERS)[number];

/** The bridge reads for one tenant's key. Every result has been parsed by its @pa/contracts schema. */
export interface PlatformBridgeClient {
  getPortfolio(query?: PortfolioQuery, call?: BridgeCallOptions): Promise<PortfolioResponse>;
  getProperty(id: number, call?: BridgeCallOptions): Promise<Property>;
  getCompliance(propertyId: number, call?: BridgeCallOptions): Promise<ComplianceResponse>;
  /**
   * The compliance needing attention across the whole portfolio, by property (one page; follow next_cursor):
   * the same verdicts as getCompliance for each property, in one call instead of one per property.
   */
  getPortfolioCompliance(
    query?: PortfolioComplianceQuery,
    call?: BridgeCallOptions,
  ): Promise<PortfolioComplianceResponse>;
  /**
   * The gas records and EICRs whose copy the tenant is owed (default: overdue), across the portfolio (one page;
   * follow next_cursor): valid certificates included, which getPortfolioCompliance leaves out.
   */
  getTenantCopies(query?: TenantCopiesQuery, call?: BridgeCallOptions): Promise<TenantCopiesResponse>;
  getDeals(query?: DealsQuery, call?: BridgeCallOptions): Promise<DealsResponse>;
  getEmailActivity(query?: EmailActivityQuery, call?: BridgeCallOptions): Promise<EmailActivityResponse>;
  getMailboxes(call?: BridgeCallOptions): Promise<MailboxesResponse>;
  /** The tenant's proposals, newest first (needs bridge:read only). */
  listProposals(query?: ProposalsQuery, call?: BridgeCallOptions): Promise<ProposalsResponse>;
  getProposal(id: number, call?: BridgeCallOptions): Promise<Proposal>;
  /**
   * The tenant's knowledge documents changed since `cursor` (none: the whole corpus), one page: pass next_cursor
   * back next time (always returned), and read again at once while has_more.
   */
  getKnowledgeChanges(
    query?: KnowledgeChangesQuery,
    call?: BridgeCallOptions,
  ): Promise<KnowledgeChangesResponse>;
  /** Submits a proposal for review (needs bridge:propose and the tenant's writes flag); creates no record. */
  proposeDeal(body: DealProposalInput, call?: ProposeCallOptions): Promise<ProposalCreated>;
  proposeComplianceUpdate(
    body: ComplianceUpdateProposalInput,
    call?: ProposeCallOptions,
  ): Promise<ProposalCreated>;
  proposeFinancialLog(body: FinancialLogProposalInput, call?: ProposeCallOptions): Promise<ProposalCreated>;
  /** `plat_…abcd`-style hint for logs; never the key. */
  readonly keyPreview: string;
}

/**
 * `createPlatformBridgeClient(opts)` returns `forKey`: call it (or its `.forKey`) with a tenant's remote API
 * key to get that tenant's client. Settings and the HTTP agent are shared; the key is bound once, so tools
 * cannot mix keys and no method signature carries it.
 */
export type PlatformBridge = ((apiKey: string) => PlatformBridgeClient) & {
  forKey(apiKey: string): PlatformBridgeClient;
  readonly baseUrl: string;
};

export function createPlatformBridgeClient(options: PlatformBridgeClientOptions): PlatformBridge {
  const transport = createBridgeTransport(options);

  function forKey(apiKey: string): PlatformBridgeClient {
    const read = <R extends BridgeRead>(route: R, params: Values, query: Values, call?: BridgeCallOptions) =>
      transport.read(route, params, query, apiKey, call ?? {});
    const propose = (route: BridgePropose, body: unknown, call?: ProposeCallOptions) =>
      transport.propose(route, body, apiKey, call ?? {});

    // async, so that arguments refused before sending reject like every other failure.
    return {
      keyPreview: previewKey(apiKey),
      getPortfolio: async (query = {}, call) => read(bridgeRoutes.getPortfolio, {}, query, call),
      getProperty: async (id, call) => read(bridgeRoutes.getProperty, { id }, {}, call),
      getCompliance: async (propertyId, call) =>
        read(bridgeRoutes.getPropertyCompliance, { id: propertyId }, {}, call),
      getPortfolioCompliance: async (query = {}, call) =>
        read(bridgeRoutes.listPortfolioCompliance, {}, query, call),
      getTenantCopies: async (query = {}, call) => read(bridgeRoutes.listTenantCopies, {}, query, call),
      getDeals: async (query = {}, call) => read(bridgeRoutes.listDeals, {}, query, call),
      getEmailActivity: async (query = {}, call) => read(bridgeRoutes.listEmailActivity, {}, query, call),
      getMailboxes: async (call) => read(bridgeRoutes.listMailboxes, {}, {}, call),
      listProposals: async (query = {}, call) => read(bridgeRoutes.listProposals, {}, query, call),
      getProposal: async (id, call) => read(bridgeRoutes.getProposal, { id }, {}, call),
      getKnowledgeChanges: async (query = {}, call) =>
        read(bridgeRoutes.getKnowledgeChanges, {}, query, call),
      proposeDeal: async (body, call) => propose(bridgeRoutes.proposeDeal, body, call),
      proposeComplianceUpdate: async (body, call) =>
        propose(bridgeRoutes.proposeComplianceUpdate, body, call),
      proposeFinancialLog: async (body, call) => propose(bridgeRoutes.proposeFinancialLog, body, call),
    };
  }

  const bridge = forKey as PlatformBridge;
  Object.defineProperty(bridge, 'forKey', { value: forKey, enumerable: true });
  Object.defineProperty(bridge, 'baseUrl', { value: transport.baseUrl, enumerable: true });
  return bridge;
}

/** The bridge's own non-secret lookup prefix (`plat_` + 8 characters, as its key listings show), else nothing. */
function previewKey(apiKey: string): string {
  return /^plat_[0-9A-Za-z]{38}$/.test(apiKey) ? `${apiKey.slice(0, 13)}…` : '(unrecognised key)';
}
