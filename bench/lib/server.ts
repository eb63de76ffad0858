// The child side of a server under test, shared by bench/bridge/server.ts and bench/gateway/server.ts: listening
// on an ephemeral port and answering the parent's ServerHandle (bench/lib/child.ts) over IPC.
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface ProcessStats {
  /** user + system CPU time of the process since it started, µs */
  cpuMicros: number;
  /** event-loop busy and idle time since start, ms */
  eventLoopActiveMs: number;
  eventLoopIdleMs: number;
  rss: number;
  heapUsed: number;
}

/** CPU, event-loop and memory figures of this process since it started. */
export function processStats(mem: NodeJS.MemoryUsage = process.memoryUsage()): ProcessStats {
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  return {
    cpuMicros: cpu.user + cpu.system,
    eventLoopActiveMs: elu.active,
    eventLoopIdleMs: elu.idle,
    rss: mem.rss,
    heapUsed: mem.heapUsed,
  };
}

/**
 * Stops accepting and lets requests still in flight finish (at most 2 s) so that none of them meets a closed
 * pool — including, when they are tracked in `inFlight`, those whose client has gone (autocannon drops its
 * sockets at the end of a run while their requests still wait for a pool connection) — then `close()`s the
 * rest and exits.
 */
function shutdown(server: Server, inFlight: Set<ServerResponse>, close: () => Promise<unknown>): void {
  const deadline = Date.now() + 2_000;
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 2_000).unref();
  server.close(() => {
    const finish = () => {
      if (Date.now() < deadline && [...inFlight].some((res) => !res.writableEnded)) setTimeout(finish, 20);
      else void close().finally(() => process.exit(0));
    };
    finish();
  });
}

/** A question from the parent; its answer carries the same id. */
export type Question = { type: string; id: number } & Record<string, unknown>;

/**
 * Listens on 127.0.0.1 port 0 and sends `{ type: 'listening', port, ...listening }` to the parent; answers each of
 * its questions with what `answer` returns (sent with the question's id); on `shutdown`, lets requests in flight
 * finish, `close()`s and exits; exits when the parent goes away.
 */
export function serve(
  app: { listen(port: number, host: string, cb: () => void): Server },
  opts: {
    /** for error messages */
    name: string;
    close: () => Promise<unknown>;
    listening?: Record<string, unknown>;
    answer: (question: Question) => object | Promise<object>;
    /**
     * Keep a handler whose client has gone for up to 2 s, for shutdown to wait for it. For request/response
     * servers only: a stream's handler may never end its response, which would then be held for those 2 s.
     */
    trackAbandoned?: boolean;
  },
): Server {
  const send = (msg: object) => process.send?.(msg);
  const server = app.listen(0, '127.0.0.1', () => {
    send({ ...opts.listening, type: 'listening', port: (server.address() as AddressInfo).port });
  });
  server.keepAliveTimeout = 60_000;
  // responses whose handler has not ended them yet (their client may be gone)
  const inFlight = new Set<ServerResponse>();
  if (opts.trackAbandoned) {
    server.on('request', (_req, res: ServerResponse) => {
      inFlight.add(res);
      res.once('close', () => {
        // a handler still working after its client left is waited for as long as shutdown would wait
        if (res.writableEnded) inFlight.delete(res);
        else setTimeout(() => inFlight.delete(res), 2_000).unref();
      });
    });
  }
  process.on('message', (msg: Question | { type: 'shutdown' }) => {
    if (msg.type === 'shutdown') {
      shutdown(server, inFlight, opts.close);
      return;
    }
    const question = msg as Question;
    void (async () => send({ ...(await opts.answer(question)), id: question.id }))().catch((err: unknown) => {
      console.error(`${opts.name}: ${question.type} failed:`, err);
    });
  });
  process.on('disconnect', () => process.exit(0));
  return server;
}
