import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';

// What a resource or prompt handler throws reaches the client as the JSON-RPC error's message, so a failure of
// ours (a database error, a bug) would tell the caller about our tables and go unlogged. The handlers' own answers
// to the caller are McpErrors and pass as they are; anything else is logged here and answered as the protocol's
// internal error, with nothing of its message.

export function answeringInternalErrors<Q extends { method: string }, R>(
  logger: Logger,
  context: Record<string, unknown>,
  handler: (request: Q) => R | Promise<R>,
): (request: Q) => Promise<R> {
  return async (request) => {
    try {
      return await handler(request);
    } catch (err) {
      if (err instanceof McpError) throw err;
      logger.error({ err, method: request.method, ...context }, 'MCP request failed');
      throw new McpError(ErrorCode.InternalError, 'Internal error');
    }
  };
}
