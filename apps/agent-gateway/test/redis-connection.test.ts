import { Writable } from 'node:stream';
import { createLogger } from '@pa/http-kit';
import { type RedisServer, startRedisServer, until } from '@pa/http-kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../src/lib/redis.ts';

// A private redis-server on a free port (the shared one must stay up), stopped and started again under a
// connected client: the gateway's log gets one structured line per state change, not one per retry.

let server: RedisServer | undefined;
afterAll(async () => server?.stop());

describe('Redis connection state in the logs', () => {
  it('logs one JSON line when Redis goes away and one when it is back, whatever the retries', async () => {
    server = await startRedisServer();
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger('agent-gateway', 'info', sink);
    const url = server.url;
    const redis = await connectRedis(url, { logger });
    expect(redis).not.toBeNull();
    let reconnects = 0;
    redis!.on('reconnecting', () => reconnects++);
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      stderr.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      await server.stop();
      // several failed attempts (each an ioredis 'error')
      await until('reconnect attempts', () => reconnects >= 4);
      await server.start();
      await until('the connection back', () => redis!.status === 'ready');
      await until('the restored line', () => lines.some((l) => l.includes('restored')));
    } finally {
      process.stderr.write = write;
      redis!.disconnect();
    }
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const lost = parsed.filter((l) => String(l.msg).startsWith('Redis connection lost'));
    const restored = parsed.filter((l) => l.msg === 'Redis connection restored');
    expect(lost).toHaveLength(1);
    expect(restored).toHaveLength(1);
    expect(lost[0]).toMatchObject({ level: 40, service: 'agent-gateway', redis: url });
    expect(JSON.stringify(parsed)).not.toMatch(/\n\s+at /);
    expect(stderr.join('')).not.toMatch(/ioredis|\n\s+at /);
  });
});
