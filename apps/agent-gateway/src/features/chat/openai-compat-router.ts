import { ChatMessageText, gatewayRoutes, type OpenAICompletionRequest } from '@pa/contracts';
import { registerRoute, requireJson, ValidationFailed } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import { sessionDevice, sessionOwner } from '../sessions/session-owner.ts';
import { workspaceHeader } from '../workspace/workspace-guard.ts';
import type { ChatRouteDeps } from './chat-route-deps.ts';
import { chunkFactory } from './chat-chunks.ts';
import { abortOnClientGone, streamTurn } from './stream-turn.ts';

/** The text of the request's last message, which must be the user's. */
function lastUserText(body: OpenAICompletionRequest): string {
  const last = body.messages[body.messages.length - 1]!;
  const pointer = `#/messages/${body.messages.length - 1}`;
  if (last.role !== 'user')
    throw new ValidationFailed([
      { pointer: `${pointer}/role`, detail: 'the last message must be the user’s' },
    ]);
  const text =
    typeof last.content === 'string'
      ? last.content
      : (last.content ?? [])
          .filter((p) => p.type === 'text' && typeof p.text === 'string')
          .map((p) => p.text)
          .join('\n');
  if (!text.trim())
    throw new ValidationFailed([{ pointer: `${pointer}/content`, detail: 'must contain text' }]);
  // the same rules as /api/chat's message
  const checked = ChatMessageText.safeParse(text);
  if (!checked.success) {
    throw new ValidationFailed(
      checked.error.issues.map((i) => ({ pointer: `${pointer}/content`, detail: i.message })),
    );
  }
  return text;
}

// POST /v1/chat/completions for existing OpenAI clients, on the web channel's sessions, budget and providers.
// The conversation is the server's memory; the client's earlier messages are not replayed into it.
export function createOpenAICompatRouter(deps: ChatRouteDeps): Router {
  const { chat, providers } = deps;
  const router = Router();
  const limitStreams: RequestHandler = (req, res, next) =>
    req.body?.stream === true ? deps.streamLimit(req, res, next) : next();

  const limited = { before: [deps.rateLimit, requireJson, limitStreams] };
  registerRoute(router, gatewayRoutes.openaiChatCompletions, limited, async ({ body }, req, res) => {
    const message = lastUserText(body);
    const provider = body.model && providers.has(body.model) ? body.model : undefined;
    const turn = await chat.prepare({
      channel: 'web',
      owner: sessionOwner(req),
      deviceId: sessionDevice(req),
      externalId: body.user,
      provider,
      message,
      workspaceId: workspaceHeader(req),
    });
    res.setHeader('X-Session-Id', turn.externalId);
    if (body.stream) {
      await streamTurn(res, chat, turn, deps.pingMs, deps.streams);
      return;
    }
    const abort = abortOnClientGone(res);
    const result = await chat.run(turn, abort, () => {});
    const chunk = chunkFactory(turn.provider.model).stop();
    res.json({
      id: chunk.id,
      object: 'chat.completion',
      created: chunk.created,
      model: turn.provider.model,
      session_id: turn.externalId,
      choices: [{ index: 0, message: { role: 'assistant', content: result.reply }, finish_reason: 'stop' }],
    });
  });
  return router;
}
