import type { RouteSpec } from '@pa/contracts';
// Express's own Response, whose third parameter types the status: the one `express` exports fixes it to number.
// (The package comes with @types/express, which both apps use.)
import type { Response } from 'express-serve-static-core';
import type { z } from 'zod';

// The `res` a contract route's handler receives: Express's Response whose `status` accepts only the statuses the
// route entry declares, and whose `json`/`send` then accept only that status's declared body, as ts-rest types its
// handlers' answers. So a handler cannot answer a shape or a status its entry (and so the OpenAPI document and
// the clients' parsing) does not know. Problems are thrown, not answered: the error handler writes them.

/** The statuses a route entry declares a response for. */
export type RouteStatus<R extends RouteSpec> = keyof R['responses'] & number;

/**
 * What a handler may send with a declared status: the input of its schema (of any one of them, for a stream's
 * events), or nothing when the entry declares no body.
 */
export type RouteBody<R extends RouteSpec, S extends RouteStatus<R>> = S extends unknown
  ? R['responses'][S] extends { schema: infer Schema }
    ? Schema extends z.ZodType
      ? z.input<Schema>
      : Schema extends readonly (infer Each extends z.ZodType)[]
        ? z.input<Each>
        : never
    : never
  : never;

type OkStatus<R extends RouteSpec> = Extract<RouteStatus<R>, 200 | 201>;

/** What a plain `res.json(body)` may send: the 200 or 201 body (nothing, when the entry declares neither). */
export type RouteOkBody<R extends RouteSpec> = [OkStatus<R>] extends [never]
  ? never
  : RouteBody<R, OkStatus<R>>;

// Express's own default for `res.locals`, spelled without `any`.
type DefaultLocals = Response extends Response<unknown, infer L> ? L : never;

/** The response once `res.status(s)` has chosen a declared status: its methods keep that status's body. */
export type RouteStatusResponse<R extends RouteSpec, S extends RouteStatus<R>> = Response<
  RouteBody<R, S>,
  DefaultLocals,
  S
>;

/**
 * The response a handler receives. The generic `status` comes first so that it, not Express's, is the one chosen;
 * every other method of Response is Express's, and those that return the response return this same type.
 */
export type RouteResponse<R extends RouteSpec> = {
  status<S extends RouteStatus<R>>(code: S): RouteStatusResponse<R, S>;
} & Response<RouteOkBody<R>, DefaultLocals, RouteStatus<R>>;
