// The summary of an autocannon run, in the form both benchmarks report it.
import type autocannon from 'autocannon';

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

export function loadResult(connections: number, r: autocannon.Result): LoadResult {
  return {
    connections,
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
