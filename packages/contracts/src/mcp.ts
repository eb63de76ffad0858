import { z } from 'zod';
import { text } from './text.ts';

// The bridge as a Model Context Protocol server (issue 36): what its endpoint takes and answers at the HTTP level,
// and the OAuth protected-resource metadata (RFC 9728) that tells a standard client where it is and which scopes
// exist. The messages themselves are the MCP SDK's business; here they are checked only as far as JSON-RPC 2.0
// goes, so that anything else is refused as a problem before it reaches the SDK.

/** The largest request body the endpoint reads (a tool call's arguments are small; a proposal at most a few KiB). */
export const MCP_MAX_BODY_BYTES = 256 * 1024;
/** The most messages a batch may hold (400 `batch-too-large`); each request in it counts against the key's budget. */
export const MCP_MAX_BATCH = 10;
/** the scopes a bridge key may hold, as the metadata lists them */
export const BRIDGE_SCOPES = ['bridge:read', 'bridge:propose'] as const;

const JsonRpcId = z.union([text().max(256), z.number().int()]);
const jsonrpc = z.literal('2.0');
const method = text().min(1).max(256);
const params = z.looseObject({});

export const JsonRpcRequest = z.looseObject({ jsonrpc, id: JsonRpcId, method, params: params.optional() });
export const JsonRpcNotification = z.looseObject({ jsonrpc, method, params: params.optional() });
export const JsonRpcResult = z.looseObject({ jsonrpc, id: JsonRpcId, result: z.looseObject({}) });
export const JsonRpcError = z.looseObject({
  jsonrpc,
  id: JsonRpcId.nullable(),
  error: z.looseObject({ code: z.number().int(), message: text() }),
});
export const JsonRpcMessage = z.union([JsonRpcRequest, JsonRpcNotification, JsonRpcResult, JsonRpcError]);

/** One message, or a batch of them (protocol versions before 2025-06-18; the SDK still takes them). */
export const McpRequestBody = z.union([JsonRpcMessage, z.array(JsonRpcMessage).min(1).max(MCP_MAX_BATCH)]);
/** The answer to a body holding requests: one response, or one per request of a batch. */
export const McpResponseBody = z.union([
  JsonRpcResult,
  JsonRpcError,
  z.array(z.union([JsonRpcResult, JsonRpcError])),
]);

// No `authorization_servers`: keys are issued by the operator (`npm run platform -- keys create`) and sent as bearer
// tokens, not obtained through OAuth; a client reads here which scopes exist and where the guide is.
export const ProtectedResourceMetadata = z.strictObject({
  resource: text().describe('the MCP endpoint: the resource a key is for'),
  scopes_supported: z.array(text()),
  bearer_methods_supported: z.array(z.literal('header')),
  resource_name: text(),
  resource_documentation: text().describe('the guide to connecting an MCP client'),
});

export type McpRequestBody = z.infer<typeof McpRequestBody>;
export type ProtectedResourceMetadata = z.infer<typeof ProtectedResourceMetadata>;
