import { randomUUID } from 'node:crypto';
import { bridgeRoutes, type RouteInput } from '@pa/contracts';
import { type FieldError, parseOrThrow, ValidationFailed } from '@pa/http-kit';
import type { z } from 'zod';
import { parseIdempotencyKey } from '../../lib/idempotency-key.ts';
import { IDEMPOTENCY_ARGUMENT, type ToolSpec } from './mcp-tool-definitions.ts';
import type { ToolRoute, ToolRouteName } from './mcp-tool-table.ts';

// A tool call's arguments checked by its route's own schemas, so that a tool refuses exactly what the REST route
// refuses, with the same problem (400 validation-failed, a JSON pointer per field; the pointers are the argument
// names, as the REST pointers are the query's and the body's field names). Path parameters and query fields travel
// as strings in a URL: they are turned back into strings and parsed by the route's schemas, which fill in the
// defaults; the query's typed form (queryArgs) checks the types first.

export interface ToolInput<K extends ToolRouteName = ToolRouteName> {
  input: RouteInput<ToolRoute<K>>;
  /** the body as the call sent it (a proposal's fingerprint is taken of it) */
  received: Record<string, unknown>;
  /** the proposal's key: the call's own, or one generated for it */
  idempotencyKey: string | undefined;
}

const asString = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v));

function pick(args: Record<string, unknown>, names: readonly string[], strings: boolean) {
  return Object.fromEntries(
    names.filter((n) => args[n] !== undefined).map((n) => [n, strings ? asString(args[n]) : args[n]]),
  );
}

/** Runs one check, collecting its field errors instead of stopping at the first part that fails. */
function collect<T>(errors: FieldError[], check: () => T): T | undefined {
  try {
    return check();
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    errors.push(...err.errors);
    return undefined;
  }
}

export function parseToolArguments(spec: ToolSpec, raw: Record<string, unknown> | undefined): ToolInput {
  const args = raw ?? {};
  const route = bridgeRoutes[spec.routeName];
  const errors: FieldError[] = [];
  const known = new Set([...spec.parts.params, ...spec.parts.query, ...spec.parts.body]);
  if (spec.idempotent) known.add(IDEMPOTENCY_ARGUMENT);
  for (const name of Object.keys(args)) {
    if (!known.has(name)) errors.push({ pointer: `#/${name}`, detail: 'is not a known field' });
  }

  const params =
    'params' in route
      ? collect(errors, () => parseOrThrow(route.params, pick(args, spec.parts.params, true)))
      : {};
  let query: unknown = {};
  if ('query' in route) {
    const typed = spec.queryArgs
      ? collect(errors, () =>
          parseOrThrow(spec.queryArgs as z.ZodObject, pick(args, spec.parts.query, false)),
        )
      : {};
    query = typed && collect(errors, () => parseOrThrow(route.query, pick(args, spec.parts.query, true)));
  }
  const received = pick(args, spec.parts.body, false);
  const body = 'body' in route ? collect(errors, () => parseOrThrow(route.body, received)) : undefined;

  let idempotencyKey: string | undefined;
  if (spec.idempotent) {
    const given = args[IDEMPOTENCY_ARGUMENT];
    if (given === undefined) idempotencyKey = randomUUID();
    else if (typeof given !== 'string') {
      errors.push({ pointer: `#/${IDEMPOTENCY_ARGUMENT}`, detail: 'must be a string' });
    } else {
      idempotencyKey = collect(errors, () => parseIdempotencyKey(given));
      // the header's pointer, renamed after the argument
      for (const e of errors) if (e.pointer === '#/idempotency-key') e.pointer = `#/${IDEMPOTENCY_ARGUMENT}`;
    }
  }

  if (errors.length) throw new ValidationFailed(errors, 'The arguments are not valid for this tool.');
  return { input: { params, query, body } as RouteInput<ToolRoute>, received, idempotencyKey };
}
