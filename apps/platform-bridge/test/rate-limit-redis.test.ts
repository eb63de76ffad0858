import { connectRedis, createLogger } from '@pa/http-kit';
import { type RedisServer, startRedisServer, until } from '@pa/http-kit/testing';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { expectProblem } from './support/contract.ts';
import { bearer, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// Bridge instances on one database and a private redis-server (stopped and started again by the second test;
// the shared Redis must stay up). Each instance has its own Redis connection, as separate processes would.

let t: TestBridge;
let server: RedisServer;
const clients: Redis[] = [];
beforeAll(async () => {
  t = await startTestBridge();
  server = await startRedisServer();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await t?.close();
  await server?.stop();
});

let prefixes = 0;
async function instance(limit: number, prefix: string) {
  const redis = await connectRedis(server.url);
  expect(redis).not.toBeNull();
  clients.push(redis!);
  const app = createApp({
    db: t.db,
    statements: t.statements,
    logger: createLogger('platform-bridge', 'silent'),
    clock: t.clock,
    rollup: t.rollup,
    rateLimitPerMin: limit,
    redis,
    redisPrefix: prefix,
  });
  return { app, redis: redis! };
}
const uniquePrefix = () => `bridge-test:${process.pid}:${++prefixes}:`;

const PORTFOLIO = '/api/assistant-bridge/portfolio';

describe('bridge rate limit with REDIS_URL', () => {
  it('two instances on one Redis share one budget per key', async () => {
    const prefix = uniquePrefix();
    const a = await instance(3, prefix);
    const b = await instance(3, prefix);
    const tenant = await makeTenant(t);
    const get = (app: typeof a.app) =>
      request(app)
        .get(PORTFOLIO)
        .set(...bearer(tenant.key));
    expect((await get(a.app)).status).toBe(200);
    expect((await get(b.app)).status).toBe(200);
    expect((await get(a.app)).status).toBe(200);
    const past = await get(b.app);
    expectProblem(past, 429, 'rate-limited');
    expect(Number(past.headers['retry-after'])).toBeGreaterThan(0);
    expectProblem(await get(a.app), 429, 'rate-limited');
    expect(await a.redis.get(`${prefix}rl:key:${tenant.keyId}`)).toBe('5');
  });

  it('Redis down: each instance holds what is left of the budget in memory; back: counts in Redis again', async () => {
    const prefix = uniquePrefix();
    const a = await instance(2, prefix);
    const tenant = await makeTenant(t);
    const get = () =>
      request(a.app)
        .get(PORTFOLIO)
        .set(...bearer(tenant.key));
    const redisKey = `${prefix}rl:key:${tenant.keyId}`;
    expect((await get()).status).toBe(200);
    expect(await a.redis.get(redisKey)).toBe('1');

    await server.stop();
    await until('the instance to see Redis gone', () => a.redis.status !== 'ready');
    // the hit counted in Redis was counted here too: one of the budget of 2 is left, not a fresh 2
    expect((await get()).status).toBe(200);
    expectProblem(await get(), 429, 'rate-limited');
    expectProblem(await get(), 429, 'rate-limited');

    await server.start();
    await until('the instance to reconnect', () => a.redis.status === 'ready');
    expect((await get()).status).toBe(200);
    expect(await a.redis.get(redisKey)).toBe('1');
  });
});
