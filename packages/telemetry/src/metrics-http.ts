import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Histogram, type Registry } from 'prom-client';

// The HTTP families of both apps: requests and their latency by route, the problems answered by code, and the
// rate limits' refusals. A label is never the raw URL: the route is the ROUTE TABLE's path
// (`/api/assistant-bridge/properties/:id`), `static` for what no route of the table answers successfully (the UI's
// page and files), `unmatched` for the rest (404s, refusals before routing); problem codes and limit names are
// the code's own constants, and anything that does not look like one is counted as `other`. So every label has a
// small, fixed set of values, whatever the callers send.
//
// Cheap on purpose: one hrtime when the request arrives, everything else when the response closes.

export interface RouteEntry {
  method: string;
  /** Express style: `/properties/:id` */
  path: string;
}

/** What an app's problem handler answered with (http-kit records it per response). */
export interface AnsweredProblem {
  code: string;
  status: number;
  /** the rate limit that refused the request, for a 429 */
  limit?: string | undefined;
}

export const STATIC_ROUTE = 'static';
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A code or limit name as a label: the code's own slugs pass, anything else is `other`. */
export function codeLabel(value: string | undefined): string {
  return value !== undefined && CODE.test(value) ? value : 'other';
}

interface Template {
  path: string;
  segments: string[];
  params: number;
}

function segmentsOf(path: string): string[] {
  // Express 5's defaults: case-insensitive, a trailing slash allowed
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.toLowerCase().split('/');
}

function matches(t: Template, segments: string[]): boolean {
  if (t.segments.length !== segments.length) return false;
  for (let i = 0; i < segments.length; i++) {
    const want = t.segments[i]!;
    if (want.startsWith(':') ? segments[i] === '' : want !== segments[i]) return false;
  }
  return true;
}

// The longest path whose answer is remembered: a route-table path with its ids is far shorter.
const SEEN_PATH_MAX = 256;
const SEEN_MAX = 2_000;

/**
 * The route-table path a request falls under, or undefined. Matched as Express 5 matches (`:param` is one
 * non-empty segment); when several fit, the one with the fewest parameters wins (a literal path before a pattern).
 * HEAD falls under GET and OPTIONS (a preflight) under any method. Answers for the paths seen lately are kept,
 * bounded, since paths carry ids; only found ones, of paths no longer than SEEN_PATH_MAX: a scanner's made-up or
 * long paths would otherwise push the real ones out (the matching itself is cheap).
 */
export function createRouteLabeler(
  routes: Iterable<RouteEntry>,
  /** the remembered answers, by `METHOD path` (a test passes its own to see what is kept) */
  seen: Map<string, string> = new Map(),
): (method: string, path: string) => string | undefined {
  const byMethod = new Map<string, Template[]>();
  const any: Template[] = [];
  for (const r of routes) {
    const t = { path: r.path, segments: segmentsOf(r.path), params: 0 };
    t.params = t.segments.filter((s) => s.startsWith(':')).length;
    const method = r.method.toUpperCase();
    const list = byMethod.get(method) ?? [];
    list.push(t);
    byMethod.set(method, list);
    any.push(t);
  }
  for (const list of [...byMethod.values(), any]) list.sort((a, b) => a.params - b.params);

  return (method, path) => {
    const m = method === 'HEAD' ? 'GET' : method;
    const key = `${m} ${path}`;
    const known = seen.get(key);
    if (known !== undefined) return known;
    const segments = segmentsOf(path);
    const list = m === 'OPTIONS' ? any : (byMethod.get(m) ?? []);
    const found = list.find((t) => matches(t, segments))?.path;
    if (found !== undefined && path.length <= SEEN_PATH_MAX) {
      if (seen.size >= SEEN_MAX) seen.clear();
      seen.set(key, found);
    }
    return found;
  };
}

export interface HttpMetricsOptions {
  registry: Registry;
  /** the app's route table, and any route of its own besides (`/metrics`) */
  routes: Iterable<RouteEntry>;
  /** the problem a response answered with, if any */
  problemOf: (res: ServerResponse) => AnsweredProblem | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** The middleware that counts every request; mount it before anything that may answer. */
export function httpMetrics(opts: HttpMetricsOptions): Handler {
  const { registry, problemOf } = opts;
  const labelOf = createRouteLabeler(opts.routes);
  const requests = new Counter({
    name: 'pa_http_requests_total',
    help: 'HTTP requests answered, by method, route-table path and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'pa_http_request_duration_seconds',
    help: 'From the request’s arrival to its response’s end (an event stream: until it closes).',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const problems = new Counter({
    name: 'pa_http_problems_total',
    help: 'Problem responses (RFC 9457) by their stable code.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const refused = new Counter({
    name: 'pa_rate_limited_total',
    help: 'Requests refused by a rate limit (429), by the limit’s name.',
    labelNames: ['limit'] as const,
    registers: [registry],
  });

  const record = (req: IncomingMessage, res: ServerResponse, started: bigint) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const method = METHODS.has(req.method ?? '') ? req.method! : 'other';
    const status = res.statusCode;
    // originalUrl: Express's own, unchanged by the routers it passed through
    const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const q = url.indexOf('?');
    const route =
      labelOf(method, q === -1 ? url : url.slice(0, q)) ?? (status < 400 ? STATIC_ROUTE : UNMATCHED_ROUTE);
    requests.inc({ method, route, status: String(status) });
    duration.observe({ method, route, status_class: `${Math.floor(status / 100)}xx` }, seconds);
    const problem = problemOf(res);
    if (problem) {
      problems.inc({ code: codeLabel(problem.code) });
      if (problem.status === 429) refused.inc({ limit: codeLabel(problem.limit ?? problem.code) });
    }
  };

  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // 'close' comes after 'finish', and also for a response cut short (a client gone from an event stream)
    res.once('close', () => record(req, res, started));
    next();
  };
}
