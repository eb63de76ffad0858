import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageParam,
  StopReason,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { Toolbox } from '../tools/toolbox.ts';
import { type ChatProvider, type ProviderTurn, ProviderError } from './provider.ts';
import * as support from './provider-support.ts';

export { TOOL_ROUNDS_APOLOGY } from './provider-support.ts';

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
const DEFAULT_MAX_TOKENS = 2048;

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; json: string };

export function createAnthropicProvider(options: AnthropicProviderOptions): ChatProvider {
  const timeoutMs = options.timeoutMs ?? support.DEFAULT_TIMEOUT_MS;
  const maxToolRounds = options.maxToolRounds ?? support.DEFAULT_MAX_TOOL_ROUNDS;
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
    const prompt = support.promptMessages(turn);
    const system = prompt
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const messages: MessageParam[] = prompt
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content }));
    const tools = toAnthropicTools(turn.tools);
    let yieldedText = false;

    for (let round = 0; ; round++) {
      const deadline = new support.IdleDeadline(timeoutMs, turn.signal);
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
          { signal: deadline.signal },
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
        throw support.settle(err, deadline, ERRORS, secrets);
      } finally {
        deadline.clear();
      }
      support.assertRoundComplete(NAME, deadline, stopped);

      const calls = blocks.filter((b): b is Extract<Block, { type: 'tool_use' }> => b?.type === 'tool_use');
      if (stopReason !== 'tool_use' || calls.length === 0) return;
      if (round >= maxToolRounds) {
        yield (yieldedText ? '\n\n' : '') + support.TOOL_ROUNDS_APOLOGY;
        return;
      }

      const args = calls.map((c) => support.parseArguments(c.json));
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
      if (turn.signal.aborted) throw support.abortError(turn.signal);
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

const ERRORS: support.VendorErrors<APIError> = {
  name: NAME,
  APIConnectionTimeoutError,
  APIConnectionError,
  APIError,
  message: (err) => err.apiMessage,
  streamError: (err) => {
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
    return undefined;
  },
};
