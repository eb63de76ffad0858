// For tests (`@pa/http-kit/testing`): a private redis-server on a free port, which a test may stop and start
// again (the shared Redis must stay up), and polling with a deadline instead of sleeps.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { scaled } from './time-scale.ts';

/** The kernel's range for outgoing connections' local ports (Linux; the usual default elsewhere). */
function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return [Number(lo), Number(hi)];
  } catch {
    return [32768, 60999];
  }
}

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/**
 * A port free on 127.0.0.1, for a server that must be told its port before it starts (a child process, a URL
 * given in its configuration). Chosen below the kernel's ephemeral range: a port from that range (what listening on
 * port 0 gives) can be taken meanwhile by any outgoing connection on the machine (the tests make thousands), and the
 * server then fails with EADDRINUSE. Nothing takes a port below the range unless it asks for that port itself.
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const low = 10_000;
  const high = ephemeralLow > low + 1_000 ? ephemeralLow - 1 : 65_535;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${low} and ${high}`);
}

/** Resolves with fn's first truthy value; throws after `ms` (an idle machine's deadline, scaled by the load). */
export async function until<T>(
  what: string,
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + scaled(ms);
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
