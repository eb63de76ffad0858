// A loopback stand-in for OpenAI's Chat Completions API (and so for Ollama / vLLM). It speaks the real
// wire protocol — JSON bodies, `text/event-stream` with `data:` lines and `data: [DONE]`, the vendor's
// error bodies — so the official SDK runs against it unchanged. Tests script what each request gets and
// inspect what arrived.
//
//   const fake = await startFakeOpenAI();
//   fake.script({ chunks: ['Hel', 'lo'], delayMs: 20 });
//   const provider = createOpenAIProvider({ baseURL: fake.url, apiKey: 'sk-test', model: 'gpt-test' });
//   ...; fake.requests[0].body.messages; await fake.waitForAbort(1000); await fake.close();

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// -----------------------------------------------------------------------------------------------------------
// What a test can script (OpenAI flavour)

export interface FakeToolCall {
  name: string;
  /** an object is sent as its JSON; a string is sent as is (so a test can send broken JSON) */
  arguments: string | Record<string, unknown>;
  id?: string;
  /** how many pieces the arguments are streamed in, as OpenAI does (default 3) */
  fragments?: number;
}

export interface FakeVendorError {
  message?: string;
  type?: string;
  code?: string | null;
}

export interface FakeStreamReply {
  /** text deltas, streamed in order */
  chunks?: string[];
  /** tool calls the model asks for after its text; the finish reason becomes `tool_calls` */
  toolCalls?: FakeToolCall[];
  /** pause before each event after the first (ms) */
  delayMs?: number;
  /**
   * How the reply ends after the chunks: `finish` (default: finish_reason, then `[DONE]`), `error` (the
   * vendor's in-stream error event, then the response ends), `destroy` (the connection is dropped), `hang`
   * (the response stays open until the client goes away or the fake closes).
   */
  end?: 'finish' | 'error' | 'destroy' | 'hang';
  /** the error sent when `end` is `error` */
  error?: FakeVendorError;
  /** overrides the finish reason (`stop`, or `tool_calls` with tool calls) */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
}

export interface FakeHttpErrorReply {
  /** answer with this status and the vendor's JSON error body instead of a completion */
  status: number;
  error?: FakeVendorError;
  headers?: Record<string, string>;
}

export type FakeOpenAIReply = FakeStreamReply | FakeHttpErrorReply;

export interface OpenAIRequestBody {
  model: string;
  stream?: boolean;
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  [key: string]: unknown;
}

export type FakeOpenAI = FakeVendor<OpenAIRequestBody, FakeOpenAIReply>;

export interface FakeOpenAIOptions {
  /** when set, requests without `Authorization: Bearer <apiKey>` get OpenAI's 401 */
  apiKey?: string;
}

export function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  return startFakeVendor<OpenAIRequestBody, FakeOpenAIReply>({
    basePath: '/v1',
    endpoint: { method: 'POST', path: '/v1/chat/completions' },
    defaultReply: (body) => ({ chunks: echoChunks(lastUserText(body)) }),
    checkAuth(headers) {
      if (!options.apiKey) return undefined;
      const sent = /^Bearer (.*)$/i.exec(headers.authorization ?? '')?.[1] ?? '';
      if (sent === options.apiKey) return undefined;
      return {
        status: 401,
        error: {
          message: `Incorrect API key provided: ${maskKey(sent)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      };
    },
    extraRoute(method, path, res) {
      if (method === 'GET' && path === '/v1/models') {
        sendJson(res, 200, {
          object: 'list',
          data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }],
        });
        return true;
      }
      return false;
    },
    notFound: (method, path) => ({
      status: 404,
      error: { message: `Invalid URL (${method} ${path})`, type: 'invalid_request_error', code: null },
    }),
    respond: respondOpenAI,
  });
}

async function respondOpenAI(ex: Exchange<OpenAIRequestBody>, reply: FakeOpenAIReply): Promise<void> {
  const body = ex.rec.body;
  if ('status' in reply) {
    sendJson(ex.res, reply.status, { error: openAIError(reply.status, reply.error) }, reply.headers);
    return;
  }
  const id = `chatcmpl-${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = typeof body.model === 'string' ? body.model : 'fake-model';
  const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    fragments: call.fragments ?? 3,
    index: i,
  }));
  const finishReason = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  const end = reply.end ?? 'finish';
  const delayMs = reply.delayMs ?? 0;
  const usage = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };

  if (body.stream !== true) {
    if (!(await ex.sleep(delayMs * (reply.chunks?.length ?? 0)))) return;
    if (end === 'destroy') return ex.drop();
    if (end === 'hang') return;
    if (end === 'error') {
      sendJson(ex.res, 500, { error: openAIError(500, reply.error) });
      return;
    }
    const text = (reply.chunks ?? []).join('');
    sendJson(ex.res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: toolCalls.length > 0 && text === '' ? null : text,
            refusal: null,
            ...(toolCalls.length > 0
              ? {
                  tool_calls: toolCalls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage,
      system_fingerprint: 'fp_fake',
    });
    return;
  }

  const withUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(withUsage ? { usage: null } : {}),
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null }, null)];
  for (const text of reply.chunks ?? []) events.push(chunk({ content: text }, null));
  for (const call of toolCalls) {
    events.push(
      chunk(
        {
          tool_calls: [
            {
              index: call.index,
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: '' },
            },
          ],
        },
        null,
      ),
    );
    for (const piece of fragment(call.arguments, call.fragments)) {
      events.push(chunk({ tool_calls: [{ index: call.index, function: { arguments: piece } }] }, null));
    }
  }

  ex.res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': `req_${randomUUID().replaceAll('-', '')}`,
    'openai-version': '2020-10-01',
    'openai-processing-ms': '42',
  });
  ex.res.flushHeaders();
  for (const [i, event] of events.entries()) {
    if (i > 0 && !(await ex.sleep(delayMs))) return;
    if (!ex.write(`data: ${JSON.stringify(event)}\n\n`)) return;
  }
  if (!(await ex.sleep(delayMs))) return;
  if (end === 'destroy') return ex.drop();
  if (end === 'hang') return;
  if (end === 'error') {
    ex.write(`data: ${JSON.stringify({ error: openAIError(500, reply.error) })}\n\n`);
    ex.res.end();
    return;
  }
  ex.write(`data: ${JSON.stringify(chunk({}, finishReason))}\n\n`);
  if (withUsage) {
    ex.write(`data: ${JSON.stringify({ ...chunk({}, null), choices: [], usage })}\n\n`);
  }
  ex.write('data: [DONE]\n\n');
  ex.res.end();
}

function openAIError(status: number, error: FakeVendorError = {}) {
  const defaults: Record<number, FakeVendorError> = {
    400: { message: 'Invalid request.', type: 'invalid_request_error', code: null },
    401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
    403: {
      message: 'You are not allowed to sample from this model',
      type: 'invalid_request_error',
      code: null,
    },
    404: {
      message: 'The model does not exist or you do not have access to it.',
      type: 'invalid_request_error',
    },
    429: {
      message: 'Rate limit reached for requests. Please try again in 20s.',
      type: 'requests',
      code: 'rate_limit_exceeded',
    },
    503: {
      message: 'The engine is currently overloaded, please try again later',
      type: 'server_error',
      code: null,
    },
  };
  const base = defaults[status] ?? {
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
    code: null,
  };
  return {
    message: error.message ?? base.message,
    type: error.type ?? base.type,
    param: null,
    code: error.code ?? base.code ?? null,
  };
}

function lastUserText(body: OpenAIRequestBody): string {
  const user = [...(Array.isArray(body.messages) ? body.messages : [])]
    .reverse()
    .find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

function maskKey(key: string): string {
  return key.length > 8 ? `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}` : '***';
}

// -----------------------------------------------------------------------------------------------------------
// The loopback core both fakes share: listening, recording, scripting, abort detection.

export interface RecordedRequest<TBody = unknown> {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** the parsed JSON body (the raw text when it was not JSON) */
  body: TBody;
  receivedAt: number;
  /** when the response was complete */
  finishedAt?: number;
  /** when the client closed the request before the response was complete */
  abortedAt?: number;
}

export type FakeResponder<TBody, TReply> = TReply | ((request: RecordedRequest<TBody>) => TReply);

export interface FakeVendor<TBody, TReply> {
  /** the base URL an SDK takes (OpenAI: `http://127.0.0.1:port/v1`, Anthropic: `http://127.0.0.1:port`) */
  readonly url: string;
  /** `http://127.0.0.1:port` */
  readonly origin: string;
  /** every request that reached the fake, in order */
  readonly requests: RecordedRequest<TBody>[];
  /** queues replies; each serves one request, in order */
  script(...replies: FakeResponder<TBody, TReply>[]): void;
  /** what requests get once the queue is empty (by default the last user message is echoed back) */
  setDefault(reply: FakeResponder<TBody, TReply>): void;
  /** forgets queued replies, the default and the recorded requests */
  reset(): void;
  /** resolves with the next request the client closed before its response was complete */
  waitForAbort(timeoutMs?: number): Promise<RecordedRequest<TBody>>;
  /** resolves once `count` requests in all have arrived */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest<TBody>[]>;
  close(): Promise<void>;
}

export interface Exchange<TBody> {
  rec: RecordedRequest<TBody>;
  res: ServerResponse;
  /** waits; false when the client has gone meanwhile */
  sleep(ms: number): Promise<boolean>;
  /** writes unless the client has gone; false when it has */
  write(text: string): boolean;
  /** drops the connection mid-response, as a crashing upstream would */
  drop(): void;
}

export interface FakeVendorSpec<TBody, TReply> {
  basePath: string;
  endpoint: { method: string; path: string };
  defaultReply: (body: TBody) => TReply;
  checkAuth(headers: IncomingHttpHeaders): TReply | undefined;
  extraRoute?(method: string, path: string, res: ServerResponse): boolean;
  notFound(method: string, path: string): TReply;
  respond(ex: Exchange<TBody>, reply: TReply): Promise<void>;
}

export async function startFakeVendor<TBody, TReply>(
  spec: FakeVendorSpec<TBody, TReply>,
): Promise<FakeVendor<TBody, TReply>> {
  const requests: RecordedRequest<TBody>[] = [];
  let queue: FakeResponder<TBody, TReply>[] = [];
  let fallback: FakeResponder<TBody, TReply> | undefined;
  const aborted: RecordedRequest<TBody>[] = [];
  let abortsTaken = 0;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  let closing = false;

  const server = createServer((req, res) => {
    void (async () => {
      const parts: Buffer[] = [];
      for await (const part of req) parts.push(part as Buffer);
      const raw = Buffer.concat(parts).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw === '' ? {} : JSON.parse(raw);
      } catch {
        // kept as text: the fake answers 400 below, like the vendor
      }
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      const rec: RecordedRequest<TBody> = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        body: body as TBody,
        receivedAt: Date.now(),
      };
      requests.push(rec);
      let dropped = false;
      res.on('close', () => {
        if (res.writableFinished) rec.finishedAt = Date.now();
        else if (!dropped && !closing) {
          rec.abortedAt = Date.now();
          aborted.push(rec);
        }
        notify();
      });
      notify();

      const gone = () => res.destroyed || res.writableEnded;
      const ex: Exchange<TBody> = {
        rec,
        res,
        sleep: (ms) =>
          new Promise((resolve) => {
            if (ms <= 0 || gone()) return resolve(!gone());
            const onClose = () => {
              clearTimeout(timer);
              resolve(false);
            };
            const timer = setTimeout(() => {
              res.off('close', onClose);
              resolve(!gone());
            }, ms);
            res.once('close', onClose);
          }),
        write: (text) => {
          if (gone()) return false;
          res.write(text);
          return true;
        },
        drop: () => {
          dropped = true;
          const socket = res.socket;
          // Destroying at once would discard the events still buffered; the client must see them first.
          if (socket) socket.write('', () => socket.destroy());
        },
      };

      if (spec.extraRoute?.(rec.method, path, res)) return;
      if (rec.method !== spec.endpoint.method || path !== spec.endpoint.path) {
        return spec.respond(ex, spec.notFound(rec.method, path));
      }
      const denied = spec.checkAuth(req.headers);
      if (denied) return spec.respond(ex, denied);
      if (typeof body !== 'object' || body === null) {
        sendJson(res, 400, { error: { message: 'We could not parse the JSON body of your request.' } });
        return;
      }
      const next = queue.shift() ?? fallback ?? spec.defaultReply(rec.body);
      const reply = typeof next === 'function' ? (next as (r: RecordedRequest<TBody>) => TReply)(rec) : next;
      await spec.respond(ex, reply);
    })().catch((err: unknown) => {
      console.error('fake vendor failed', err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const attempt = () => {
        const value = check();
        if (value === undefined) return;
        listeners.delete(attempt);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        listeners.delete(attempt);
        reject(new Error(`fake vendor: ${what} did not happen within ${timeoutMs} ms`));
      }, timeoutMs);
      listeners.add(attempt);
      attempt();
    });

  return {
    url: `${origin}${spec.basePath}`,
    origin,
    requests,
    script: (...replies) => void queue.push(...replies),
    setDefault: (reply) => void (fallback = reply),
    reset() {
      queue = [];
      fallback = undefined;
      requests.length = 0;
      aborted.length = 0;
      abortsTaken = 0;
    },
    waitForAbort: (timeoutMs = 1000) =>
      waitUntil(
        () => (aborted.length > abortsTaken ? aborted[abortsTaken++] : undefined),
        timeoutMs,
        'a client abort',
      ),
    waitForRequests: (count, timeoutMs = 5000) =>
      waitUntil(() => (requests.length >= count ? [...requests] : undefined), timeoutMs, `${count} requests`),
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing = true;
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** splits `text` into `pieces` parts of about equal length (at least one character each) */
export function fragment(text: string, pieces: number): string[] {
  if (text === '') return [];
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, pieces)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** the default reply: "You said: …" in a few word-sized deltas */
export function echoChunks(text: string): string[] {
  return `You said: ${text}`.split(/(?<= )/);
}
