// The metrics settings both apps read (METRICS_ENABLED, METRICS_TOKEN, METRICS_PORT, METRICS_HOST), and what they
// say that their author may not mean, worded alike in both apps' start logs.

export interface MetricsSettings {
  METRICS_ENABLED: boolean;
  METRICS_TOKEN?: string | undefined;
  METRICS_PORT?: number | undefined;
  METRICS_HOST: string;
}

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host.startsWith('127.');

export function metricsWarnings(c: MetricsSettings): string[] {
  if (!c.METRICS_ENABLED) {
    return c.METRICS_TOKEN !== undefined || c.METRICS_PORT !== undefined
      ? ['METRICS_TOKEN or METRICS_PORT is set but METRICS_ENABLED is not true: no metrics are served.']
      : [];
  }
  const warnings: string[] = [];
  if (c.METRICS_TOKEN === undefined && c.METRICS_PORT === undefined) {
    warnings.push(
      'METRICS_ENABLED is true without METRICS_TOKEN or METRICS_PORT: metrics are counted but served nowhere.',
    );
  }
  if (c.METRICS_PORT !== undefined && !isLoopback(c.METRICS_HOST)) {
    warnings.push(
      `METRICS_HOST is ${c.METRICS_HOST}: /metrics on METRICS_PORT answers without a token to anyone who can reach that address.`,
    );
  }
  return warnings;
}
