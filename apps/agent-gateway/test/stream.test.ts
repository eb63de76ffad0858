import { ChatChunk, StreamError } from '@pa/contracts';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSessionRepository } from '../src/features/sessions/session-repository.ts';
import { type FakeOpenAI, startFakeOpenAI } from './support/fake-openai.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { parseSse } from './support/sse.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';
import { scaled } from '@pa/http-kit/testing';

let g: TestGateway;
let fake: FakeOpenAI;
let vendor: TestGateway; // the gateway configured with the OpenAI-compatible provider (the fake)
beforeAll(async () => {
  g = await startTestGateway({ env: { CHAT_RATE_LIMIT_PER_MIN: '10000' }, redis: 'none' });
  fake = await startFakeOpenAI();
  vendor = await startTestGateway({
    databaseUrl: g.databaseUrl,
    redis: 'none',
    env: {
      CHAT_RATE_LIMIT_PER_MIN: '10000',
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_MODEL: 'gpt-test',
      PROVIDER: 'openai',
    },
  });
});
// Each test scripts the fake vendor for itself: a reply queued by one test and left unused (e.g. when a client
// went away before its provider call was made) must never reach the next test.
beforeEach(() => fake?.reset());

afterAll(async () => {
  await vendor?.close();
  await fake?.close();
  await g?.close();
});

const streamUrl = (base: string, params: Record<string, string>) =>
  `${base}/api/chat/stream?${new URLSearchParams(params)}`;

async function storedTurns(externalId: string) {
  const sessions = createSessionRepository(g.db);
  const s = await sessions.find({ channel: 'web', owner: '', externalId: externalId });
  return s ? sessions.history(s.id, 50) : [];
}

describe('GET /api/chat/stream', () => {
  it('streams chat.completion.chunk events with ids, a stop chunk and [DONE], uncompressed', async () => {
    const res = await fetch(streamUrl(g.baseUrl, { message: 'help', sessionId: 'stream-1' }), {
      headers: { 'Accept-Encoding': 'gzip, br' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('content-encoding')).toBeNull();
    const events = parseSse(await res.text());
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => String(i)));
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => expectContract(ChatChunk, JSON.parse(e.data!)));
    expect(chunks[0]!.choices[0]).toEqual({ index: 0, delta: { role: 'assistant' }, finish_reason: null });
    expect(chunks[0]!.session_id).toBe('stream-1');
    expect(chunks.at(-1)!.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    const content = chunks.slice(1, -1).map((c) => c.choices[0]!.delta.content);
    expect(content.length).toBeGreaterThan(3);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const turns = await storedTurns('stream-1');
    expect(turns.map((t) => [t.role, t.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(turns[1]!.content).toBe(content.join(''));
  });

  it('issues a session id on the first chunk when none is given', async () => {
    const events = parseSse(await (await fetch(streamUrl(g.baseUrl, { message: 'hi' }))).text());
    expect(expectContract(ChatChunk, JSON.parse(events[0]!.data!)).session_id).toMatch(/^s_/);
  });

  it('is read by a real EventSource client until [DONE]', async () => {
    const es = new EventSource(streamUrl(g.baseUrl, { message: 'my name is Ada', sessionId: 'es-1' }));
    const received: Array<{ id: string; data: string }> = [];
    await new Promise<void>((resolve, reject) => {
      es.onmessage = (e) => {
        received.push({ id: e.lastEventId, data: e.data });
        if (e.data === '[DONE]') {
          es.close();
          resolve();
        }
      };
      es.onerror = (e) => reject(new Error(`EventSource error: ${e.message ?? 'unknown'}`));
    });
    const text = received
      .slice(0, -1)
      .map((r) => expectContract(ChatChunk, JSON.parse(r.data)).choices[0]!.delta.content ?? '')
      .join('');
    expect(text).toBe("Nice to meet you, **Ada**. I'll remember that for this conversation.");
    expect(received.map((r) => r.id)).toEqual(received.map((_, i) => String(i)));
  });

  it('reports a provider error that arrives mid-stream as an error event, then [DONE], and stores the turn as error', async () => {
    fake.script({
      chunks: ['Partial ', 'answer'],
      end: 'error',
      error: { message: 'The server had an error', type: 'server_error' },
    });
    const res = await fetch(streamUrl(vendor.baseUrl, { message: 'hello', sessionId: 'vendor-error-1' }));
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    const data = events.map((e) => e.data!);
    expect(data.at(-1)).toBe('[DONE]');
    const error = expectContract(StreamError, JSON.parse(data.at(-2)!));
    expect(error.error.code).toMatch(/^provider-/);
    expect(error.error.message).not.toContain('sk-test');
    const contents = data
      .slice(1, -2)
      .map((d) => expectContract(ChatChunk, JSON.parse(d)).choices[0]!.delta.content);
    expect(contents.join('')).toBe('Partial answer');
    const turns = await storedTurns('vendor-error-1');
    expect(turns.at(-1)).toMatchObject({ role: 'assistant', status: 'error', content: 'Partial answer' });
  });

  it('aborts the provider within a second when the client goes away, and stores the partial reply as interrupted', async () => {
    fake.script({
      chunks: ['First ', 'words ', ...Array.from({ length: 50 }, (_, i) => `w${i} `)],
      delayMs: 200,
    });
    const client = new AbortController();
    const res = await fetch(
      streamUrl(vendor.baseUrl, { message: 'tell me a long story', sessionId: 'abort-1' }),
      {
        signal: client.signal,
      },
    );
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('First ')) seen += new TextDecoder().decode((await reader.read()).value);
    const abortedAt = Date.now();
    client.abort();
    const upstream = await fake.waitForAbort(2000);
    expect(upstream.abortedAt! - abortedAt).toBeLessThan(1000);
    await expect
      .poll(async () => (await storedTurns('abort-1')).at(-1), { timeout: scaled(3000) })
      .toMatchObject({ role: 'assistant', status: 'interrupted' });
    const partial = (await storedTurns('abort-1')).at(-1)!;
    expect(partial.content.startsWith('First ')).toBe(true);
    expect(partial.content.length).toBeLessThan(100);
  });

  it('replays the stored reply for a repeated requestId instead of running the turn again', async () => {
    fake.script({ chunks: ['Only ', 'once'] });
    const params = { message: 'hello', sessionId: 'replay-1', requestId: 'req-42' };
    const before = fake.requests.length;
    const first = parseSse(await (await fetch(streamUrl(vendor.baseUrl, params))).text());
    const again = parseSse(await (await fetch(streamUrl(vendor.baseUrl, params))).text());
    expect(fake.requests.length).toBe(before + 1);
    const text = (events: ReturnType<typeof parseSse>) =>
      events
        .filter((e) => e.data && e.data !== '[DONE]')
        .map((e) => expectContract(ChatChunk, JSON.parse(e.data!)).choices[0]!.delta.content ?? '')
        .join('');
    expect(text(first)).toBe('Only once');
    expect(text(again)).toBe('Only once');
    expect(again.at(-1)!.data).toBe('[DONE]');
    expect(await storedTurns('replay-1')).toHaveLength(2);
  });

  it('sends a ": ping" comment while a reply is slow', async () => {
    const slow = await startTestGateway({
      databaseUrl: g.databaseUrl,
      redis: 'none',
      env: { SSE_PING_MS: '100', LOCAL_PROVIDER_DELAY_MS: '60' },
    });
    try {
      const events = parseSse(await (await fetch(streamUrl(slow.baseUrl, { message: 'help' }))).text());
      expect(events.some((e) => e.comment === 'ping')).toBe(true);
      expect(events.at(-1)!.data).toBe('[DONE]');
    } finally {
      await slow.close();
    }
  });

  it.each([
    ['no message', {}, 'validation-failed'],
    ['an empty message', { message: '' }, 'validation-failed'],
    ['a message over 8000 characters', { message: 'a'.repeat(8001) }, 'validation-failed'],
    ['a bad session id', { message: 'hi', sessionId: 'no spaces' }, 'validation-failed'],
    ['a bad requestId', { message: 'hi', requestId: 'x'.repeat(129) }, 'validation-failed'],
    ['an unknown provider', { message: 'hi', provider: 'nope' }, 'unknown-provider'],
    ['an unknown parameter', { message: 'hi', colour: 'blue' }, 'validation-failed'],
  ])('answers %s with a problem before any stream starts', async (_name, params, code) => {
    await expectProblem(await fetch(streamUrl(g.baseUrl, params as Record<string, string>)), 400, code);
  });

  it('holds at most MAX_STREAMS_PER_IP open streams per client', async () => {
    const limited = await startTestGateway({
      databaseUrl: g.databaseUrl,
      redis: 'none',
      env: {
        MAX_STREAMS_PER_IP: '2',
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: 'sk-test',
        PROVIDER: 'openai',
      },
    });
    const clients = [new AbortController(), new AbortController()];
    try {
      fake.script({ chunks: ['a'], end: 'hang' }, { chunks: ['b'], end: 'hang' });
      const open = await Promise.all(
        clients.map((c) => fetch(streamUrl(limited.baseUrl, { message: 'hi' }), { signal: c.signal })),
      );
      expect(open.map((r) => r.status)).toEqual([200, 200]);
      const third = await fetch(streamUrl(limited.baseUrl, { message: 'hi' }));
      await expectProblem(third, 429, 'too-many-streams');
      clients[0]!.abort();
      await expect
        .poll(async () => {
          const r = await fetch(streamUrl(limited.baseUrl, { message: 'help', provider: 'local' }));
          await r.text();
          return r.status;
        })
        .toBe(200);
    } finally {
      for (const c of clients) c.abort();
      await limited.close();
    }
  });
});

describe('memory reaches the provider', () => {
  it('sends the system prompt, the latest 20 turns and the new message', async () => {
    const sessions = createSessionRepository(g.db);
    const t0 = Date.now() - 100_000;
    const { session } = await sessions.begin({
      channel: 'web',
      owner: '',
      externalId: 'context-1',
      message: 'turn 0',
      createdAt: new Date(t0),
    });
    for (let i = 1; i < 26; i++) {
      await sessions.addTurn(session.id, {
        role: i % 2 ? 'assistant' : 'user',
        content: `turn ${i}`,
        status: 'complete',
        createdAt: new Date(t0 + i * 1000),
      });
    }
    fake.script({ chunks: ['ok'] });
    const before = fake.requests.length;
    const res = await postJson(vendor.baseUrl, '/api/chat', { message: 'and now?', sessionId: 'context-1' });
    expect(res.status).toBe(200);
    const sent = fake.requests[before]!.body.messages;
    expect(sent).toHaveLength(22);
    expect(sent[0]!.role).toBe('system');
    expect(sent.slice(1, 21).map((m) => m.content)).toEqual(
      Array.from({ length: 20 }, (_, i) => `turn ${i + 6}`),
    );
    expect(sent[21]).toMatchObject({ role: 'user', content: 'and now?' });
  });
});
