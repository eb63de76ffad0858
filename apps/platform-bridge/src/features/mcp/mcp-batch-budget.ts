import { MCP_MAX_BATCH } from '@pa/contracts';
import { ValidationFailed } from '@pa/http-kit';
import type { RequestHandler } from 'express';
import type { KeyBudget } from '../auth/key-rate-limit.ts';
import { requestIdsOf } from './mcp-json-transport.ts';

// A JSON-RPC batch is many calls in one POST: the bridge's guard counts the POST once, so without this a key could
// make a hundred tool calls for the price of one. Runs once the body is read (mcp-json-body.ts), before the SDK:
// a batch longer than MCP_MAX_BATCH is refused, and each request after the first is charged to the key's budget
// (notifications and responses are not calls, and cost nothing more).

export function mcpBatchBudget(charge: KeyBudget['charge']): RequestHandler {
  return (req, _res, next) => {
    if (!Array.isArray(req.body)) {
      next();
      return;
    }
    if (req.body.length > MCP_MAX_BATCH) {
      throw new ValidationFailed(
        [],
        `A batch may hold at most ${MCP_MAX_BATCH} messages; this one holds ${req.body.length}. Send fewer at a time.`,
        { code: 'batch-too-large', title: 'Batch too large' },
      );
    }
    const extra = requestIdsOf(req.body).length - 1;
    if (extra <= 0) {
      next();
      return;
    }
    charge(req, extra).then(() => next(), next);
  };
}
