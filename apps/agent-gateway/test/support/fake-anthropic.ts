// A loopback stand-in for Anthropic's Messages API. It speaks the real wire protocol — `text/event-stream`
// with named events (message_start, content_block_start/delta/stop, ping, message_delta, message_stop,
// error) and the vendor's JSON error bodies — so the official SDK runs against it unchanged.
//
//   const fake = await startFakeAnthropic();
//   fake.script({ chunks: ['Hel', 'lo'], delayMs: 20 });
//   const provider = createAnthropicProvider({ baseURL: fake.url, apiKey: 'k', model: 'claude-test' });
//   ...; fake.requests[0].body.system; await fake.waitForAbort(1000); await fake.close();

import { randomUUID } from 'node:crypto';
import {
  type Exchange,
  type FakeToolCall,
  type FakeVendor,
  type FakeVendorError,
  echoChunks,
  fragment,
  sendJson,
  startFakeVendor,
} from './fake-openai.ts';

export type { FakeToolCall, FakeVendorError, RecordedRequest } from './fake-openai.ts';

export interface FakeAnthropicStreamReply {
  /** text deltas, streamed in order as one text block */
  chunks?: string[];
  /** tool_use blocks after the text; the stop reason becomes `tool_use` */
  toolCalls?: FakeToolCall[];
  /** pause before each event after the first (ms) */
  delayMs?: number;
  /**
   * How the reply ends after the chunks: `finish` (default: content_block_stop, message_delta,
   * message_stop), `error` (Anthropic's `error` event, then the response ends), `destroy` (the connection
   * is dropped), `hang` (the response stays open until the client goes away or the fake closes).
   */
  end?: 'finish' | 'error' | 'destroy' | 'hang';
  /** the error sent when `end` is `error` (default `overloaded_error`) */
  error?: FakeVendorError;
  /** overrides the stop reason (`end_turn`, or `tool_use` with tool calls) */
  stopReason?: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';
}

export interface FakeAnthropicHttpErrorReply {
  /** answer with this status and the vendor's JSON error body instead of a message */
  status: number;
  error?: FakeVendorError;
  headers?: Record<string, string>;
}

export type FakeAnthropicReply = FakeAnthropicStreamReply | FakeAnthropicHttpErrorReply;

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content?: unknown; is_error?: boolean };

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  stream?: boolean;
  system?: string | Array<{ type: 'text'; text: string }>;
  messages: Array<{ role: string; content: string | ContentBlock[] }>;
  tools?: Array<{ name: string; description?: string; input_schema: unknown }>;
  [key: string]: unknown;
}

export type FakeAnthropic = FakeVendor<AnthropicRequestBody, FakeAnthropicReply>;

export interface FakeAnthropicOptions {
  /** when set, requests without this key (`x-api-key` or `Authorization: Bearer`) get Anthropic's 401 */
  apiKey?: string;
}

export function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  return startFakeVendor<AnthropicRequestBody, FakeAnthropicReply>({
    basePath: '',
    endpoint: { method: 'POST', path: '/v1/messages' },
    defaultReply: (body) => ({ chunks: echoChunks(lastUserText(body)) }),
    checkAuth(headers) {
      if (!options.apiKey) return undefined;
      const bearer = /^Bearer (.*)$/i.exec(headers.authorization ?? '')?.[1];
      const sent = bearer ?? headers['x-api-key'];
      if (sent === options.apiKey) return undefined;
      return { status: 401, error: { type: 'authentication_error', message: 'invalid x-api-key' } };
    },
    notFound: () => ({ status: 404, error: { type: 'not_found_error', message: 'Not found' } }),
    respond: respondAnthropic,
  });
}

async function respondAnthropic(
  ex: Exchange<AnthropicRequestBody>,
  reply: FakeAnthropicReply,
): Promise<void> {
  const body = ex.rec.body;
  const requestId = `req_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  if ('status' in reply) {
    sendJson(
      ex.res,
      reply.status,
      { type: 'error', error: anthropicError(reply.status, reply.error), request_id: requestId },
      { 'request-id': requestId, ...reply.headers },
    );
    return;
  }
  const id = `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  const model = typeof body.model === 'string' ? body.model : 'fake-model';
  const text = (reply.chunks ?? []).join('');
  const toolCalls = (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? `toolu_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    name: call.name,
    json: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    fragments: call.fragments ?? 3,
  }));
  const stopReason = reply.stopReason ?? (toolCalls.length > 0 ? 'tool_use' : 'end_turn');
  const end = reply.end ?? 'finish';
  const delayMs = reply.delayMs ?? 0;
  const hasText = (reply.chunks ?? []).length > 0 || toolCalls.length === 0;

  if (body.stream !== true) {
    if (!(await ex.sleep(delayMs * (reply.chunks?.length ?? 0)))) return;
    if (end === 'destroy') return ex.drop();
    if (end === 'hang') return;
    if (end === 'error') {
      sendJson(ex.res, 529, {
        type: 'error',
        error: anthropicError(529, reply.error),
        request_id: requestId,
      });
      return;
    }
    const content: ContentBlock[] = [];
    if (hasText) content.push({ type: 'text', text });
    for (const c of toolCalls)
      content.push({ type: 'tool_use', id: c.id, name: c.name, input: safeParse(c.json) });
    sendJson(
      ex.res,
      200,
      {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { input_tokens: 25, output_tokens: 15 },
      },
      { 'request-id': requestId },
    );
    return;
  }

  const events: Array<[string, unknown]> = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 25, output_tokens: 1 },
        },
      },
    ],
  ];
  let index = 0;
  if (hasText) {
    events.push([
      'content_block_start',
      { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
    ]);
    events.push(['ping', { type: 'ping' }]);
    for (const piece of reply.chunks ?? []) {
      events.push([
        'content_block_delta',
        { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } },
      ]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
    index++;
  }
  for (const call of toolCalls) {
    events.push([
      'content_block_start',
      {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      },
    ]);
    // Anthropic opens every tool input with an empty fragment.
    for (const piece of ['', ...fragment(call.json, call.fragments)]) {
      events.push([
        'content_block_delta',
        { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } },
      ]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
    index++;
  }

  // An error or a drop happens before the open block is closed, as when the vendor fails mid-answer.
  const cutAt = end === 'finish' ? events.length : lastIndexOfDelta(events) + 1;

  ex.res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': requestId,
    'anthropic-organization-id': '00000000-0000-0000-0000-000000000000',
  });
  ex.res.flushHeaders();
  for (const [i, [name, data]] of events.slice(0, cutAt).entries()) {
    if (i > 0 && !(await ex.sleep(delayMs))) return;
    if (!ex.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)) return;
  }
  if (!(await ex.sleep(delayMs))) return;
  if (end === 'destroy') return ex.drop();
  if (end === 'hang') return;
  if (end === 'error') {
    const error = anthropicError(529, reply.error);
    ex.write(`event: error\ndata: ${JSON.stringify({ type: 'error', error })}\n\n`);
    ex.res.end();
    return;
  }
  const finish: Array<[string, unknown]> = [
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 15 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ];
  for (const [name, data] of finish) {
    if (!ex.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)) return;
  }
  ex.res.end();
}

function lastIndexOfDelta(events: Array<[string, unknown]>): number {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]?.[0] === 'content_block_delta') return i;
  return 0;
}

function anthropicError(status: number, error: FakeVendorError = {}) {
  const defaults: Record<number, { type: string; message: string }> = {
    400: { type: 'invalid_request_error', message: 'Invalid request.' },
    401: { type: 'authentication_error', message: 'invalid x-api-key' },
    403: {
      type: 'permission_error',
      message: 'Your API key does not have permission to use the specified resource.',
    },
    404: { type: 'not_found_error', message: 'The requested resource could not be found.' },
    413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
    429: {
      type: 'rate_limit_error',
      message: 'Number of request tokens has exceeded your per-minute rate limit.',
    },
    529: { type: 'overloaded_error', message: 'Overloaded' },
  };
  const base = defaults[status] ?? { type: 'api_error', message: 'Internal server error' };
  return { type: error.type ?? base.type, message: error.message ?? base.message };
}

function lastUserText(body: AnthropicRequestBody): string {
  const user = [...(Array.isArray(body.messages) ? body.messages : [])]
    .reverse()
    .find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

function safeParse(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return {};
  }
}
