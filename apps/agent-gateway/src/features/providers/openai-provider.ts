import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { Toolbox } from '../tools/toolbox.ts';
import { type ChatProvider, type ProviderTurn, ProviderError } from './provider.ts';
import * as support from './provider-support.ts';

export { TOOL_ROUNDS_APOLOGY } from './provider-support.ts';

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

interface PendingToolCall {
  id: string;
  name: string;
  arguments: string;
}

export function createOpenAIProvider(options: OpenAIProviderOptions): ChatProvider {
  const timeoutMs = options.timeoutMs ?? support.DEFAULT_TIMEOUT_MS;
  const maxToolRounds = options.maxToolRounds ?? support.DEFAULT_MAX_TOOL_ROUNDS;
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
    const messages: ChatCompletionMessageParam[] = support.promptMessages(turn).map((m) => ({
      role: m.role,
      content: m.content,
    }));
    const tools = toOpenAITools(turn.tools);
    let yieldedText = false;

    for (let round = 0; ; round++) {
      const deadline = new support.IdleDeadline(timeoutMs, turn.signal);
      const pending: PendingToolCall[] = [];
      let text = '';
      let finishReason: string | null = null;
      try {
        const chunks = await client.chat.completions.create(
          { model: options.model, messages, stream: true, ...(tools.length > 0 ? { tools } : {}) },
          { signal: deadline.signal },
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
        throw support.settle(err, deadline, ERRORS, secrets);
      } finally {
        deadline.clear();
      }
      support.assertRoundComplete(NAME, deadline, finishReason !== null);

      const calls = pending.filter((c) => c !== undefined && c.name !== '');
      // Some compatible servers report "stop" even when asking for tools; "length" means a cut-off call.
      if (calls.length === 0 || finishReason === 'length') return;
      if (round >= maxToolRounds) {
        yield (yieldedText ? '\n\n' : '') + support.TOOL_ROUNDS_APOLOGY;
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
          turn.tools.call(c.function.name, support.parseArguments(c.function.arguments), turn.signal),
        ),
      );
      if (turn.signal.aborted) throw support.abortError(turn.signal);
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

const ERRORS: support.VendorErrors<APIError> = {
  name: NAME,
  APIConnectionTimeoutError,
  APIConnectionError,
  APIError,
  message: (err) => {
    const body = err.error as { message?: unknown } | undefined;
    return typeof body?.message === 'string' ? body.message : undefined;
  },
  streamError: (err, detail) => {
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
    return undefined;
  },
};
