// The baselines the gateway is compared with: a bare Express app with no database, rate limiter, stream
// limit, helmet, CORS, request id, request log or schema validation. It runs the same `local` provider over
// the same messages (system prompt + the user's message), so the replies are the gateway's byte for byte:
//
// - POST /api/chat answers the gateway's reply JSON ({ reply, sessionId, provider });
// - GET /api/chat/stream writes the gateway's event stream: the same SSE headers, one `id:`/`data:` event per
//   chunk with the same chunk JSON (role chunk with session_id, one content chunk per provider delta, stop
//   chunk) and `data: [DONE]`, each in its own write, as apps/agent-gateway/src/features/chat/sse.ts does.
//
// Written by hand rather than importing sse.ts/chat-chunks.ts so that a cost hidden in those would show as a
// difference; run.ts checks before the load that both servers send the same headers, events and replies.
import { randomBytes, randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { SYSTEM_PROMPT } from '../../apps/agent-gateway/src/features/chat/chat-service.ts';
import type { ChatMessage, ChatProvider } from '../../apps/agent-gateway/src/features/providers/provider.ts';
import { EMPTY_TOOLBOX } from '../../apps/agent-gateway/src/features/tools/toolbox.ts';

const messagesFor = (message: string): ChatMessage[] => [
  { role: 'system', content: SYSTEM_PROMPT },
  { role: 'user', content: message },
];

const newSessionId = () => `s_${randomBytes(16).toString('base64url')}`;

export function createBaselineApp(provider: ChatProvider): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '64kb' }));

  app.post('/api/chat', async (req, res) => {
    const body = req.body as { message: string; sessionId?: string };
    const signal = new AbortController().signal;
    let reply = '';
    for await (const delta of provider.stream({
      messages: messagesFor(body.message),
      tools: EMPTY_TOOLBOX,
      signal,
    })) {
      reply += delta;
    }
    res.json({ reply, sessionId: body.sessionId ?? newSessionId(), provider: provider.name });
  });

  app.get('/api/chat/stream', async (req, res) => {
    const message = String(req.query.message ?? '');
    const sessionId = typeof req.query.sessionId === 'string' ? req.query.sessionId : newSessionId();
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });

    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    res.setHeader('Connection', 'keep-alive');
    res.flushHeaders();
    res.socket?.setNoDelay(true);

    let nextId = 0;
    const send = (data: unknown) => {
      if (!res.writableEnded) res.write(`id: ${nextId++}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const base = {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: provider.model,
    };
    send({
      ...base,
      session_id: sessionId,
      choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }],
    });
    try {
      for await (const delta of provider.stream({
        messages: messagesFor(message),
        tools: EMPTY_TOOLBOX,
        signal: abort.signal,
      })) {
        send({ ...base, choices: [{ index: 0, delta: { content: delta }, finish_reason: null }] });
      }
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    } catch {
      // the client went away
    }
    if (!res.writableEnded) {
      res.write(`id: ${nextId++}\ndata: [DONE]\n\n`);
      res.end();
    }
  });

  return app;
}
