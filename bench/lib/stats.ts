// Latency statistics shared by both benchmarks (platform bridge in bench/, agent gateway in bench/gateway/).

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
