import { gatewayRoutes, type RouteAccess } from '@pa/contracts';
import { match } from 'path-to-regexp';

// The access rule of a request, read from the route table (packages/contracts' gateway-routes.ts), so that a new
// route cannot be added without saying who may call it. path-to-regexp is what Express 5's router matches with,
// and its defaults (case-insensitive, a trailing slash allowed) are the router's: a path Express would route to a
// handler finds that handler's rule here.

export type RequestAccess =
  | { kind: 'route'; access: RouteAccess; operationId: string }
  /** an /api or /v1 path no route of the table serves: a valid token is needed before it is told 404 */
  | { kind: 'unknown-api' }
  /** the UI, its assets and anything else outside /api and /v1 */
  | { kind: 'outside-api' };

type Matcher = { test: (path: string) => boolean; access: RouteAccess; operationId: string };

const byMethod = new Map<string, Matcher[]>();
for (const route of Object.values(gatewayRoutes) as Array<{
  operationId: string;
  method: string;
  path: string;
  access?: RouteAccess;
}>) {
  const access = route.access;
  if (!access) throw new Error(`Gateway route ${route.operationId} has no access rule.`);
  const fn = match(route.path, { decode: false });
  const list = byMethod.get(route.method.toUpperCase()) ?? [];
  list.push({ test: (p) => fn(p) !== false, access, operationId: route.operationId });
  byMethod.set(route.method.toUpperCase(), list);
}

const API_PATH = /^\/(api|v1)(\/|$)/i;

// The answers for the paths seen lately: the chat's own paths are the same on every request, so the route table is
// scanned once for them rather than on every turn. Bounded (paths carry ids): emptied when full.
const seen = new Map<string, RequestAccess>();
const SEEN_MAX = 2_000;

export function requestAccess(method: string, path: string): RequestAccess {
  const m = method === 'HEAD' ? 'GET' : method;
  const key = `${m} ${path}`;
  const known = seen.get(key);
  if (known) return known;
  const found = scan(m, path);
  if (seen.size >= SEEN_MAX) seen.clear();
  seen.set(key, found);
  return found;
}

function scan(method: string, path: string): RequestAccess {
  for (const r of byMethod.get(method) ?? []) {
    if (r.test(path)) return { kind: 'route', access: r.access, operationId: r.operationId };
  }
  return API_PATH.test(path) ? { kind: 'unknown-api' } : { kind: 'outside-api' };
}
