import { type EmbedChatRequest, gatewayRoutes, SESSION_HISTORY_LIMIT } from '@pa/contracts';
import { jsonBody, NotFound, registerRoute, requireJson } from '@pa/http-kit';
import { type Request, type RequestHandler, Router } from 'express';
import type { ChatService, PreparedTurn } from '../chat/chat-service.ts';
import type { StreamMetrics } from '../../lib/metrics/gateway-metrics.ts';
import { abortOnClientGone, streamTurn } from '../chat/stream-turn.ts';
import type { SessionHistoryReader } from '../sessions/session-history.ts';
import type { SessionRepository } from '../sessions/session-repository.ts';
import { embedCallerOf, embedCheck } from './embed-caller.ts';
import type { EmbedKeysService } from './embed-keys-service.ts';

// The embedded chat's API (docs/embedding.md): the web chat's turns and history, for one visitor of one embed key.
// Every route runs the embed check first (key, origin, visitor: embed-caller.ts); the turns then go to the key's
// worker, read-only unless the key allows proposals, and count against the key's budgets. The visitor's
// conversations are web sessions owned by `embed:<key>:sub:<sub>` or `embed:<key>:anon:<id>`: a session id of anyone
// else is unknown (404), never continued or read. The gateway's per-IP embed limit has run before all of this
// (app.ts), ahead of the key lookup.

const notFound = () => new NotFound('session-not-found', 'No conversation with this id.');
// the visitor's conversation list is short: the embed shows it as a menu
const SESSIONS_LISTED = 20;

export function createEmbedRouter(deps: {
  embedKeys: Pick<EmbedKeysService, 'authenticate'>;
  /** PUBLIC_BASE_URL: the embed's iframe may call from its origin too */
  publicBaseUrl?: string | undefined;
  chat: ChatService;
  sessions: Pick<SessionRepository, 'find'>;
  history: Pick<SessionHistoryReader, 'page' | 'search'>;
  /** the key's budgets (embed-budgets.ts), then the gateway's own per-IP chat budget */
  budgets: RequestHandler[];
  rateLimit: RequestHandler;
  streamLimit: RequestHandler;
  pingMs: number;
  /** the open streams' metrics (METRICS_ENABLED), counted with the web chat's */
  streams?: StreamMetrics | undefined;
}): Router {
  const { chat, history } = deps;
  const router = Router();
  const check = embedCheck({ embedKeys: deps.embedKeys, publicBaseUrl: deps.publicBaseUrl });
  const json = [requireJson, jsonBody];

  async function prepare(req: Request, body: EmbedChatRequest): Promise<PreparedTurn> {
    const { key, visitor } = embedCallerOf(req);
    if (body.sessionId !== undefined) {
      const own = await deps.sessions.find({
        channel: 'web',
        owner: visitor.owner,
        externalId: body.sessionId,
      });
      if (!own) throw notFound();
    }
    return chat.prepare({
      channel: 'web',
      owner: visitor.owner,
      deviceId: null,
      externalId: body.sessionId,
      message: body.message,
      requestId: body.requestId,
      workerId: key.workerId,
      workspaceId: key.workspaceId,
      readOnly: !key.allowProposals,
    });
  }

  const turn = { before: [check, ...deps.budgets, deps.rateLimit, ...json] };
  registerRoute(router, gatewayRoutes.embedChat, turn, async ({ body }, req, res) => {
    const prepared = await prepare(req, body);
    const result = await chat.run(prepared, abortOnClientGone(res), () => {});
    res.json({ reply: result.reply, sessionId: prepared.externalId });
  });

  const stream = { before: [check, ...deps.budgets, deps.rateLimit, deps.streamLimit, ...json] };
  registerRoute(router, gatewayRoutes.embedChatStream, stream, async ({ body }, req, res) => {
    await streamTurn(res, chat, await prepare(req, body), deps.pingMs, deps.streams);
  });

  const read = { before: [check, ...json] };
  registerRoute(router, gatewayRoutes.embedSession, read, async ({ body }, req, res) => {
    const { owner } = embedCallerOf(req).visitor;
    const scope = { owner, deviceId: null };
    const sessionId =
      body.sessionId ?? (await history.search(scope, { limit: 1 })).sessions[0]?.sessionId ?? null;
    if (sessionId === null) {
      res.json({ sessionId: null, turns: [] });
      return;
    }
    const page = await history.page(owner, sessionId, SESSION_HISTORY_LIMIT.default, undefined);
    if (!page) throw notFound();
    res.json({ sessionId, turns: page.turns });
  });

  registerRoute(router, gatewayRoutes.embedSessions, read, async (_input, req, res) => {
    const scope = { owner: embedCallerOf(req).visitor.owner, deviceId: null };
    const { sessions } = await history.search(scope, { limit: SESSIONS_LISTED });
    res.json({
      sessions: sessions.map((s) => ({
        sessionId: s.sessionId,
        title: s.title,
        lastActiveAt: s.lastActiveAt,
      })),
    });
  });

  return router;
}
