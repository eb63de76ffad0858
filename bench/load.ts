// Load generation and latency statistics: autocannon for throughput under concurrency, and a sequential
// keep-alive client for the latency of single requests (used for the 1k/10k/100k comparison, where a
// concurrent run would mostly measure queueing).
import http from 'node:http';
import autocannon from 'autocannon';

export interface LoadResult {
  connections: number;
  durationS: number;
  requests: number;
  rps: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

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
  return {
    connections: opts.connections,
    durationS: r.duration,
    requests: r.requests.total,
    rps: r.requests.average,
    latencyMs: {
      mean: r.latency.mean,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      max: r.latency.max,
    },
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

export interface LatencyStats {
  n: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of samples in ms. */
export function latencyStats(samples: number[]): LatencyStats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return {
    n: s.length,
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: s[s.length - 1] ?? NaN,
  };
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
