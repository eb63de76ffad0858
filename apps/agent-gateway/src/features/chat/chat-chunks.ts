import { randomUUID } from 'node:crypto';
import type { ChatChunk } from '@pa/contracts';

// Builders for the OpenAI `chat.completion.chunk` events of one reply: they share an id, a timestamp and a model.
export function chunkFactory(model: string) {
  const base = {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion.chunk' as const,
    created: Math.floor(Date.now() / 1000),
    model,
  };
  return {
    role: (sessionId: string): ChatChunk => ({
      ...base,
      session_id: sessionId,
      choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }],
    }),
    content: (text: string): ChatChunk => ({
      ...base,
      choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
    }),
    stop: (): ChatChunk => ({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
  };
}
