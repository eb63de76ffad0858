import { gatewayRoutes } from '@pa/contracts';
import { jsonBody, registerRoute, requireJson } from '@pa/http-kit';
import { Router } from 'express';
import { sessionDevice, sessionOwner } from '../sessions/session-owner.ts';
import { workspaceHeader } from '../workspace/workspace-guard.ts';
import type { ChatRouteDeps } from './chat-route-deps.ts';
import { abortOnClientGone, streamTurn } from './stream-turn.ts';

export function createChatRouter(deps: ChatRouteDeps): Router {
  const { chat, providers } = deps;
  const router = Router();

  const limitedJson = { before: [deps.rateLimit, requireJson, jsonBody] };
  registerRoute(router, gatewayRoutes.chat, limitedJson, async ({ body }, req, res) => {
    const turn = await chat.prepare({
      channel: 'web',
      owner: sessionOwner(req),
      deviceId: sessionDevice(req),
      externalId: body.sessionId,
      provider: body.provider,
      message: body.message,
      workerId: body.workerId,
      workspaceId: workspaceHeader(req),
    });
    const abort = abortOnClientGone(res);
    const result = await chat.run(turn, abort, () => {});
    res.json({ reply: result.reply, sessionId: turn.externalId, provider: turn.provider.name });
  });

  const limitedStream = { before: [deps.rateLimit, deps.streamLimit] };
  registerRoute(router, gatewayRoutes.chatStream, limitedStream, async ({ query }, req, res) => {
    const turn = await chat.prepare({
      channel: 'web',
      owner: sessionOwner(req),
      deviceId: sessionDevice(req),
      externalId: query.sessionId,
      provider: query.provider,
      message: query.message,
      requestId: query.requestId,
      workerId: query.workerId,
      workspaceId: workspaceHeader(req),
    });
    await streamTurn(res, chat, turn, deps.pingMs, deps.streams);
  });

  registerRoute(router, gatewayRoutes.listProviders, async ({ query }, req, res) => {
    const key = { channel: 'web' as const, owner: sessionOwner(req), externalId: query.sessionId };
    res.json({ providers: providers.names(), active: await chat.activeProvider(key) });
  });

  const json = { before: [requireJson, jsonBody] };
  registerRoute(router, gatewayRoutes.clearSession, json, async ({ body }, req, res) => {
    const turnsDeleted = await chat.clear({
      channel: 'web',
      owner: sessionOwner(req),
      externalId: body.sessionId,
    });
    res.json({ sessionId: body.sessionId, cleared: true, turnsDeleted });
  });

  return router;
}
