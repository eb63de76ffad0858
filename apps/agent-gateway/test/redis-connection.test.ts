import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@pa/http-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../src/lib/redis.ts';

// A private redis-server on a free port (the shared one must stay up), stopped and started again under a
// connected client: the gateway's log gets one structured line per state change, not one per retry.

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

async function until<T>(what: string, fn: () => T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

const servers: ChildProcess[] = [];
afterAll(async () => {
  for (const s of servers) await stop(s);
});

describe('Redis connection state in the logs', () => {
  it('logs one JSON line when Redis goes away and one when it is back, whatever the retries', async () => {
    const port = await freePort();
    servers.push(await startRedis(port));
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger('agent-gateway', 'info', sink);
    const url = `redis://127.0.0.1:${port}`;
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
      await stop(servers.pop()!);
      // several failed attempts (each an ioredis 'error')
      await until('reconnect attempts', () => reconnects >= 4);
      servers.push(await startRedis(port));
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
