// For tests (`@pa/http-kit/testing`): a private redis-server on a free port, which a test may stop and start
// again (the shared Redis must stay up), and polling with a deadline instead of sleeps.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Resolves with fn's first truthy value; throws after `ms`. */
export async function until<T>(
  what: string,
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface RedisServer {
  port: number;
  url: string;
  /** SIGKILL, as a crash would */
  stop(): Promise<void>;
  /** a fresh server (empty) on the same port */
  start(): Promise<void>;
}

function spawnRedis(port: number): Promise<ChildProcess> {
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

const kill = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined = await spawnRedis(port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child) await kill(child);
      child = undefined;
    },
    async start() {
      if (!child) child = await spawnRedis(port);
    },
  };
}
