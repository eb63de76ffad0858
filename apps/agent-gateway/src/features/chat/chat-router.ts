import { ChatRequest, ChatStreamQuery, ClearRequest, ProvidersQuery } from '@pa/contracts';
import { parseOrThrow, requireJson } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import type { ChatService } from './chat-service.ts';
import { abortOnClientGone, streamTurn } from './stream-turn.ts';

/** What every web chat route needs: one per-IP budget and one open-stream count across all of them. */
export interface ChatRouteDeps {
  chat: ChatService;
  providers: ProviderRegistry;
  rateLimit: RequestHandler;
  streamLimit: RequestHandler;
  pingMs: number;
}

export function createChatRouter(deps: ChatRouteDeps): Router {
  const { chat, providers } = deps;
  const router = Router();

  router.post('/api/chat', deps.rateLimit, requireJson, async (req, res) => {
    const body = parseOrThrow(ChatRequest, req.body);
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

  router.get('/api/chat/stream', deps.rateLimit, deps.streamLimit, async (req, res) => {
    const query = parseOrThrow(ChatStreamQuery, req.query);
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

  router.get('/api/providers', async (req, res) => {
    const query = parseOrThrow(ProvidersQuery, req.query);
    res.json({ providers: providers.names(), active: await chat.activeProvider('web', query.sessionId) });
  });

  router.post('/api/clear', requireJson, async (req, res) => {
    const body = parseOrThrow(ClearRequest, req.body);
    const turnsDeleted = await chat.clear('web', body.sessionId);
    res.json({ sessionId: body.sessionId, cleared: true, turnsDeleted });
  });

  return router;
}
