import { gatewayRoutes } from '@pa/contracts';
import { registerRoute, requireJson } from '@pa/http-kit';
import { Router } from 'express';
import type { ChatRouteDeps } from './chat-route-deps.ts';
import { abortOnClientGone, streamTurn } from './stream-turn.ts';

export function createChatRouter(deps: ChatRouteDeps): Router {
  const { chat, providers } = deps;
  const router = Router();

  const limitedJson = { before: [deps.rateLimit, requireJson] };
  registerRoute(router, gatewayRoutes.chat, limitedJson, async ({ body }, req, res) => {
    const turn = await chat.prepare({
      channel: 'web',
      externalId: body.sessionId,
      provider: body.provider,
      message: body.message,
      workerId: body.workerId,
      workspaceId: req.get('x-workspace-id'),
    });
    const abort = abortOnClientGone(res);
    const result = await chat.run(turn, abort.signal, () => {});
    res.json({ reply: result.reply, sessionId: turn.externalId, provider: turn.provider.name });
  });

  const limitedStream = { before: [deps.rateLimit, deps.streamLimit] };
  registerRoute(router, gatewayRoutes.chatStream, limitedStream, async ({ query }, req, res) => {
    const turn = await chat.prepare({
      channel: 'web',
      externalId: query.sessionId,
      provider: query.provider,
      message: query.message,
      requestId: query.requestId,
      workerId: query.workerId,
      workspaceId: req.get('x-workspace-id'),
    });
    await streamTurn(res, chat, turn, deps.pingMs);
  });

  registerRoute(router, gatewayRoutes.listProviders, async ({ query }, _req, res) => {
    res.json({ providers: providers.names(), active: await chat.activeProvider('web', query.sessionId) });
  });

  const json = { before: [requireJson] };
  registerRoute(router, gatewayRoutes.clearSession, json, async ({ body }, req, res) => {
    const turnsDeleted = await chat.clear('web', body.sessionId);
    res.json({ sessionId: body.sessionId, cleared: true, turnsDeleted });
  });

  return router;
}
