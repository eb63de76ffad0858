import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Logger } from 'pino';
import type { CallRegistry } from './mcp-cancellation.ts';
import { answeringInternalErrors } from './mcp-internal-errors.ts';
import type { McpPrompts } from './mcp-prompts.ts';
import type { McpResources } from './mcp-resources.ts';
import type { McpCaller, ToolCalls } from './mcp-tool-calls.ts';

// One MCP server per HTTP request, as the SDK's stateless mode wants (a transport serves one request), built from
// parts made once at start: the tool definitions, their handlers, the schema validator (the SDK would otherwise
// build an Ajv instance per server). What is left per request is a handful of handler registrations.

export const SERVER_INFO = { name: 'property-platform-bridge', title: 'Property platform', version: '1.0.0' };

const INSTRUCTIONS = [
  "These tools read one letting agency's portfolio on its property platform: properties, tenancies, compliance, deals, email activity and the agency's knowledge documents.",
  'Tools whose names start with `propose_` submit a proposal; nothing changes until a person approves it in the review queue. Tell the person so, and never present a proposal as done.',
  'Money is in integer pence; dates are judged in Europe/London. Lists come in pages: pass `next_cursor` back as `cursor`.',
].join(' ');

export interface SessionParts {
  tools: ToolCalls;
  resources: McpResources;
  prompts: McpPrompts;
  registry: CallRegistry;
  validator: jsonSchemaValidator;
  /** where a resource or prompt handler's own failure is logged (mcp-internal-errors.ts) */
  logger: Logger;
}

/**
 * The server answering one request of `caller`. `onCancel` is called when one of its calls is cancelled by the
 * client (a `notifications/cancelled` naming it, which arrives in another request): the endpoint then closes this
 * server, which aborts the call's signal, and ends the HTTP answer without a response.
 */
export function createMcpSession(parts: SessionParts, caller: McpCaller, onCancel: () => void): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, prompts: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: parts.validator,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: parts.tools.visible(caller) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const untrack = parts.registry.track(caller.keyId, extra.requestId, onCancel);
    try {
      return await parts.tools.call(caller, request.params.name, request.params.arguments, extra.signal);
    } finally {
      untrack();
    }
  });
  // replaces the SDK's own handler, which knows only this server's requests
  server.setNotificationHandler(CancelledNotificationSchema, (n) => {
    if (n.params.requestId !== undefined)
      parts.registry.cancel(caller.keyId, n.params.requestId, n.params.reason);
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: parts.resources.templates(caller),
  }));
  const guarded = <Q extends { method: string }, R>(handler: (request: Q) => R | Promise<R>) =>
    answeringInternalErrors(parts.logger, { tenant: caller.tenant.slug, keyId: caller.keyId }, handler);
  server.setRequestHandler(
    ListResourcesRequestSchema,
    guarded((request) => parts.resources.list(caller, request.params?.cursor)),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    guarded((request) => parts.resources.read(caller, request.params.uri)),
  );

  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: parts.prompts.list(caller) }));
  server.setRequestHandler(
    GetPromptRequestSchema,
    guarded((request) => parts.prompts.get(caller, request.params.name, request.params.arguments)),
  );
  return server;
}
