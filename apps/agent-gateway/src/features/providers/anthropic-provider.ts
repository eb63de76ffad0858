import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageParam,
  StopReason,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { type ChatProvider, type ProviderTurn, ProviderError, type Toolbox } from './provider.ts';

export interface AnthropicProviderOptions {
  apiKey: string;
  /** e.g. http://127.0.0.1:8080 (the SDK appends /v1/messages); defaults to https://api.anthropic.com */
  baseURL?: string | undefined;
  model: string;
  /** Anthropic requires an output limit on every request. Default 2048. */
  maxTokens?: number | undefined;
  /** How long to wait for the answer to start and, once streaming, between two events. Default 60 s. */
  timeoutMs?: number | undefined;
  /** Rounds of tool calls the model may ask for in one turn. Default 5. */
  maxToolRounds?: number | undefined;
}

const NAME = 'anthropic';
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOKENS = 2048;
const DEFAULT_MAX_TOOL_ROUNDS = 5;
export const TOOL_ROUNDS_APOLOGY =
  'Sorry, I had to stop: answering this needed more tool calls than I am allowed in one turn. Please try a narrower question.';

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; json: string };

export function createAnthropicProvider(options: AnthropicProviderOptions): ChatProvider {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxToolRounds = options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? 'https://api.anthropic.com',
    // A retry after part of the answer was streamed would replay it; the caller reports the failure instead.
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: 'off',
  });
  const secrets = [options.apiKey];

  async function* stream(turn: ProviderTurn): AsyncGenerator<string, void, undefined> {
    // Anthropic takes the system prompt as a parameter, not as a message.
    const system = turn.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const messages: MessageParam[] = turn.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content }));
    const tools = toAnthropicTools(turn.tools);
    let yieldedText = false;

    for (let round = 0; ; round++) {
      const deadline = new IdleDeadline(timeoutMs);
      const signal = AbortSignal.any([turn.signal, deadline.signal]);
      const blocks: Block[] = [];
      let stopReason: StopReason | null = null;
      let stopped = false;
      try {
        const events = await client.messages.create(
          {
            model: options.model,
            max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
            messages,
            stream: true,
            ...(system ? { system } : {}),
            ...(tools.length > 0 ? { tools } : {}),
          },
          { signal },
        );
        deadline.arm();
        for await (const event of events) {
          deadline.arm();
          switch (event.type) {
            case 'content_block_start': {
              const start = event.content_block;
              if (start.type === 'text') {
                blocks[event.index] = { type: 'text', text: start.text };
                if (start.text) {
                  yieldedText = true;
                  // A slow reader must not pass for a stalled model.
                  deadline.clear();
                  yield start.text;
                  deadline.arm();
                }
              } else if (start.type === 'tool_use') {
                // The input arrives as input_json_delta fragments; the start carries an empty object.
                blocks[event.index] = { type: 'tool_use', id: start.id, name: start.name, json: '' };
              }
              break;
            }
            case 'content_block_delta': {
              const block = blocks[event.index];
              const delta = event.delta;
              if (delta.type === 'text_delta' && delta.text) {
                if (block?.type === 'text') block.text += delta.text;
                yieldedText = true;
                deadline.clear();
                yield delta.text;
                deadline.arm();
              } else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') {
                block.json += delta.partial_json;
              }
              break;
            }
            case 'message_delta':
              stopReason = event.delta.stop_reason ?? stopReason;
              break;
            case 'message_stop':
              stopped = true;
              break;
            default:
              break;
          }
        }
      } catch (err) {
        throw settle(err, turn.signal, deadline, secrets);
      } finally {
        deadline.clear();
      }
      // The SDK ends the iteration quietly when its request is aborted, so an abort shows only here.
      if (turn.signal.aborted) throw abortError(turn.signal);
      if (deadline.expired) throw timeoutError();
      if (!stopped) {
        throw new ProviderError(
          `The ${NAME} provider's answer broke off before it was complete.`,
          'provider-unavailable',
        );
      }

      const calls = blocks.filter((b): b is Extract<Block, { type: 'tool_use' }> => b?.type === 'tool_use');
      if (stopReason !== 'tool_use' || calls.length === 0) return;
      if (round >= maxToolRounds) {
        yield (yieldedText ? '\n\n' : '') + TOOL_ROUNDS_APOLOGY;
        return;
      }

      const args = calls.map((c) => parseArguments(c.json));
      const assistantContent: ContentBlockParam[] = [];
      for (const block of blocks) {
        if (block?.type === 'text' && block.text) assistantContent.push({ type: 'text', text: block.text });
      }
      calls.forEach((c, i) => {
        const input = args[i];
        // The API wants the input echoed as an object even when the model produced broken JSON.
        const echoed = typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
        assistantContent.push({ type: 'tool_use', id: c.id, name: c.name, input: echoed });
      });
      messages.push({ role: 'assistant', content: assistantContent });

      const records = await Promise.all(calls.map((c, i) => turn.tools.call(c.name, args[i], turn.signal)));
      if (turn.signal.aborted) throw abortError(turn.signal);
      const results: ToolResultBlockParam[] = calls.map((c, i) => {
        const record = records[i];
        return {
          type: 'tool_result',
          tool_use_id: c.id,
          content: record?.result ?? '',
          ...(record?.ok === false ? { is_error: true } : {}),
        };
      });
      messages.push({ role: 'user', content: results });
    }
  }

  return { name: NAME, model: options.model, stream };
}

function toAnthropicTools(toolbox: Toolbox): Tool[] {
  return toolbox.definitions.map((d) => ({
    name: d.name,
    description: d.description,
    input_schema: { type: 'object', ...d.parameters } as Tool.InputSchema,
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
    const detail = err.apiMessage ? redact(err.apiMessage, secrets) : '';
    const status = err.status;
    if (status === undefined) {
      // An `error` event inside an already started stream.
      if (err.type === 'overloaded_error') {
        return new ProviderError(
          `The ${NAME} provider is overloaded; try again shortly.`,
          'provider-unavailable',
        );
      }
      if (err.type === 'api_error') {
        return new ProviderError(`The ${NAME} provider failed mid-answer.`, 'provider-unavailable');
      }
      if (err.type === 'rate_limit_error') {
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
    // 529 is Anthropic's "overloaded".
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
