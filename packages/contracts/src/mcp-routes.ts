import {
  McpRequestBody,
  McpResponseBody,
  MCP_MAX_BATCH,
  MCP_MAX_BODY_BYTES,
  ProtectedResourceMetadata,
} from './mcp.ts';
import type { RouteSpec } from './routes.ts';
import { text } from './text.ts';

// The MCP endpoint of the bridge (issue 36) and what a standard MCP client reads before it: the RFC 9728 metadata
// and the guide it points at. Spread into bridgeRoutes (bridge-routes.ts) with the bridge's base path, which names
// each entry after its key.

export const OAUTH_PROTECTED_RESOURCE = '/.well-known/oauth-protected-resource';
export const MCP_GUIDE_PATH = '/docs/mcp';

/** The endpoint under the bridge's base, and where its RFC 9728 metadata lives (the well-known prefix + its path). */
export function mcpPaths(bridgeBase: string) {
  const endpoint = `${bridgeBase}/mcp`;
  return { endpoint, metadata: `${OAUTH_PROTECTED_RESOURCE}${endpoint}` };
}

const metadataAnswer = {
  200: {
    description: 'The metadata (also served at the path-suffixed well-known address)',
    schema: ProtectedResourceMetadata,
  },
};

export function mcpRoutes(bridgeBase: string) {
  const paths = mcpPaths(bridgeBase);
  return {
    mcp: {
      method: 'post',
      path: paths.endpoint,
      summary: 'The MCP endpoint: Streamable HTTP, stateless, JSON answers',
      description: [
        'The Model Context Protocol (https://modelcontextprotocol.io) over Streamable HTTP: each POST carries a JSON-RPC message (or a batch) and is answered with `application/json`; no session is kept (no `Mcp-Session-Id`), so every request is authenticated by itself, with the same key, tenant flag (`assistant_external_bridge`) and per-key budget as the REST reads. `GET` (an SSE stream) and `DELETE` (ending a session) are answered 405 `method-not-allowed`: a stateless server has neither.',
        '',
        'Tools are the bridge routes of this table, their input schema the route’s path, query and body schemas and their output schema its answer: reads need `bridge:read`; `propose_*` and `withdraw_proposal` need `bridge:propose` and the tenant flag `assistant_bridge_writes`, and a key without them does not see them in `tools/list`. Resources: `property://{id}` (a property with its compliance), listed page by page. Prompts: `weekly_compliance_review`, `owner_monthly_update`.',
        '',
        `The request must accept \`application/json\` and \`text/event-stream\` (else 406 \`not-acceptable\`) and be at most ${MCP_MAX_BODY_BYTES / 1024} KiB of JSON (413, 415). A browser's \`Origin\` must be one of MCP_ALLOWED_ORIGINS (default none; else 403 \`origin-not-allowed\`); requests without one (any non-browser client) pass. A 401 carries \`WWW-Authenticate: Bearer … resource_metadata="<origin>${paths.metadata}"\`.`,
        `A batch holds at most ${MCP_MAX_BATCH} messages (else 400 \`batch-too-large\`), and each request in it counts against the key's budget like a request of its own (429 \`rate-limited\` once the budget is spent).`,
      ].join('\n'),
      tags: ['mcp'],
      security: [{ remoteApiKey: [] }],
      headers: [
        {
          name: 'MCP-Protocol-Version',
          required: false,
          description:
            'The protocol version the client negotiated in `initialize` (every request after it); an unsupported one is answered 400 by the SDK.',
        },
      ],
      body: McpRequestBody,
      responses: {
        200: {
          description: 'The JSON-RPC response(s) to the request(s) of the body',
          schema: McpResponseBody,
        },
        202: { description: 'Accepted: the body held notifications or responses only' },
      },
      problems: {
        400: ['validation-failed', 'malformed-json', 'batch-too-large'],
        401: ['invalid-api-key'],
        403: ['origin-not-allowed'],
        404: ['bridge-not-enabled'],
        406: ['not-acceptable'],
        413: ['payload-too-large'],
        415: ['unsupported-media-type'],
        429: ['rate-limited'],
        503: ['database-unavailable'],
      },
    },
    mcpResourceMetadata: {
      method: 'get',
      path: paths.metadata,
      summary: 'OAuth protected-resource metadata of the MCP endpoint (RFC 9728)',
      description:
        'Public. Names the MCP endpoint as the resource, the scopes a bridge key may hold, that keys travel in the `Authorization` header, and the guide. Keys are made by the operator, not through OAuth, so no authorization server is listed.',
      tags: ['mcp'],
      responses: metadataAnswer,
    },
    oauthProtectedResource: {
      method: 'get',
      path: OAUTH_PROTECTED_RESOURCE,
      summary: 'OAuth protected-resource metadata at the host’s root address (RFC 9728)',
      description: 'The same document as the MCP endpoint’s own, for clients that look here first.',
      tags: ['mcp'],
      responses: metadataAnswer,
    },
    mcpGuide: {
      method: 'get',
      path: MCP_GUIDE_PATH,
      summary: 'The guide to connecting an MCP client (Markdown)',
      description:
        'Public; the metadata’s `resource_documentation` unless MCP_DOCUMENTATION_URL names another.',
      tags: ['mcp'],
      responses: {
        200: { description: 'The guide', contentType: 'text/markdown', schema: text() },
      },
      problems: { 404: ['not-found'] },
    },
  } as const satisfies Record<string, RouteSpec>;
}
