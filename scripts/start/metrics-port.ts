// `npm start` runs both apps with one environment, so METRICS_PORT alone would ask both for a metrics listener on
// the same port, and the second to start would stop with EADDRINUSE. Unless PLATFORM_METRICS_PORT names the
// bridge's own (docs/operations.md, "Metrics"), the bridge takes the next port: METRICS_PORT + 1.

/**
 * The port to give the bridge's metrics listener (as PLATFORM_METRICS_PORT), or null when there is nothing to
 * choose: PLATFORM_METRICS_PORT is set, METRICS_PORT is not, is 0 (each app gets a free port of its own), is the
 * last port there is, or is no port at all (the apps' configuration says so, in its own words).
 */
export function bridgeMetricsPort(env: NodeJS.ProcessEnv): number | null {
  if (env.PLATFORM_METRICS_PORT?.trim()) return null;
  const given = env.METRICS_PORT?.trim();
  if (!given || !/^\d{1,5}$/.test(given)) return null;
  const port = Number(given);
  return port > 0 && port < 65535 ? port + 1 : null;
}
