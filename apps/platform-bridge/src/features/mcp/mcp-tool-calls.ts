import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { FeatureDisabled, Forbidden } from '@pa/http-kit';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';
import type { McpAuditWriter } from './mcp-audit-writer.ts';
import { parseToolArguments } from './mcp-tool-arguments.ts';
import type { ToolSpec } from './mcp-tool-definitions.ts';
import type { ToolCaller, ToolHandlers } from './mcp-tool-handlers.ts';
import { problemFor, toolError, type ToolProblem, toolSuccess } from './mcp-tool-results.ts';

// tools/list and tools/call for one caller. A key sees the tools its scopes (and its tenant's writes flag) allow.
// A tool it cannot see, called anyway, answers a tool error naming what is missing (403 insufficient-scope, or 404
// writes-not-enabled), as the REST route would: a tool error reaches the model, which can tell the person which
// key to ask for, where a protocol error is usually only logged by the client. An unknown name is the protocol
// error the SDK's own servers answer (-32602).

export interface McpCaller extends ToolCaller {
  scopes: ReadonlySet<string>;
  /** the tenant's assistant_bridge_writes flag */
  writes: boolean;
}

const MAX_ID_CHARS = 64;
// a tool's schema names a handful of ids; the cap bounds the audit line whatever the schema grows to
const MAX_IDS = 8;
const CANCELLED = 'cancelled';

/**
 * The ids among a call's arguments: `id`, `…_id`, `property`, whichever are numbers or short strings. Only the
 * tool's own input properties are read: the arguments are the caller's, unvalidated here (a call is audited even
 * when its arguments are refused), and other keys would let it write what it likes into the audit.
 */
function idsOf(spec: ToolSpec, args: Record<string, unknown> | undefined): Record<string, number | string> {
  const ids: Record<string, number | string> = {};
  const known = spec.definition.inputSchema.properties ?? {};
  let count = 0;
  for (const [k, v] of Object.entries(args ?? {})) {
    if (count >= MAX_IDS) break;
    if (k !== 'id' && k !== 'property' && !k.endsWith('_id')) continue;
    if (!Object.hasOwn(known, k)) continue;
    if (typeof v === 'number' && Number.isFinite(v)) ids[k] = v;
    else if (typeof v === 'string') ids[k] = v.slice(0, MAX_ID_CHARS);
    else continue;
    count++;
  }
  return ids;
}

function refusal(spec: ToolSpec, caller: McpCaller): Error | undefined {
  // the writes flag before the scope, as on the REST routes: to a tenant without writes they are not there
  if (spec.access.writes && !caller.writes) {
    return new FeatureDisabled('writes-not-enabled', 'Proposals are not enabled for this tenant.');
  }
  if (!caller.scopes.has(spec.access.scope)) {
    return new Forbidden(
      'insufficient-scope',
      `This tool needs a key with the \`${spec.access.scope}\` scope.`,
      {
        realm: 'assistant-bridge',
        error: 'insufficient_scope',
        scope: spec.access.scope,
      },
    );
  }
  return undefined;
}

export function createToolCalls(deps: {
  specs: ReadonlyMap<string, ToolSpec>;
  handlers: ToolHandlers;
  audit: McpAuditWriter;
  clock: Clock;
  logger: Logger;
}) {
  const { specs, handlers, audit, clock, logger } = deps;
  // the lists differ only by what the caller may use: one per combination, made on first use
  const lists = new Map<string, Tool[]>();

  return {
    visible(caller: McpCaller): Tool[] {
      const key = `${[...caller.scopes].sort().join(' ')}|${caller.writes}`;
      let list = lists.get(key);
      if (!list) {
        list = [...specs.values()].filter((s) => !refusal(s, caller)).map((s) => s.definition);
        lists.set(key, list);
      }
      return list;
    },

    /** Runs the tool; a cancelled call (`signal`) stops before its answer and answers nothing. */
    async call(
      caller: McpCaller,
      name: string,
      args: Record<string, unknown> | undefined,
      signal: AbortSignal,
    ): Promise<CallToolResult> {
      const spec = specs.get(name);
      if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const started = performance.now();
      const ids = idsOf(spec, args);
      let status = 'ok';
      try {
        const refused = refusal(spec, caller);
        if (refused) throw refused;
        const parsed = parseToolArguments(spec, args);
        signal.throwIfAborted();
        const out = await handlers[spec.routeName](parsed as never, caller);
        signal.throwIfAborted();
        const made = (out.answer as { proposal_id?: unknown }).proposal_id;
        if (spec.access.writes && typeof made === 'number') ids.proposal_id = made;
        return toolSuccess(
          spec.definition.title ?? spec.name,
          out.answer,
          out.replayed
            ? 'The same idempotency_key was used before: this is the first answer again.'
            : undefined,
        );
      } catch (err) {
        // the SDK answers nothing for a cancelled request; this only ends the handler
        if (signal.aborted) {
          status = CANCELLED;
          throw err;
        }
        const problem: ToolProblem = problemFor(err);
        status = problem.code;
        if (problem.status >= 500)
          logger.error({ err, tool: name, tenant: caller.tenant.slug }, 'MCP tool failed');
        return toolError(problem);
      } finally {
        audit.record({
          tenantId: caller.tenant.id,
          apiKeyId: caller.keyId,
          tool: name,
          ids,
          status,
          durationMs: Math.round(performance.now() - started),
          at: clock.now(),
        });
      }
    },
  };
}
export type ToolCalls = ReturnType<typeof createToolCalls>;
