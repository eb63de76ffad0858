import type { bridgeRoutes } from '@pa/contracts';
import type { RemoteScope } from '../auth/scopes.ts';

// Which bridge routes are MCP tools, and what a key needs to see and call each: the same scope as the route's REST
// router asks (requireScope), and for the proposal writes the tenant flag `assistant_bridge_writes` as well. Names,
// schemas and descriptions all come from the route itself (mcp-tool-definitions.ts). Left out: the mailboxes
// (the platform's own polling, of no use to an assistant) and the knowledge sync (a copy's cursor).

export interface ToolAccess {
  scope: RemoteScope;
  /** a write: needs the tenant flag assistant_bridge_writes, and is a proposal for a person to approve */
  writes: boolean;
}

const read = { scope: 'bridge:read', writes: false } as const;
const propose = { scope: 'bridge:propose', writes: true } as const;

export const TOOL_ROUTES = {
  getPortfolio: read,
  getProperty: read,
  getPropertyCompliance: read,
  listPortfolioCompliance: read,
  listTenantCopies: read,
  listDeals: read,
  listEmailActivity: read,
  searchKnowledge: read,
  listProposals: read,
  getProposal: read,
  proposeDeal: propose,
  proposeComplianceUpdate: propose,
  proposeFinancialLog: propose,
  withdrawProposal: propose,
} as const satisfies Partial<Record<keyof typeof bridgeRoutes, ToolAccess>>;

export type ToolRouteName = keyof typeof TOOL_ROUTES;
export type ToolRoute<K extends ToolRouteName = ToolRouteName> = (typeof bridgeRoutes)[K];

/** A route's operationId in snake_case, the tool's name: `getPortfolio` → `get_portfolio`. */
export function toolNameOf(operationId: string): string {
  return operationId.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export const TOOL_ROUTE_NAMES = Object.keys(TOOL_ROUTES) as ToolRouteName[];
