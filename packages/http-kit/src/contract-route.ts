import type { RouteInput, RouteSpec } from '@pa/contracts';
import type { IRouter, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { quietLog } from './logger.ts';
import type { RouteResponse } from './route-response.ts';
import { parseOrThrow } from './validate.ts';

// A route without a query schema takes no query parameters: `?x=1` is 400 like any unknown field (the
// contract's strict schemas). A route that must tolerate them says so with a loose query schema.
const NO_QUERY = z.strictObject({});

// Registers an entry of a contract route table on an Express router: its method and path, then a handler that
// receives the params, query and body already parsed by the entry's schemas (400 validation-failed otherwise).
// Express 5 forwards a rejected promise to the error middleware, so handlers need no try/catch. The handler's
// `res` is typed from the entry's responses (route-response.ts), so an undeclared status or body does not compile.

export type RouteHandler<R extends RouteSpec> = (
  input: RouteInput<R>,
  req: Request,
  res: RouteResponse<R>,
) => unknown;

export interface RegisterRouteOptions {
  /** Where the router is mounted (e.g. `/api/assistant-bridge`); the route is registered relative to it. */
  mountedAt?: string;
  /** Middleware that runs before the input is parsed (rate limits, requireJson, feature flags), in order. */
  before?: RequestHandler[];
}

export function registerRoute<R extends RouteSpec>(router: IRouter, route: R, handler: RouteHandler<R>): void;
export function registerRoute<R extends RouteSpec>(
  router: IRouter,
  route: R,
  options: RegisterRouteOptions,
  handler: RouteHandler<R>,
): void;
export function registerRoute<R extends RouteSpec>(
  router: IRouter,
  route: R,
  optionsOrHandler: RegisterRouteOptions | RouteHandler<R>,
  maybeHandler?: RouteHandler<R>,
): void {
  const options = typeof optionsOrHandler === 'function' ? {} : optionsOrHandler;
  const handler = typeof optionsOrHandler === 'function' ? optionsOrHandler : maybeHandler!;
  const path = relativePath(route.path, options.mountedAt);
  const quiet = route.logQuietly ? [quietLog] : [];
  router[route.method](path, ...quiet, ...(options.before ?? []), async (req: Request, res: Response) => {
    // Params first, then query, then body: the first invalid part is the one reported.
    const input = {
      params: route.params ? parseOrThrow(route.params, req.params) : {},
      query: parseOrThrow(route.query ?? NO_QUERY, req.query),
      body: route.body ? parseOrThrow(route.body, req.body) : undefined,
    } as RouteInput<R>;
    await handler(input, req, res as RouteResponse<R>);
  });
}

function relativePath(path: string, mountedAt: string | undefined): string {
  if (mountedAt === undefined) return path;
  if (path !== mountedAt && !path.startsWith(`${mountedAt}/`)) {
    throw new Error(`Route ${path} does not lie under ${mountedAt}.`);
  }
  return path.slice(mountedAt.length) || '/';
}
