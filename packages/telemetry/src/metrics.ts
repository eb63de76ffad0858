import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';

// Prometheus metrics as both apps serve them (docs/operations.md, "Metrics"). Off unless METRICS_ENABLED: then each
// app instance has a registry of its own, made in its composition root, because tests build many apps in one
// process and prom-client's global registry would mix their counts (and refuse a second family of one name). The
// process's own metrics (CPU, memory, event loop, GC) exist once per process: collected into a registry of their
// own the first time an app asks, and served after the app's families.
//
// Served two ways, both off by default: GET /metrics on the app's own port, only with `Authorization: Bearer
// <METRICS_TOKEN>` (the path is 404 while no token is set), and a second listener on METRICS_PORT bound to
// METRICS_HOST (127.0.0.1 unless told otherwise) that answers GET /metrics to anyone who can reach it.

export { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Every family of ours starts with it (prom-client's process metrics keep their standard names). */
export const METRIC_PREFIX = 'pa_';
export const METRICS_PATH = '/metrics';
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

let processRegistry: Registry | undefined;

/** prom-client's default metrics, collected once per process whatever the number of apps in it. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** A registry for one app instance: every family it holds carries `app="<name>"`. */
export function createAppRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  // made now, so that the event-loop monitor runs from the start rather than from the first scrape
  processMetrics();
  return registry;
}

/** The exposition text: the app's families, then the process's. */
export async function scrapeMetrics(registry: Registry): Promise<string> {
  const [own, proc] = await Promise.all([registry.metrics(), processMetrics().metrics()]);
  return `${own}\n${proc}`;
}

/**
 * A value read at scrape time (a COUNT, a lag), or NaN when it cannot be had within `ms`: a database that is slow
 * or away must not fail the whole scrape (the other families matter most just then). NaN reads as "no data".
 */
export async function readWithin(read: () => Promise<number>, ms = 2_000): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((resolve) => {
    timer = setTimeout(() => resolve(Number.NaN), ms);
  });
  try {
    return await Promise.race([read().catch(() => Number.NaN), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `read` shared by the scrapes that overlap it: while one read runs, another call gets the same promise instead of
 * starting a second. A scrape-time gauge reads through it, so that scrapes against a slow database (each given up
 * by readWithin after its 2 s, while the query itself goes on) wait for the one query rather than pile up more.
 */
export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  return () => {
    running ??= read().finally(() => {
      running = null;
    });
    return running;
  };
}

const sha256 = (value: string) => createHash('sha256').update(value).digest();
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** Whether `Authorization` carries `Bearer <token>`; compared in constant time (as SHA-256 digests). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const given = (authorization && BEARER.exec(authorization)?.[1]) ?? '';
  // hashed first so that neither the length nor the content of the token shows in the time taken
  return timingSafeEqual(sha256(given), sha256(token)) && given !== '';
}

type Next = (err?: unknown) => void;

/**
 * GET /metrics on the app's own port. With no token the request is passed on (the app's 404: the path does not
 * exist); a missing or wrong bearer is handed to the app's error handler as `unauthorized()` (its 401 problem).
 */
export function metricsEndpoint(opts: {
  registry: Registry;
  /** METRICS_TOKEN; unset: not served */
  token: string | undefined;
  unauthorized: () => Error;
}) {
  const { registry, token } = opts;
  return async (req: IncomingMessage, res: ServerResponse, next: Next): Promise<void> => {
    if (!token) return next();
    if (!bearerMatches(req.headers.authorization, token)) return next(opts.unauthorized());
    const body = await scrapeMetrics(registry);
    res.statusCode = 200;
    res.setHeader('Content-Type', METRICS_CONTENT_TYPE);
    res.setHeader('Cache-Control', 'no-store');
    res.end(body);
  };
}

export interface MetricsListener {
  /** `http://127.0.0.1:9464` */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * The second listener (METRICS_PORT on METRICS_HOST): GET and HEAD /metrics without a token, 404 for any other
 * path, 405 for any other method. Plain node:http, apart from the app: nothing of the app's stack runs for a scrape.
 */
export function startMetricsListener(opts: {
  registry: Registry;
  host: string;
  port: number;
  /** told when a scrape fails (answered 500 without details) */
  onError?: (err: unknown) => void;
}): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    res.setHeader('Cache-Control', 'no-store');
    if (path !== METRICS_PATH) {
      res
        .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
        .end('Not found: only /metrics is served here.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end();
      return;
    }
    scrapeMetrics(opts.registry).then(
      (body) => {
        res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        opts.onError?.(err);
        res
          .writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end('The metrics could not be collected.\n');
      },
    );
  });
  // a scraper holds its connection open between scrapes: closing must not wait for it
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      const { address, port } = server.address() as AddressInfo;
      const host = address.includes(':') ? `[${address}]` : address;
      resolve({
        url: `http://${host}:${port}`,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
