import { type RedisServer, startRedisServer, until } from '@pa/http-kit/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// A private redis-server (the shared one must stay up), killed and started again under a running gateway: the
// chat limit must keep answering 429 past the budget (counting in memory) and count in Redis again once it is back.

let server: RedisServer;
let g: TestGateway;
let probe: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  g = await startTestGateway({
    redis: 'required',
    env: { REDIS_URL: server.url, CHAT_RATE_LIMIT_PER_MIN: '3' },
  });
  probe = new Redis(server.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  probe.on('error', () => {});
  await probe.connect();
});
afterAll(async () => {
  probe?.disconnect();
  await g?.close();
  await server?.stop();
});

const chat = () => postJson(g.baseUrl, '/api/chat', { message: 'hello' });
const counted = async () => {
  const keys = await probe.keys(`${g.config.REDIS_PREFIX}rl:chat:*`);
  return keys.length ? Number(await probe.get(keys[0]!)) : 0;
};

describe('chat rate limit when Redis goes away at run time', () => {
  it('falls back to the in-memory budget (never unlimited) and returns to Redis when it is back', async () => {
    expect((await chat()).status).toBe(200);
    expect(await counted()).toBe(1);

    await server.stop();
    await until('the gateway to see Redis gone', () => g.redis!.status !== 'ready');
    // nothing printed per request while Redis is down (express-rate-limit logged each store error with its stack)
    const printed: unknown[] = [];
    const spies = (['error', 'warn', 'log'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void printed.push(args)),
    );
    try {
      // what is left of the budget of 3 (the hit counted in Redis was counted here too), then 429: the limit
      // neither turns itself off nor starts afresh
      for (let i = 1; i <= 2; i++) expect((await chat()).status, `request ${i} without Redis`).toBe(200);
      for (let i = 1; i <= 5; i++) await expectProblem(await chat(), 429, 'rate-limited');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(printed).toEqual([]);

    await server.start();
    await until('the gateway to reconnect', () => g.redis!.status === 'ready');
    await until('the probe to reconnect', () => probe.status === 'ready');
    // the restarted Redis is empty: counting there again from 1 (scripts reloaded), up to its budget
    expect((await chat()).status).toBe(200);
    expect(await counted()).toBe(1);
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(200);
    expect(await counted()).toBe(3);
    await expectProblem(await chat(), 429, 'rate-limited');
  });
});
