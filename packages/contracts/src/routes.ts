import type { z } from 'zod';

// One entry per endpoint, in the spirit of ts-rest's `c.router({...})`: the routers register and parse with it,
// the gateway's bridge client builds its calls from it, and the OpenAPI documents are generated from it, so a
// path, a bound or a problem code is written once. (ts-rest itself supports neither zod 4 nor Express 5 in a
// released version, and our problem+json and OpenAPI conventions would sit on top of it anyway.)

type JsonSchema = Record<string, unknown>;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  /** several schemas mean any one of them (e.g. the events of a stream) */
  schema?: z.ZodType | readonly z.ZodType[];
  contentType?: string;
  headers?: Record<string, { description: string; schema?: JsonSchema }>;
}

export interface HeaderSpec {
  name: string;
  required: boolean;
  description: string;
  schema?: JsonSchema;
}

/**
 * Who may call a gateway route when `GATEWAY_AUTH=token` (docs/access.md); the bridge's routes leave it unset (their
 * keys are described by `security`). `open`: anyone. `optional`: anyone, but a caller with a token may see more.
 * `signed`: authenticated by its own signature or secret (Telegram, WhatsApp, the platform's events), never a
 * device token. A scope: a device token holding it, or the operator's `GATEWAY_ADMIN_TOKEN`. `embed`: the embedded
 * chat's API (docs/embedding.md), authenticated by its embed key, origin and visitor, never a device token.
 */
export type RouteAccess = 'open' | 'optional' | 'signed' | 'embed' | 'chat' | 'workers:write' | 'admin';

export interface RouteSpec {
  method: HttpMethod;
  /** Express style, `:id`; the OpenAPI document shows it as `{id}` */
  path: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** the gateway's access rule for this route (see RouteAccess) */
  access?: RouteAccess;
  security?: ReadonlyArray<Record<string, readonly string[]>>;
  /** path parameters as they arrive (strings), parsed to what the handler gets */
  params?: z.ZodObject;
  /** query parameters as they arrive (strings), parsed to what the handler gets */
  query?: z.ZodObject;
  /** request headers the operation reads, for the document (middleware checks them) */
  headers?: readonly HeaderSpec[];
  body?: z.ZodType;
  responses: Record<number, ResponseSpec>;
  /** problem codes this operation may answer, grouped by status; documented as problem+json responses */
  problems?: Record<number, readonly string[]>;
  /**
   * Polled by a page or a probe, or a page itself: its successes are logged at debug, not info, so that a page
   * left open does not bury the log (its failures are logged as any other request's).
   */
  logQuietly?: boolean;
}

/** A route of a table: its key in the table is its operationId. */
export type Route<S extends RouteSpec = RouteSpec> = S & { operationId: string };

/** Names each entry after its key (the operationId) and checks that no method and path is listed twice. */
export function defineRoutes<const T extends Record<string, RouteSpec>>(
  routes: T,
): { [K in keyof T]: T[K] & { operationId: K & string } } {
  const seen = new Set<string>();
  for (const r of Object.values(routes)) {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) throw new Error(`Route ${key} is defined twice.`);
    seen.add(key);
  }
  return Object.fromEntries(
    Object.entries(routes).map(([operationId, r]) => [operationId, { ...r, operationId }]),
  ) as { [K in keyof T]: T[K] & { operationId: K & string } };
}

/** `/properties/:id` → `/properties/{id}` (OpenAPI, and messages that name a route rather than a URL). */
export function templatePath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/** The route's path with its parameters filled in (percent-encoded). */
export function pathFor(
  route: Pick<RouteSpec, 'path'>,
  params: Record<string, string | number> = {},
): string {
  return route.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`Missing path parameter ${name} for ${route.path}.`);
    return encodeURIComponent(String(value));
  });
}

/** What a handler receives once the route's schemas have parsed the request. */
export interface RouteInput<R extends RouteSpec> {
  params: R['params'] extends z.ZodType ? z.output<R['params']> : Record<string, never>;
  query: R['query'] extends z.ZodType ? z.output<R['query']> : Record<string, never>;
  body: R['body'] extends z.ZodType ? z.output<R['body']> : undefined;
}

/** The parsed 200 body of a route with one response schema. */
export type RouteOk<R extends RouteSpec> = R['responses'][200] extends { schema: infer S extends z.ZodType }
  ? z.output<S>
  : never;
