// Child-side helpers shared by both benchmarks' servers under test (bench/bridge/server.ts, bench/gateway/server.ts).
import type { Server } from 'node:http';
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
 * Stops accepting, lets requests still in flight finish (at most 2 s) so that none of them meets a closed pool,
 * then `close()`s the rest and exits.
 */
export function shutdown(server: Server, close: () => Promise<unknown>): void {
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 2_000).unref();
  server.close(() => {
    void close().finally(() => process.exit(0));
  });
}
