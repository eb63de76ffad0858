import { z } from 'zod';
import { intNumber, intString } from './params.ts';

// A query parameter written once for its two kinds of reader: the HTTP query schema, which parses the string
// that arrives and applies the default, and the argument schema of callers that hold typed values (the
// workers' tools, the gateway's bridge client), where the parameter is optional and the server's default
// applies. Bounds, enum values and defaults therefore live in one place.

export interface QueryField<Q extends z.ZodType = z.ZodType, A extends z.ZodType = z.ZodType> {
  query: Q;
  arg: A;
}

export function intField(o: { min: number; max: number; default: number; description: string }) {
  return {
    query: intString(o.min, o.max).default(o.default).describe(o.description),
    arg: intNumber(o.min, o.max)
      .optional()
      .describe(`${o.description}, ${o.min}–${o.max} (default ${o.default})`),
  };
}

export function enumField<const V extends readonly [string, ...string[]]>(o: {
  values: V;
  default: V[number];
  description: string;
}) {
  const values = z.enum(o.values, { error: `must be one of ${o.values.join(', ')}` });
  return {
    query: values.default(o.default).describe(o.description),
    arg: values.optional().describe(`${o.description} (default ${o.default})`),
  };
}

/** A value that has the same form in a query and as an argument (e.g. an opaque cursor). */
export function optionalField<S extends z.ZodString>(schema: S, description: string) {
  return { query: schema.optional().describe(description), arg: schema.optional().describe(description) };
}

type QueryShape<F extends Record<string, QueryField>> = { [K in keyof F]: F[K]['query'] };
type ArgsShape<F extends Record<string, QueryField>> = { [K in keyof F]: F[K]['arg'] };

// Each query schema made here, with its argument schema: a caller holding only a route (the MCP server's tools,
// derived from the route table) finds the typed form of the route's query through it.
const argsOfQuery = new WeakMap<z.ZodType, z.ZodObject>();

/** The strict HTTP query schema and the strict argument schema of a set of fields. */
export function queryFields<const F extends Record<string, QueryField>>(fields: F) {
  const pick = <W extends keyof QueryField>(which: W) =>
    Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f[which]]));
  const query = z.strictObject(pick('query') as QueryShape<F>);
  const args = z.strictObject(pick('arg') as ArgsShape<F>);
  argsOfQuery.set(query, args);
  return { query, args };
}

/** The typed argument schema of a query schema made by queryFields; undefined for any other schema. */
export function queryArgsOf(query: z.ZodType): z.ZodObject | undefined {
  return argsOfQuery.get(query);
}
