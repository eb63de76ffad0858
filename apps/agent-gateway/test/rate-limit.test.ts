import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

let g: TestGateway;
beforeAll(async () => {
  g = await startTestGateway({ redis: 'required' });
});
afterAll(async () => g?.close());

const chat = (base: string, headers: Record<string, string> = {}) =>
  postJson(base, '/api/chat', { message: 'hello' }, headers);

describe('chat rate limit: 30 requests per minute per client IP', () => {
  it('answers the 31st request with 429, Retry-After and draft-8 headers; the stream shares the budget', async () => {
    for (let i = 1; i <= 29; i++) {
      const res = await chat(g.baseUrl);
      expect(res.status, `request ${i}`).toBe(200);
      if (i === 1) {
        expect(res.headers.get('ratelimit-policy')).toMatch(/^"chat"; q=30; w=60/);
        expect(res.headers.get('ratelimit')).toMatch(/^"chat"; r=29; t=\d+/);
      }
    }
    const thirtieth = await fetch(`${g.baseUrl}/api/chat/stream?message=hi`);
    expect(thirtieth.status).toBe(200);
    await thirtieth.text();
    const res = await chat(g.baseUrl);
    const p = await expectProblem(res, 429, 'rate-limited');
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(p.detail).toMatch(/try again in \d+ s/);
    expect(res.headers.get('ratelimit')).toMatch(/r=0/);
    await expectProblem(await fetch(`${g.baseUrl}/api/chat/stream?message=hi`), 429, 'rate-limited');
    // Routes outside the chat budget still answer.
    expect((await fetch(`${g.baseUrl}/api/providers`)).status).toBe(200);
  });

  it('two instances on one Redis share one budget', async () => {
    const a = await startTestGateway({ redis: 'required', env: { CHAT_RATE_LIMIT_PER_MIN: '4' } });
    const b = await startTestGateway({
      redis: 'required',
      databaseUrl: a.databaseUrl,
      env: { CHAT_RATE_LIMIT_PER_MIN: '4', REDIS_PREFIX: a.config.REDIS_PREFIX },
    });
    try {
      expect((await chat(a.baseUrl)).status).toBe(200);
      expect((await chat(b.baseUrl)).status).toBe(200);
      expect((await chat(a.baseUrl)).status).toBe(200);
      expect((await chat(b.baseUrl)).status).toBe(200);
      await expectProblem(await chat(a.baseUrl), 429, 'rate-limited');
      await expectProblem(await chat(b.baseUrl), 429, 'rate-limited');
      expect(await a.redis!.keys(`${a.config.REDIS_PREFIX}rl:chat:*`)).toHaveLength(1);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('a spoofed X-Forwarded-For does not open a fresh bucket (TRUST_PROXY=0)', async () => {
    const s = await startTestGateway({ redis: 'required', env: { CHAT_RATE_LIMIT_PER_MIN: '2' } });
    try {
      expect((await chat(s.baseUrl, { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(200);
      expect((await chat(s.baseUrl, { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(200);
      await expectProblem(await chat(s.baseUrl, { 'X-Forwarded-For': '203.0.113.3' }), 429, 'rate-limited');
    } finally {
      await s.close();
    }
  });

  it('behind one trusted proxy (TRUST_PROXY=1), clients are told apart by the address the proxy adds', async () => {
    const s = await startTestGateway({
      redis: 'required',
      env: { CHAT_RATE_LIMIT_PER_MIN: '1', TRUST_PROXY: '1' },
    });
    try {
      expect((await chat(s.baseUrl, { 'X-Forwarded-For': '198.51.100.7' })).status).toBe(200);
      expect((await chat(s.baseUrl, { 'X-Forwarded-For': '198.51.100.8' })).status).toBe(200);
      await expectProblem(await chat(s.baseUrl, { 'X-Forwarded-For': '198.51.100.7' }), 429, 'rate-limited');
      // A client prepending its own address does not escape: only the proxy's hop is trusted.
      await expectProblem(
        await chat(s.baseUrl, { 'X-Forwarded-For': '10.9.9.9, 198.51.100.7' }),
        429,
        'rate-limited',
      );
    } finally {
      await s.close();
    }
  });

  it('without a reachable Redis the gateway still chats, limiting in memory', async () => {
    const s = await startTestGateway({
      env: { REDIS_URL: 'redis://127.0.0.1:1', CHAT_RATE_LIMIT_PER_MIN: '2' },
    });
    try {
      expect(s.redis).toBeNull();
      expect((await chat(s.baseUrl)).status).toBe(200);
      expect((await chat(s.baseUrl)).status).toBe(200);
      await expectProblem(await chat(s.baseUrl), 429, 'rate-limited');
      const ready = await (await fetch(`${s.baseUrl}/readyz`)).json();
      expect(ready).toEqual({ status: 'ok', checks: { database: 'ok' } });
    } finally {
      await s.close();
    }
  });
});
