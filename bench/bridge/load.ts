// Load generation and latency statistics: autocannon for throughput under concurrency, and a sequential
// keep-alive client for the latency of single requests (used for the 1k/10k/100k comparison, where a
// concurrent run would mostly measure queueing).
import http from 'node:http';
import autocannon from 'autocannon';
import { type LoadResult, loadResult } from '../lib/load.ts';
import { type LatencyStats, latencyStats } from '../lib/stats.ts';

export async function loadTest(opts: {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
}): Promise<LoadResult> {
  const r = await autocannon({
    url: opts.url,
    headers: opts.headers ?? {},
    connections: opts.connections,
    duration: opts.durationS,
    timeout: 30,
  });
  return loadResult(opts.connections, r);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** One request at a time for about `durationMs`, with at least `min` and at most `max` requests. */
export async function sequential(
  url: string,
  headers: Record<string, string>,
  opts: { durationMs: number; min: number; max: number },
): Promise<LatencyStats> {
  const samples: number[] = [];
  const started = performance.now();
  while (
    samples.length < opts.max &&
    (samples.length < opts.min || performance.now() - started < opts.durationMs)
  ) {
    const r = await get(url, headers);
    if (r.status !== 200) throw new Error(`GET ${url} answered ${r.status}: ${r.body.slice(0, 300)}`);
    samples.push(r.ms);
  }
  return latencyStats(samples);
}

export function destroyAgent(): void {
  agent.destroy();
}
