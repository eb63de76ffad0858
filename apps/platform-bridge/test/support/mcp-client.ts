import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_PATHS } from '@pa/contracts';

// The MCP SDK's own client over real HTTP, as an assistant's MCP client connects: the bridge's remote key as a
// bearer token, Streamable HTTP, `initialize` then calls. Every client made here is closed by `closeAll`.

export const MCP_PATH = MCP_PATHS.endpoint;

export interface McpHarness {
  /** a connected client with `key` (initialize done); `errors` gathers what its transport reports */
  connect(
    key: string,
    opts?: { headers?: Record<string, string>; fetch?: typeof fetch },
  ): Promise<McpTestClient>;
  closeAll(): Promise<void>;
}

export interface McpTestClient {
  client: Client;
  errors: Error[];
}

export function mcpHarness(baseUrl: () => string): McpHarness {
  const open: Client[] = [];
  return {
    async connect(key, opts = {}) {
      const errors: Error[] = [];
      const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl()}${MCP_PATH}`), {
        requestInit: { headers: { Authorization: `Bearer ${key}`, ...opts.headers } },
        ...(opts.fetch ? { fetch: opts.fetch } : {}),
      });
      const client = new Client({ name: 'bridge-tests', version: '1.0.0' });
      client.onerror = (err) => errors.push(err);
      await client.connect(transport);
      open.push(client);
      return { client, errors };
    },
    async closeAll() {
      await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
    },
  };
}

/** A raw POST to the MCP endpoint with the headers a client sends, for what the SDK's client never sends. */
export function mcpPost(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${baseUrl}${MCP_PATH}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

/** The problem details a tool error carries (its second text block). */
export function toolProblem(answer: object): Record<string, unknown> {
  const result = answer as { isError?: unknown; content?: unknown };
  if (result.isError !== true) throw new Error(`not a tool error: ${JSON.stringify(result).slice(0, 300)}`);
  const blocks = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(blocks[1]!.text) as Record<string, unknown>;
}
