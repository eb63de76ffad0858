// Load generation shared by both benchmarks: an autocannon run summarised in the form both report it, and a
// plain HTTP client that reads a whole response (for the checks and sequential latencies).
import http from 'node:http';
import { performance } from 'node:perf_hooks';
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

/**
 * autocannon at `connections` for `durationS` seconds (30 s request timeout) against `url`, with `headers` or, to
 * vary the requests, autocannon's `requests`.
 */
export async function loadTest(opts: {
  url: string;
  connections: number;
  durationS: number;
  headers?: Record<string, string>;
  requests?: autocannon.Request[];
}): Promise<LoadResult> {
  const r = await autocannon({
    url: opts.url,
    headers: opts.headers ?? {},
    connections: opts.connections,
    duration: opts.durationS,
    timeout: 30,
    ...(opts.requests ? { requests: opts.requests } : {}),
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

export interface HttpResponse {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
  /** from the request to the end of the response */
  ms: number;
}

/** One request, its whole response read as text. `agent: false` for a connection of its own. */
export function httpRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent | false } = {},
): Promise<HttpResponse> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers = { ...opts.headers };
    if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
    const req = http.request(
      url,
      { method: opts.method ?? 'GET', headers, agent: opts.agent ?? false },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(parts).toString('utf8'),
            headers: res.headers,
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
