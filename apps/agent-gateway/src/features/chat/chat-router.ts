import { gatewayRoutes } from '@pa/contracts';
import { AppError, registerRoute, requireJson } from '@pa/http-kit';
import { type RequestHandler, type Response, Router } from 'express';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { ProviderError } from '../providers/provider.ts';
import { chunkFactory } from './chat-chunks.ts';
import type { ChatService, PreparedTurn } from './chat-service.ts';
import { openEventStream } from './sse.ts';

export const asHttpError = (err: ProviderError) =>
  new AppError(err.code === 'provider-rate-limited' ? 503 : 502, err.code, 'Provider error', err.message);

/** Aborts when the client goes away before the response has been sent. */
export function abortOnClientGone(res: Response): AbortController {
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  return abort;
}

/** Answers a prepared turn as an event stream: from here on errors are events, not HTTP statuses. */
export async function streamTurn(
  res: Response,
  chat: ChatService,
  turn: PreparedTurn,
  pingMs: number,
): Promise<void> {
  const abort = abortOnClientGone(res);
  const events = openEventStream(res, { pingMs });
  const chunks = chunkFactory(turn.provider.model);
  events.send(chunks.role(turn.externalId));
  try {
    await chat.run(turn, abort.signal, (delta) => events.send(chunks.content(delta)));
    if (!abort.signal.aborted) events.send(chunks.stop());
  } catch (err) {
    const e = err instanceof ProviderError ? err : new ProviderError('Something went wrong while answering.');
    events.send({ error: { message: e.message, type: 'provider_error', code: e.code } });
  }
  events.done();
}

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

  const limitedJson = { before: [deps.rateLimit, requireJson] };
  registerRoute(router, gatewayRoutes.chat, limitedJson, async ({ body }, _req, res) => {
    const turn = await chat.prepare({
      channel: 'web',
      externalId: body.sessionId,
      provider: body.provider,
      message: body.message,
      workerId: body.workerId,
    });
    const abort = abortOnClientGone(res);
    try {
      const result = await chat.run(turn, abort.signal, () => {});
      res.json({ reply: result.reply, sessionId: turn.externalId, provider: turn.provider.name });
    } catch (err) {
      throw err instanceof ProviderError ? asHttpError(err) : err;
    }
  });

  const limitedStream = { before: [deps.rateLimit, deps.streamLimit] };
  registerRoute(router, gatewayRoutes.chatStream, limitedStream, async ({ query }, _req, res) => {
    const turn = await chat.prepare({
      channel: 'web',
      externalId: query.sessionId,
      provider: query.provider,
      message: query.message,
      requestId: query.requestId,
      workerId: query.workerId,
    });
    await streamTurn(res, chat, turn, deps.pingMs);
  });

  registerRoute(router, gatewayRoutes.listProviders, async ({ query }, _req, res) => {
    res.json({ providers: providers.names(), active: await chat.activeProvider('web', query.sessionId) });
  });

  const json = { before: [requireJson] };
  registerRoute(router, gatewayRoutes.clearSession, json, async ({ body }, _req, res) => {
    const turnsDeleted = await chat.clear('web', body.sessionId);
    res.json({ sessionId: body.sessionId, cleared: true, turnsDeleted });
  });

  return router;
}
