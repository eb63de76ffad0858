import { OpenAICompletion } from '@pa/contracts';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

let g: TestGateway;
let client: OpenAI;
beforeAll(async () => {
  g = await startTestGateway({ env: { CHAT_RATE_LIMIT_PER_MIN: '10000' }, redis: 'none' });
  client = new OpenAI({ baseURL: `${g.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
});
afterAll(async () => g?.close());

describe('POST /v1/chat/completions', () => {
  it('answers the official OpenAI SDK, continuing the session named by `user`', async () => {
    const first = await client.chat.completions.create({
      model: 'local',
      messages: [{ role: 'user', content: 'my name is Ada' }],
      user: 'v1-session-1',
    });
    expect(first.choices[0]!.message.content).toBe(
      "Nice to meet you, **Ada**. I'll remember that for this conversation.",
    );
    const second = await client.chat.completions.create({
      model: 'local',
      messages: [{ role: 'user', content: 'what is my name?' }],
      user: 'v1-session-1',
    });
    expect(second.choices[0]!.message.content).toBe('Your name is **Ada**.');
    expect(expectContract(OpenAICompletion, second).session_id).toBe('v1-session-1');
  });

  it('streams through the SDK, and the session is the same one the web chat uses', async () => {
    await postJson(g.baseUrl, '/api/chat', { message: 'my name is Grace', sessionId: 'shared-v1' });
    const stream = await client.chat.completions.create({
      model: 'gpt-whatever',
      stream: true,
      messages: [
        { role: 'system', content: 'ignored: the server keeps the context' },
        { role: 'user', content: [{ type: 'text', text: 'what is my name?' }] },
      ],
      user: 'shared-v1',
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Your name is **Grace**.');
  });

  it('issues a session when none is named, in the body and X-Session-Id', async () => {
    const res = await postJson(g.baseUrl, '/v1/chat/completions', {
      messages: [{ role: 'user', content: 'hello' }],
    });
    const body = expectContract(OpenAICompletion, await res.json());
    expect(body.session_id).toMatch(/^s_/);
    expect(res.headers.get('x-session-id')).toBe(body.session_id);
  });

  it.each([
    ['no messages', { messages: [] }, '#/messages'],
    [
      'a last message that is not the user’s',
      { messages: [{ role: 'assistant', content: 'hi' }] },
      '#/messages/0/role',
    ],
    ['an empty user message', { messages: [{ role: 'user', content: '  ' }] }, '#/messages/0/content'],
    [
      'a message over 8000 characters',
      { messages: [{ role: 'user', content: 'a'.repeat(8001) }] },
      '#/messages/0/content',
    ],
    [
      'a message with a NUL character',
      { messages: [{ role: 'user', content: 'a\u0000b' }] },
      '#/messages/0/content',
    ],
    [
      'a bad session id in user',
      { user: 'no spaces', messages: [{ role: 'user', content: 'hi' }] },
      '#/user',
    ],
  ])('rejects %s with 400', async (_name, body, pointer) => {
    const p = await expectProblem(
      await postJson(g.baseUrl, '/v1/chat/completions', body),
      400,
      'validation-failed',
    );
    expect(p.errors?.map((e) => e.pointer)).toContain(pointer);
  });

  it('counts against the same per-IP budget as the web chat', async () => {
    const limited = await startTestGateway({
      databaseUrl: g.databaseUrl,
      redis: 'none',
      env: { CHAT_RATE_LIMIT_PER_MIN: '2' },
    });
    try {
      expect((await postJson(limited.baseUrl, '/api/chat', { message: 'hi' })).status).toBe(200);
      expect(
        (
          await postJson(limited.baseUrl, '/v1/chat/completions', {
            messages: [{ role: 'user', content: 'hi' }],
          })
        ).status,
      ).toBe(200);
      await expectProblem(
        await postJson(limited.baseUrl, '/api/chat', { message: 'hi' }),
        429,
        'rate-limited',
      );
    } finally {
      await limited.close();
    }
  });
});
