import type { Options } from 'express-rate-limit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailoverStore } from '../src/rate-limit-store.ts';
import { type RedisServer, startRedisServer, until } from '../src/testing/index.ts';

// The store on its own, on a private redis-server: the cases the apps' tests do not reach.

let server: RedisServer;
const clients: Redis[] = [];
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server?.stop();
});

function client(opts: { username?: string; password?: string } = {}) {
  const c = new Redis(server.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    ...opts,
  });
  c.on('error', () => {});
  clients.push(c);
  return c;
}
const options = { windowMs: 60_000 } as Options;

describe('FailoverStore', () => {
  it('counts in memory while the client is not connected yet, then in Redis once it is ready', async () => {
    const redis = client();
    const store = new FailoverStore(redis, 'fs1:');
    store.init(options);
    expect((await store.increment('k')).totalHits).toBe(1);
    expect((await store.increment('k')).totalHits).toBe(2);
    await redis.connect();
    await until('ready', () => redis.status === 'ready');
    const hit = await store.increment('k');
    expect(hit.totalHits).toBe(1);
    expect(hit.resetTime!.getTime()).toBeGreaterThan(Date.now());
    expect(await redis.get('fs1:k')).toBe('1');
    store.shutdown();
  });

  it('keeps counting in memory while Redis counts, so losing Redis mid-window does not start a fresh budget', async () => {
    const redis = client();
    await redis.connect();
    const store = new FailoverStore(redis, 'fs3:');
    store.init(options);
    for (let i = 1; i <= 3; i++) expect((await store.increment('k')).totalHits).toBe(i);
    expect(await redis.get('fs3:k')).toBe('3');
    // Redis goes away: the next hits are counted on from this process's 3, not from 0
    redis.disconnect();
    await until('not ready', () => redis.status !== 'ready');
    expect((await store.increment('k')).totalHits).toBe(4);
    expect((await store.increment('k')).totalHits).toBe(5);
    store.shutdown();
  });

  it('counts in memory a hit whose Redis call fails on a ready connection, and never throws', async () => {
    const admin = client();
    await admin.connect();
    // a user that may not run scripts: every counting call fails while the connection stays ready
    await admin.call('ACL', 'SETUSER', 'noscripts', 'on', '>pw', '~*', '+@all', '-@scripting');
    const redis = client({ username: 'noscripts', password: 'pw' });
    await redis.connect();
    const store = new FailoverStore(redis, 'fs2:');
    store.init(options);
    for (let i = 1; i <= 3; i++) expect((await store.increment('k')).totalHits).toBe(i);
    expect(redis.status).toBe('ready');
    expect(await admin.exists('fs2:k')).toBe(0);
    store.shutdown();
  });
});
