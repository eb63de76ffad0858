import type { ServerResponse } from 'node:http';
import {
  createAppRegistry,
  METRICS_PATH,
  metricsEndpoint,
  type MetricsListener,
  scrapeMetrics,
  startMetricsListener,
} from './metrics.ts';
import { type AnsweredProblem, httpMetrics, type RouteEntry } from './metrics-http.ts';

/**
 * What each app's metrics object offers beside its own families (lib/metrics in each app), on or off. `H` is the
 * app's middleware type (express's RequestHandler).
 */
export interface AppMetricsBase<H> {
  readonly enabled: boolean;
  /** the HTTP families' middleware; null when off */
  readonly http: H | null;
  /** GET /metrics on the app's own port (METRICS_TOKEN); null when off */
  readonly endpoint: H | null;
  /** the METRICS_PORT listener; null when off or without a port */
  listen(
    host: string,
    port: number | undefined,
    onError?: (err: unknown) => void,
  ): Promise<MetricsListener | null>;
  /** the exposition text, as the endpoints serve it */
  scrape(): Promise<string>;
}

/** Where an app's metrics are served, as its start-up log line says it. */
export function metricsWhere(
  listener: MetricsListener | null,
  settings: { enabled: boolean; token: string | undefined },
): string {
  if (listener) return `${listener.url}/metrics`;
  if (!settings.enabled) return 'off';
  return settings.token ? '/metrics (METRICS_TOKEN)' : 'not served';
}

// What every app's metrics start from (lib/metrics in each app): its registry, the HTTP families over its route
// table, GET /metrics on its own port behind METRICS_TOKEN, the METRICS_PORT listener and the scrape. Each app adds
// its own families to `registers`.
export function createAppMetrics(opts: {
  /** the `app` label */
  app: string;
  /** the app's route table */
  routes: Iterable<RouteEntry>;
  /** METRICS_TOKEN */
  token: string | undefined;
  /** the problem a response answered with (http-kit's answeredProblem) */
  problemOf: (res: ServerResponse) => AnsweredProblem | undefined;
  /** the app's 401 problem for a scrape without the token */
  unauthorized: () => Error;
}) {
  const registry = createAppRegistry(opts.app);
  return {
    registry,
    registers: [registry],
    http: httpMetrics({
      registry,
      routes: [...opts.routes, { method: 'get', path: METRICS_PATH }],
      problemOf: opts.problemOf,
    }),
    endpoint: metricsEndpoint({
      registry,
      token: opts.token,
      unauthorized: opts.unauthorized,
    }),
    listen: async (
      host: string,
      port: number | undefined,
      onError?: (err: unknown) => void,
    ): Promise<MetricsListener | null> =>
      port === undefined ? null : startMetricsListener({ registry, host, port, onError }),
    scrape: () => scrapeMetrics(registry),
  };
}
