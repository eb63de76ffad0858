import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { MethodNotAllowed, NotAcceptable, registerRoute, requireJson } from '@pa/http-kit';
import { type ErrorRequestHandler, type Request, type RequestHandler, type Response, Router } from 'express';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';
import type { AuthContext } from '../auth/authenticate.ts';
import type { KeyBudget } from '../auth/key-rate-limit.ts';
import type { McpAuditWriter } from './mcp-audit-writer.ts';
import { mcpBatchBudget } from './mcp-batch-budget.ts';
import { createCallRegistry } from './mcp-cancellation.ts';
import { mcpOriginCheck } from './mcp-origin.ts';
import { mcpProblems } from './mcp-problems.ts';
import { mcpJsonBody } from './mcp-json-body.ts';
import { type JsonAnswer, JsonAnswerTransport, requestIdsOf } from './mcp-json-transport.ts';
import { createMcpPrompts } from './mcp-prompts.ts';
import type { McpPropertyLookup } from './mcp-property-lookup.ts';
import { createMcpResources } from './mcp-resources.ts';
import { createMcpSession, type SessionParts } from './mcp-session.ts';
import { createToolCalls, type McpCaller } from './mcp-tool-calls.ts';
import { buildToolSpecs } from './mcp-tool-definitions.ts';
import { createToolHandlers, type ToolServices } from './mcp-tool-handlers.ts';

// POST /api/assistant-bridge/mcp (bridgeRoutes.mcp): the MCP SDK's Streamable HTTP transport, stateless (no session
// id) and answering JSON. Mounted inside the bridge router: `edge` before its guard (the Origin check must not
// depend on the key), `router` after it (key, tenant flag, per-key budget, as for the REST reads), `problems` last.
// The SDK's web-standard transport is driven directly rather than through its Node wrapper: one writer of the HTTP
// answer, which a cancelled call needs (the answer is then an SSE stream closed without a response, which a client
// reads as "no answer", where a JSON body must hold one), no per-request adapter, and the responses written as
// they are (mcp-json-transport.ts) rather than read back from a web Response.

export interface McpEndpointDeps extends ToolServices {
  lookup: McpPropertyLookup;
  audit: McpAuditWriter;
  clock: Clock;
  logger: Logger;
  /** MCP_ALLOWED_ORIGINS: browser origins that may call; requests without an Origin always may */
  allowedOrigins: readonly string[];
  /** PLATFORM_PUBLIC_URL, else each request's own origin */
  publicBaseUrl: string | undefined;
  /** charges a batch's further requests to the key's budget (the bridge's guard counts the POST once) */
  charge: KeyBudget['charge'];
}

export interface McpEndpoint {
  /** the endpoint's path under the bridge's base */
  path: string;
  /** before the bridge's guard, on `path` */
  edge: RequestHandler;
  /** after the guard */
  router: Router;
  /** the error handler, on `path` after every router (errors do not enter a nested router's handlers) */
  problems: ErrorRequestHandler;
}

const PATH = bridgeRoutes.mcp.path.slice(BRIDGE_BASE.length);
// the request headers the transport reads (its checks, and requestInfo)
const FORWARDED = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

// As the transport checks it (a substring check): a client must take both, and is answered JSON.
const acceptsJsonAndSse: RequestHandler = (req, _res, next) => {
  const accept = req.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new NotAcceptable(
      'not-acceptable',
      'The Accept header must list both application/json and text/event-stream (MCP Streamable HTTP).',
    );
  }
  next();
};

function callerOf(auth: AuthContext): McpCaller {
  return {
    tenant: { id: auth.tenantId, slug: auth.tenantSlug, name: auth.tenantName },
    keyId: auth.keyId,
    scopes: new Set(auth.scopes),
    writes: auth.flags.has('assistant_bridge_writes'),
  };
}

// What the transport reads of a request whose body is already parsed: its method, URL and headers. A full web
// Request (an AbortController, a body stream, WebIDL conversions) would cost more than the rest of the call's setup.
function webRequest(req: Request): globalThis.Request {
  const headers = new Headers();
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  const url = `http://bridge.invalid${req.originalUrl.startsWith('/') ? req.originalUrl : '/'}`;
  return { method: 'POST', url, headers } as unknown as globalThis.Request;
}

async function send(res: Response, answer: globalThis.Response): Promise<void> {
  res.status(answer.status);
  answer.headers.forEach((value, name) => res.setHeader(name, value));
  res.end(await answer.text());
}

export function createMcpEndpoint(deps: McpEndpointDeps): McpEndpoint {
  const parts: SessionParts = {
    tools: createToolCalls({
      specs: buildToolSpecs(),
      handlers: createToolHandlers(deps),
      audit: deps.audit,
      clock: deps.clock,
      logger: deps.logger,
    }),
    resources: createMcpResources(deps),
    prompts: createMcpPrompts({ properties: deps.lookup }),
    registry: createCallRegistry(),
    validator: new AjvJsonSchemaValidator(),
    logger: deps.logger,
  };

  const router = Router();
  const before = [acceptsJsonAndSse, requireJson, mcpJsonBody, mcpBatchBudget(deps.charge)];
  registerRoute(router, bridgeRoutes.mcp, { mountedAt: BRIDGE_BASE, before }, async (_input, req, res) => {
    let cancel!: () => void;
    const cancelled = new Promise<null>((resolve) => (cancel = () => resolve(null)));
    const server = createMcpSession(parts, callerOf(req.auth!), () => cancel());
    // a client that hangs up cancels what it asked
    res.on('close', () => {
      if (!res.writableFinished) cancel();
    });
    const transport = new JsonAnswerTransport(requestIdsOf(req.body));
    await server.connect(transport);
    let answer: globalThis.Response | JsonAnswer | null;
    try {
      // the body as it came: the SDK checks it as JSON-RPC itself (registerRoute's parse is the problem+json gate)
      answer = await Promise.race([
        transport.handleRequest(webRequest(req), { parsedBody: req.body as unknown }),
        transport.answered,
        cancelled,
      ]);
    } catch (err) {
      await server.close();
      throw err;
    }
    if (answer === null) {
      // cancelled: closing the server aborts the call's signal, and the SDK then sends nothing; an SSE stream closed
      // without a message is how Streamable HTTP says so
      await server.close();
      if (!res.headersSent && !res.destroyed) res.status(200).type('text/event-stream').end();
    } else if (answer instanceof globalThis.Response) await send(res, answer);
    // every request answered: nothing is left to stop, and the server and its transport are simply dropped
    else res.status(200).type('application/json').end(JSON.stringify(answer));
  });
  // GET would open an SSE stream and DELETE end a session: a stateless server has neither (the spec's 405)
  router.all(PATH, (req) => {
    throw new MethodNotAllowed(
      'method-not-allowed',
      `${req.method} is not served here: this MCP server is stateless, with no stream to open and no session to end. Send JSON-RPC messages with POST.`,
      ['POST'],
    );
  });

  return {
    path: PATH,
    edge: mcpOriginCheck(deps.allowedOrigins),
    router,
    problems: mcpProblems(deps.publicBaseUrl),
  };
}
