import {
  McpError,
  type ListResourcesResult,
  type ReadResourceResult,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError, NotFound } from '@pa/http-kit';
import type { PortfolioService } from '../portfolio/portfolio-service.ts';
import type { PropertiesService } from '../properties/properties-service.ts';
import type { McpCaller } from './mcp-tool-calls.ts';

// The tenant's properties as MCP resources: `property://{id}` reads a property with its compliance (the two REST
// reads in one JSON document), and resources/list pages through the portfolio with the bridge's own cursor. Both
// need `bridge:read`, as the reads do.

/** MCP's error code for a resource that does not exist (or is another tenant's: the same to the caller). */
export const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;
const PAGE = 100;
const URI = /^property:\/\/([1-9][0-9]{0,9})$/;

export const PROPERTY_TEMPLATE: ResourceTemplate = {
  uriTemplate: 'property://{id}',
  name: 'property',
  title: 'A property with its compliance',
  description:
    "One of the tenant's properties (address, tenancy, rent and arrears, compliance summary) with its compliance items and the required types it has none of, as of now. `id` is the property's id, as the portfolio and the resource list give it.",
  mimeType: 'application/json',
};

function readable(caller: McpCaller): void {
  if (!caller.scopes.has('bridge:read')) {
    throw new McpError(INVALID_PARAMS, 'Reading properties needs a key with the `bridge:read` scope.');
  }
}

export function createMcpResources(deps: { portfolio: PortfolioService; properties: PropertiesService }) {
  return {
    templates: (caller: McpCaller) => (caller.scopes.has('bridge:read') ? [PROPERTY_TEMPLATE] : []),

    async list(caller: McpCaller, cursor: string | undefined): Promise<ListResourcesResult> {
      if (!caller.scopes.has('bridge:read')) return { resources: [] };
      let page;
      try {
        page = await deps.portfolio.getPortfolio(caller.tenant, { limit: PAGE, cursor });
      } catch (err) {
        // a cursor that is not one of ours: the protocol's invalid params
        if (err instanceof AppError && err.code === 'validation-failed') {
          throw new McpError(INVALID_PARAMS, 'The cursor is not one this server gave.');
        }
        throw err;
      }
      return {
        resources: page.properties.map((p) => ({
          uri: `property://${p.id}`,
          name: p.ref,
          title: `${p.ref}: ${p.address.line1}, ${p.address.town} ${p.address.postcode}`,
          description: `${p.property_type}, ${p.letting_status.replace(/_/g, ' ')}, compliance ${p.compliance_status.replace(/_/g, ' ')}`,
          mimeType: 'application/json',
        })),
        ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}),
      };
    },

    async read(caller: McpCaller, uri: string): Promise<ReadResourceResult> {
      readable(caller);
      const m = URI.exec(uri);
      const id = m ? Number(m[1]) : NaN;
      if (!m || id > 2_147_483_647) {
        throw new McpError(INVALID_PARAMS, `Not a property resource: ${uri} (expected property://{id}).`);
      }
      try {
        const [property, compliance] = await Promise.all([
          deps.properties.getProperty(caller.tenant.id, id),
          deps.properties.getCompliance(caller.tenant.id, id),
        ]);
        return {
          contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ property, compliance }) }],
        };
      } catch (err) {
        if (err instanceof NotFound) throw new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });
        throw err;
      }
    },
  };
}
export type McpResources = ReturnType<typeof createMcpResources>;
