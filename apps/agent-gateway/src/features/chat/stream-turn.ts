import type { Response } from 'express';
import type { StreamMetrics } from '../../lib/metrics/gateway-metrics.ts';
import { ProviderError } from '../providers/provider.ts';
import { chunkFactory } from './chat-chunks.ts';
import type { ChatService, PreparedTurn } from './chat-service.ts';
import { openEventStream } from './sse.ts';

// How the chat routes answer a prepared turn once it is theirs to run: shared by /api/chat and
// /v1/chat/completions. A failure before the stream starts is thrown to the problem handler like any other.

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
  streams?: StreamMetrics,
): Promise<void> {
  const abort = abortOnClientGone(res);
  const events = openEventStream(res, { pingMs });
  if (streams) res.once('close', streams.streamOpened());
  const chunks = chunkFactory(turn.provider.model);
  events.send(chunks.role(turn.externalId));
  try {
    await chat.run(turn, abort, (delta) => events.send(chunks.content(delta)));
    if (!abort.signal.aborted) events.send(chunks.stop());
  } catch (err) {
    // The status line has gone out: the failure can only be told as an event.
    const e = err instanceof ProviderError ? err : new ProviderError('Something went wrong while answering.');
    events.send({ error: { message: e.message, type: 'provider_error', code: e.code } });
  }
  events.done();
}
