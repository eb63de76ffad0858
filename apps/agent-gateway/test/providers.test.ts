import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createAnthropicProvider,
  TOOL_ROUNDS_APOLOGY as ANTHROPIC_APOLOGY,
} from '../src/features/providers/anthropic-provider.ts';
import {
  createOpenAIProvider,
  TOOL_ROUNDS_APOLOGY as OPENAI_APOLOGY,
} from '../src/features/providers/openai-provider.ts';
import {
  type ChatMessage,
  type ChatProvider,
  isAbortError,
  ProviderError,
} from '../src/features/providers/provider.ts';
import { EMPTY_TOOLBOX, type Toolbox } from '../src/features/tools/toolbox.ts';
import { type FakeAnthropic, startFakeAnthropic } from './support/fake-anthropic.ts';
import { type FakeOpenAI, type FakeToolCall, startFakeOpenAI } from './support/fake-openai.ts';

const KEY = 'sk-test-Secr3tKeyValue-0123456789abcdef';

const HISTORY: ChatMessage[] = [
  { role: 'system', content: 'You are the property assistant.' },
  { role: 'user', content: 'Hi, I am Grace.' },
  { role: 'assistant', content: 'Hello Grace!' },
  { role: 'user', content: 'How is my portfolio?' },
];

const PORTFOLIO_TOOL = {
  name: 'platform-get-portfolio',
  description: 'Overview of the portfolio of the bound workspace.',
  parameters: {
    type: 'object',
    properties: { workspaceId: { type: 'string' } },
    required: ['workspaceId'],
    additionalProperties: false,
  },
};

interface RecordingToolbox extends Toolbox {
  calls: Array<{ name: string; args: unknown }>;
}

function recordingToolbox(result = { properties: 3, occupied: 2 }): RecordingToolbox {
  const calls: RecordingToolbox['calls'] = [];
  return {
    calls,
    definitions: [PORTFOLIO_TOOL],
    async call(name, args) {
      calls.push({ name, args });
      return { name, arguments: args, ok: true, result: JSON.stringify(result) };
    },
  };
}

function turn(overrides: { messages?: ChatMessage[]; tools?: Toolbox; signal?: AbortSignal } = {}) {
  return {
    messages: overrides.messages ?? HISTORY,
    tools: overrides.tools ?? EMPTY_TOOLBOX,
    signal: overrides.signal ?? new AbortController().signal,
  };
}

async function collect(deltas: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const d of deltas) out.push(d);
  return out;
}

/** the deltas seen before the iteration failed, and the failure */
async function collectUntilError(
  deltas: AsyncIterable<string>,
): Promise<{ deltas: string[]; error: unknown }> {
  const out: string[] = [];
  try {
    for await (const d of deltas) out.push(d);
  } catch (error) {
    return { deltas: out, error };
  }
  throw new Error(`expected the stream to fail, it yielded ${JSON.stringify(out)}`);
}

function expectProviderError(error: unknown, code: ProviderError['code']): ProviderError {
  expect(error).toBeInstanceOf(ProviderError);
  const err = error as ProviderError;
  expect(err.code).toBe(code);
  expect(err.message).not.toContain(KEY);
  expect(err.message).not.toContain('cdef');
  expect(err.message).not.toMatch(/sk-/);
  return err;
}

/** What differs between the vendors, so that the behaviour tests run against both. */
interface VendorCase {
  name: 'openai' | 'anthropic';
  start(options?: { apiKey?: string }): Promise<FakeOpenAI | FakeAnthropic>;
  provider(
    url: string,
    options?: { maxToolRounds?: number; timeoutMs?: number; apiKey?: string },
  ): ChatProvider;
  apology: string;
  /** how the vendor's tool call ids start */
  idPrefix: 'call' | 'toolu';
  /** the toolbox with PORTFOLIO_TOOL as the request sends it */
  sentTools: unknown[];
  /** the last message of the request that reports the failure of tool call `id` to the model */
  failedToolMessage(id: string): unknown;
  /** the tool results the request sent back to the model, by call id */
  toolResults(body: unknown): Array<{ id: string; content: unknown }>;
  /** the tool calls the request echoed back to the model */
  echoedToolCalls(body: unknown): Array<{ id: string; name: string; input: unknown }>;
  /** a status that means "server overloaded" for this vendor */
  overloadedStatus: number;
}

const vendors: VendorCase[] = [
  {
    name: 'openai',
    start: (options) => startFakeOpenAI(options),
    provider: (url, o = {}) => createOpenAIProvider({ baseURL: url, apiKey: KEY, model: 'gpt-test', ...o }),
    apology: OPENAI_APOLOGY,
    idPrefix: 'call',
    sentTools: [
      {
        type: 'function',
        function: {
          name: 'platform-get-portfolio',
          description: PORTFOLIO_TOOL.description,
          parameters: PORTFOLIO_TOOL.parameters,
        },
      },
    ],
    // OpenAI's tool message has no error flag.
    failedToolMessage: (id) => ({
      role: 'tool',
      tool_call_id: id,
      content: 'Error: The platform is unavailable.',
    }),
    toolResults: (body) =>
      (body as { messages: Array<{ role: string; tool_call_id?: string; content: unknown }> }).messages
        .filter((m) => m.role === 'tool')
        .map((m) => ({ id: m.tool_call_id ?? '', content: m.content })),
    echoedToolCalls: (body) =>
      (
        body as {
          messages: Array<{
            tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
          }>;
        }
      ).messages
        .flatMap((m) => m.tool_calls ?? [])
        .map((c) => ({
          id: c.id,
          name: c.function.name,
          input: JSON.parse(c.function.arguments) as unknown,
        })),
    overloadedStatus: 503,
  },
  {
    name: 'anthropic',
    start: (options) => startFakeAnthropic(options),
    provider: (url, o = {}) =>
      createAnthropicProvider({ baseURL: url, apiKey: KEY, model: 'claude-test', ...o }),
    apology: ANTHROPIC_APOLOGY,
    idPrefix: 'toolu',
    sentTools: [
      {
        name: 'platform-get-portfolio',
        description: PORTFOLIO_TOOL.description,
        input_schema: PORTFOLIO_TOOL.parameters,
      },
    ],
    failedToolMessage: (id) => ({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: id,
          content: 'The platform is unavailable.',
          is_error: true,
        },
      ],
    }),
    toolResults: (body) =>
      (body as { messages: Array<{ role: string; content: unknown }> }).messages
        .flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : []))
        .filter((b) => b.type === 'tool_result')
        .map((b) => ({ id: b.tool_use_id as string, content: b.content })),
    echoedToolCalls: (body) =>
      (body as { messages: Array<{ role: string; content: unknown }> }).messages
        .flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : []))
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: b.id as string, name: b.name as string, input: b.input })),
    overloadedStatus: 529,
  },
];

describe.each(vendors)('$name provider against its loopback fake', (vendor) => {
  let fake: FakeOpenAI | FakeAnthropic;
  let provider: ChatProvider;
  beforeAll(async () => {
    fake = await vendor.start();
    provider = vendor.provider(fake.url);
  });
  afterEach(() => fake.reset());
  afterAll(async () => fake?.close());

  it('streams the text deltas in order', async () => {
    fake.script({ chunks: ['Your ', 'portfolio ', 'has ', '3 properties.'], delayMs: 5 });
    expect(await collect(provider.stream(turn()))).toEqual(['Your ', 'portfolio ', 'has ', '3 properties.']);
    expect(fake.requests).toHaveLength(1);
    expect(provider.name).toBe(vendor.name);
  });

  it('runs a tool round trip: fragmented arguments, the tool result sent back, the final text streamed', async () => {
    const call: FakeToolCall = {
      id: `${vendor.idPrefix}_portfolio_1`,
      name: 'platform-get-portfolio',
      arguments: { workspaceId: 'ws_1' },
      fragments: 4,
    };
    fake.script({ chunks: ['Let me look. '], toolCalls: [call] }, { chunks: ['You have ', '3 properties.'] });
    const tools = recordingToolbox();

    const deltas = await collect(provider.stream(turn({ tools })));

    expect(deltas).toEqual(['Let me look. ', 'You have ', '3 properties.']);
    expect(tools.calls).toEqual([{ name: 'platform-get-portfolio', args: { workspaceId: 'ws_1' } }]);
    expect(fake.requests).toHaveLength(2);
    const second = fake.requests[1]!.body;
    expect(vendor.echoedToolCalls(second)).toEqual([
      { id: call.id, name: 'platform-get-portfolio', input: { workspaceId: 'ws_1' } },
    ]);
    expect(vendor.toolResults(second)).toEqual([{ id: call.id, content: '{"properties":3,"occupied":2}' }]);
  });

  it('runs every tool call of one round and sends all results back in order', async () => {
    fake.script(
      {
        toolCalls: [
          { id: 'call_a', name: 'platform-get-portfolio', arguments: { workspaceId: 'ws_a' } },
          { id: 'call_b', name: 'platform-get-portfolio', arguments: { workspaceId: 'ws_b' } },
        ],
      },
      { chunks: ['Both checked.'] },
    );
    const tools = recordingToolbox();
    expect(await collect(provider.stream(turn({ tools })))).toEqual(['Both checked.']);
    expect(tools.calls.map((c) => c.args)).toEqual([{ workspaceId: 'ws_a' }, { workspaceId: 'ws_b' }]);
    expect(vendor.toolResults(fake.requests[1]!.body).map((r) => r.id)).toEqual(['call_a', 'call_b']);
  });

  it('passes unparsable tool arguments through as text for the tool to reject', async () => {
    fake.script(
      { toolCalls: [{ name: 'platform-get-portfolio', arguments: '{"workspaceId": "ws_' }] },
      { chunks: ['Sorry, that went wrong.'] },
    );
    const tools = recordingToolbox();
    expect(await collect(provider.stream(turn({ tools })))).toEqual(['Sorry, that went wrong.']);
    expect(tools.calls).toEqual([{ name: 'platform-get-portfolio', args: '{"workspaceId": "ws_' }]);
  });

  it("sends the toolbox in the vendor's tool format", async () => {
    fake.script({ chunks: ['ok'] });
    await collect(provider.stream(turn({ tools: recordingToolbox() })));
    expect(fake.requests.at(-1)!.body.tools).toEqual(vendor.sentTools);
  });

  it("reports a tool failure to the model in the vendor's way", async () => {
    const id = `${vendor.idPrefix}_x`;
    fake.script(
      { toolCalls: [{ id, name: 'platform-get-portfolio', arguments: {} }] },
      { chunks: ['The platform is down.'] },
    );
    const tools: Toolbox = {
      definitions: [PORTFOLIO_TOOL],
      call: async (name, args) => ({
        name,
        arguments: args,
        ok: false,
        result: 'The platform is unavailable.',
      }),
    };
    await collect(provider.stream(turn({ tools })));
    expect(fake.requests.at(-1)!.body.messages.at(-1)).toEqual(vendor.failedToolMessage(id));
  });

  it('stops an endless tool loop after maxToolRounds with an apology', async () => {
    fake.setDefault({
      chunks: ['Checking. '],
      toolCalls: [{ name: 'platform-get-portfolio', arguments: {} }],
    });
    const tools = recordingToolbox();
    const limited = vendor.provider(fake.url, { maxToolRounds: 2 });

    const deltas = await collect(limited.stream(turn({ tools })));

    expect(tools.calls).toHaveLength(2);
    expect(fake.requests).toHaveLength(3);
    expect(deltas.slice(0, 3)).toEqual(['Checking. ', 'Checking. ', 'Checking. ']);
    expect(deltas.at(-1)).toBe(`\n\n${vendor.apology}`);
  });

  it('maps a rejected API key (401) to a provider-error without the key', async () => {
    const guarded = await vendor.start({ apiKey: 'sk-the-right-key' });
    try {
      const { error } = await collectUntilError(vendor.provider(guarded.url).stream(turn()));
      const err = expectProviderError(error, 'provider-error');
      expect(err.message).toBe(`The ${vendor.name} provider answered 401: invalid API key.`);
    } finally {
      await guarded.close();
    }
  });

  it('maps 429 to provider-rate-limited', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '20' } });
    const { error } = await collectUntilError(provider.stream(turn()));
    expectProviderError(error, 'provider-rate-limited');
    expect(fake.requests).toHaveLength(1); // no SDK retry
  });

  it('maps 500 and the vendor overload status to provider-unavailable', async () => {
    fake.script({ status: 500 }, { status: vendor.overloadedStatus });
    const first = expectProviderError(
      (await collectUntilError(provider.stream(turn()))).error,
      'provider-unavailable',
    );
    expect(first.message).toBe(`The ${vendor.name} provider is unavailable (HTTP 500).`);
    const second = expectProviderError(
      (await collectUntilError(provider.stream(turn()))).error,
      'provider-unavailable',
    );
    expect(second.message).toContain(`HTTP ${vendor.overloadedStatus}`);
    expect(fake.requests).toHaveLength(2);
  });

  it('shows a 400 with the vendor message, secrets removed', async () => {
    fake.script({ status: 400, error: { message: `Bad request made with ${KEY}: max_tokens too large` } });
    const { error } = await collectUntilError(provider.stream(turn()));
    const err = expectProviderError(error, 'provider-error');
    expect(err.message).toContain('answered 400');
    expect(err.message).toContain('max_tokens too large');
  });

  it('reports an unreachable server as provider-unavailable', async () => {
    const gone = await vendor.start();
    const url = gone.url;
    await gone.close();
    const { error } = await collectUntilError(vendor.provider(url).stream(turn()));
    expectProviderError(error, 'provider-unavailable');
  });

  it("reports the vendor's error event mid-stream after the first deltas", async () => {
    fake.script({ chunks: ['Part ', 'one '], end: 'error' });
    const { deltas, error } = await collectUntilError(provider.stream(turn()));
    expect(deltas).toEqual(['Part ', 'one ']);
    expectProviderError(error, 'provider-unavailable');
  });

  it('reports a connection dropped mid-stream after the first deltas', async () => {
    fake.script({ chunks: ['Part ', 'one '], end: 'destroy' });
    const { deltas, error } = await collectUntilError(provider.stream(turn()));
    expect(deltas).toEqual(['Part ', 'one ']);
    const err = expectProviderError(error, 'provider-unavailable');
    expect(err.message).toMatch(/broke off/);
  });

  it('rejects with an abort error when aborted mid-stream and closes the request within 1 s', async () => {
    fake.script({ chunks: ['Thinking ', 'hard '], end: 'hang' });
    const controller = new AbortController();
    const iterator = provider.stream(turn({ signal: controller.signal }))[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe('Thinking ');
    expect((await iterator.next()).value).toBe('hard ');

    const pending = iterator.next();
    const abortedAt = Date.now();
    controller.abort();

    const error = await pending.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isAbortError(error)).toBe(true);
    expect(error).not.toBeInstanceOf(ProviderError);
    const request = await fake.waitForAbort(1000);
    expect(request.abortedAt! - abortedAt).toBeLessThan(1000);
  });

  it('closes the request when the caller stops iterating early', async () => {
    fake.script({ chunks: ['First ', 'second '], end: 'hang' });
    for await (const delta of provider.stream(turn())) {
      expect(delta).toBe('First ');
      break;
    }
    await fake.waitForAbort(1000);
  });

  it('rejects at once with an abort error when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { error } = await collectUntilError(provider.stream(turn({ signal: controller.signal })));
    expect(isAbortError(error)).toBe(true);
  });

  it('gives up on a stream that stalls longer than timeoutMs', async () => {
    fake.script({ chunks: ['Still '], end: 'hang' });
    const impatient = vendor.provider(fake.url, { timeoutMs: 300 });
    const { deltas, error } = await collectUntilError(impatient.stream(turn()));
    expect(deltas).toEqual(['Still ']);
    const err = expectProviderError(error, 'provider-unavailable');
    expect(err.message).toBe(`The ${vendor.name} provider did not answer in time.`);
    await fake.waitForAbort(1000);
  });
});

describe('openai request format', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake?.close());

  it('sends model, stream flag and the conversation as chat messages, without tools when there are none', async () => {
    fake.script({ chunks: ['ok'] });
    const provider = createOpenAIProvider({ baseURL: fake.url, apiKey: KEY, model: 'gpt-test' });
    await collect(provider.stream(turn()));
    const [request] = fake.requests;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers.accept).toMatch(/application\/json/);
    expect(request!.body).toEqual({ model: 'gpt-test', stream: true, messages: HISTORY });
  });

  it('works without an API key, as a local OpenAI-compatible server needs none', async () => {
    fake.script({ chunks: ['local ', 'model'] });
    const provider = createOpenAIProvider({ baseURL: fake.url, model: 'llama3.2' });
    expect(await collect(provider.stream(turn()))).toEqual(['local ', 'model']);
    expect(fake.requests.at(-1)!.body.model).toBe('llama3.2');
  });
});

describe('anthropic request format', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
  });
  afterAll(async () => fake?.close());

  it('sends the system prompt as `system`, the rest as messages, with max_tokens and the stream flag', async () => {
    fake.script({ chunks: ['ok'] });
    const provider = createAnthropicProvider({
      baseURL: fake.url,
      apiKey: KEY,
      model: 'claude-test',
      maxTokens: 512,
    });
    await collect(provider.stream(turn()));
    const [request] = fake.requests;
    expect(request!.path).toBe('/v1/messages');
    expect(request!.headers['anthropic-version']).toBeTruthy();
    expect([request!.headers['x-api-key'], request!.headers.authorization]).toContain(
      request!.headers['x-api-key'] ? KEY : `Bearer ${KEY}`,
    );
    expect(request!.body).toEqual({
      model: 'claude-test',
      max_tokens: 512,
      stream: true,
      system: 'You are the property assistant.',
      messages: HISTORY.slice(1),
    });
  });

  it('maps an in-stream rate_limit_error event to provider-rate-limited', async () => {
    fake.script({ chunks: ['Hi '], end: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } });
    const provider = createAnthropicProvider({ baseURL: fake.url, apiKey: KEY, model: 'claude-test' });
    const { deltas, error } = await collectUntilError(provider.stream(turn()));
    expect(deltas).toEqual(['Hi ']);
    expectProviderError(error, 'provider-rate-limited');
  });
});

describe('the fakes outside the SDKs', () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  beforeEach(async () => {
    openai = await startFakeOpenAI();
    anthropic = await startFakeAnthropic();
  });
  afterEach(async () => {
    await openai.close();
    await anthropic.close();
  });

  it('answer non-streaming requests with plain JSON and echo by default', async () => {
    const a = await fetch(`${openai.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'ping' }] }),
    });
    expect(a.headers.get('content-type')).toBe('application/json');
    const completion = (await a.json()) as {
      object: string;
      choices: Array<{ message: { content: string } }>;
    };
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toBe('You said: ping');

    const b = await fetch(`${anthropic.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'ping' }] }),
    });
    const message = (await b.json()) as { type: string; content: Array<{ text: string }> };
    expect(message.type).toBe('message');
    expect(message.content[0]!.text).toBe('You said: ping');
  });

  it('stream the exact event framing each vendor uses', async () => {
    openai.script({ chunks: ['Hi'] });
    const a = await fetch(`${openai.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
    });
    expect(a.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const aText = await a.text();
    expect(aText).toMatch(/^data: \{"id":"chatcmpl-[^\n]*"object":"chat\.completion\.chunk"/);
    expect(aText.endsWith('data: [DONE]\n\n')).toBe(true);

    anthropic.script({ chunks: ['Hi'] });
    const b = await fetch(`${anthropic.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, stream: true, messages: [] }),
    });
    expect(b.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const names = [...(await b.text()).matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });
});
