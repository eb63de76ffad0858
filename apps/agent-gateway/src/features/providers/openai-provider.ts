import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { type ChatProvider, type ProviderTurn, ProviderError, type Toolbox } from './provider.ts';

export interface OpenAIProviderOptions {
  /** Optional because local OpenAI-compatible servers (Ollama, vLLM) usually need none. */
  apiKey?: string | undefined;
  /** e.g. http://127.0.0.1:11434/v1; defaults to https://api.openai.com/v1 */
  baseURL?: string | undefined;
  model: string;
  /** How long to wait for the answer to start and, once streaming, between two chunks. Default 60 s. */
  timeoutMs?: number | undefined;
  /** Rounds of tool calls the model may ask for in one turn. Default 5. */
  maxToolRounds?: number | undefined;
}

const NAME = 'openai';
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOOL_ROUNDS = 5;
export const TOOL_ROUNDS_APOLOGY =
  'Sorry, I had to stop: answering this needed more tool calls than I am allowed in one turn. Please try a narrower question.';

interface PendingToolCall {
  id: string;
  name: string;
  arguments: string;
}

export function createOpenAIProvider(options: OpenAIProviderOptions): ChatProvider {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxToolRounds = options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
  const client = new OpenAI({
    // The SDK refuses to start without a key, yet keyless local servers ignore whatever we send.
    apiKey: options.apiKey || 'no-key',
    baseURL: options.baseURL ?? 'https://api.openai.com/v1',
    // The gateway's configuration is the only source of settings; the SDK would read more from the env.
    organization: null,
    project: null,
    // A retry after part of the answer was streamed would replay it; the caller reports the failure instead.
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: 'off',
  });
  const secrets = options.apiKey ? [options.apiKey] : [];

  async function* stream(turn: ProviderTurn): AsyncGenerator<string, void, undefined> {
    const messages: ChatCompletionMessageParam[] = turn.messages.map((m) => ({
      role: m.role,
      content: m.content,
    }));
    const tools = toOpenAITools(turn.tools);
    let yieldedText = false;

    for (let round = 0; ; round++) {
      const deadline = new IdleDeadline(timeoutMs);
      const signal = AbortSignal.any([turn.signal, deadline.signal]);
      const pending: PendingToolCall[] = [];
      let text = '';
      let finishReason: string | null = null;
      try {
        const chunks = await client.chat.completions.create(
          { model: options.model, messages, stream: true, ...(tools.length > 0 ? { tools } : {}) },
          { signal },
        );
        deadline.arm();
        for await (const chunk of chunks) {
          deadline.arm();
          // Chunks without choices carry only usage statistics.
          const choice = chunk.choices[0];
          if (!choice) continue;
          const content = choice.delta.content;
          if (content) {
            text += content;
            yieldedText = true;
            // A slow reader must not pass for a stalled model.
            deadline.clear();
            yield content;
            deadline.arm();
          }
          for (const delta of choice.delta.tool_calls ?? []) {
            const call = (pending[delta.index] ??= { id: '', name: '', arguments: '' });
            if (delta.id) call.id = delta.id;
            // Some compatible servers repeat the whole name in every delta instead of sending it once.
            if (delta.function?.name && delta.function.name !== call.name) call.name += delta.function.name;
            if (delta.function?.arguments) call.arguments += delta.function.arguments;
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      } catch (err) {
        throw settle(err, turn.signal, deadline, secrets);
      } finally {
        deadline.clear();
      }
      // The SDK ends the iteration quietly when its request is aborted, so an abort shows only here.
      if (turn.signal.aborted) throw abortError(turn.signal);
      if (deadline.expired) throw timeoutError();
      if (finishReason === null) {
        throw new ProviderError(
          `The ${NAME} provider's answer broke off before it was complete.`,
          'provider-unavailable',
        );
      }

      const calls = pending.filter((c) => c !== undefined && c.name !== '');
      // Some compatible servers report "stop" even when asking for tools; "length" means a cut-off call.
      if (calls.length === 0 || finishReason === 'length') return;
      if (round >= maxToolRounds) {
        yield (yieldedText ? '\n\n' : '') + TOOL_ROUNDS_APOLOGY;
        return;
      }

      const toolCalls: ChatCompletionMessageFunctionToolCall[] = calls.map((c, i) => ({
        id: c.id || `call_${round}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      }));
      messages.push({ role: 'assistant', content: text || null, tool_calls: toolCalls });
      const records = await Promise.all(
        toolCalls.map((c) =>
          turn.tools.call(c.function.name, parseArguments(c.function.arguments), turn.signal),
        ),
      );
      if (turn.signal.aborted) throw abortError(turn.signal);
      toolCalls.forEach((c, i) => {
        const record = records[i];
        messages.push({
          role: 'tool',
          tool_call_id: c.id,
          // OpenAI's tool message has no error flag, so the model learns of a failure from the text.
          content: !record ? '' : record.ok ? record.result : `Error: ${record.result}`,
        });
      });
    }
  }

  return { name: NAME, model: options.model, stream };
}

function toOpenAITools(toolbox: Toolbox): ChatCompletionTool[] {
  return toolbox.definitions.map((d) => ({
    type: 'function',
    function: { name: d.name, description: d.description, parameters: d.parameters },
  }));
}

function parseArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    // The tool validates its arguments and explains the problem better than a parse error would.
    return raw;
  }
}

/**
 * Aborts the model request when nothing arrives for `ms`: the SDK's own timeout covers only the wait for the
 * response headers, not a stream that stalls later.
 */
class IdleDeadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  expired = false;

  constructor(private readonly ms: number) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort();
    }, this.ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

function abortError(signal: AbortSignal): Error {
  const err = new Error('The request to the model was aborted.', { cause: signal.reason });
  err.name = 'AbortError';
  return err;
}

function timeoutError(): ProviderError {
  return new ProviderError(`The ${NAME} provider did not answer in time.`, 'provider-unavailable');
}

/** Turns whatever the SDK threw into an abort (when the caller aborted) or a ProviderError safe to show. */
function settle(err: unknown, callerSignal: AbortSignal, deadline: IdleDeadline, secrets: string[]): Error {
  if (callerSignal.aborted) return abortError(callerSignal);
  if (deadline.expired) return timeoutError();
  return toProviderError(err, secrets);
}

function toProviderError(err: unknown, secrets: string[] = []): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof APIConnectionTimeoutError) return timeoutError();
  if (err instanceof APIConnectionError) {
    return new ProviderError(`The ${NAME} provider is unreachable.`, 'provider-unavailable');
  }
  if (err instanceof APIError) {
    const detail = vendorMessage(err, secrets);
    const status = err.status;
    if (status === undefined) {
      // An error event inside an already started stream.
      if (err.type === 'server_error') {
        return new ProviderError(
          `The ${NAME} provider failed mid-answer${detail ? `: ${detail}` : '.'}`,
          'provider-unavailable',
        );
      }
      if (err.code === 'rate_limit_exceeded') {
        return new ProviderError(
          `The ${NAME} provider is rate-limiting requests; try again shortly.`,
          'provider-rate-limited',
        );
      }
      return new ProviderError(`The ${NAME} provider reported an error${detail ? `: ${detail}` : '.'}`);
    }
    if (status === 401) return new ProviderError(`The ${NAME} provider answered 401: invalid API key.`);
    if (status === 403) return new ProviderError(`The ${NAME} provider answered 403: access denied.`);
    if (status === 429) {
      return new ProviderError(
        `The ${NAME} provider is rate-limiting requests (HTTP 429); try again shortly.`,
        'provider-rate-limited',
      );
    }
    if (status >= 500) {
      return new ProviderError(
        `The ${NAME} provider is unavailable (HTTP ${status}).`,
        'provider-unavailable',
      );
    }
    return new ProviderError(`The ${NAME} provider answered ${status}${detail ? `: ${detail}` : '.'}`);
  }
  if (err instanceof SyntaxError) return new ProviderError(`The ${NAME} provider sent a malformed response.`);
  if (isBrokenConnection(err)) {
    return new ProviderError(
      `The connection to the ${NAME} provider broke off mid-answer.`,
      'provider-unavailable',
    );
  }
  return new ProviderError(`The ${NAME} provider failed unexpectedly.`);
}

function vendorMessage(err: APIError, secrets: string[]): string {
  const body = err.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? redact(body.message, secrets) : '';
}

/** Vendors quote (masked) keys back in error messages; keep no trace of one and keep the text short. */
function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]');
  out = out
    .replace(/\b(sk|rk|pk)-[\w*.-]+/gi, '[redacted]')
    .replace(/[\w-]*\*{3,}[\w-]*/g, '[redacted]')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > 200 ? `${out.slice(0, 199)}…` : out;
}

/** undici reports a dropped response body as `TypeError: terminated` with the socket error as its cause. */
function isBrokenConnection(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'TypeError' && /terminated|fetch failed/i.test(err.message)) return true;
  const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^(ECONNRESET|EPIPE|ECONNREFUSED|UND_ERR_SOCKET)$/.test(code);
}
