import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  bridgeRoutes,
  gatewayRoutes,
  LONE_SURROGATE_MESSAGE,
  NUL_MESSAGE,
  type RouteSpec,
  text,
} from '../src/index.ts';

// Every text field of every schema refuses U+0000 and a lone UTF-16 surrogate (PostgreSQL's text and jsonb cannot
// hold them): one rule, text(), walked here through every schema of both route tables so that a new field cannot
// forget it.

interface Def {
  type: string;
  format?: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: readonly z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  getter?: () => z.ZodType;
}
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Every string schema reachable from `schema`, with the path that leads to it. */
function strings(
  schema: z.ZodType,
  path: string,
  out: Array<[string, z.ZodType]>,
  seen = new Set<z.ZodType>(),
) {
  if (seen.has(schema)) return out;
  seen.add(schema);
  const def = defOf(schema);
  const walk = (s: z.ZodType | undefined, p: string) => s && strings(s, p, out, seen);
  switch (def.type) {
    case 'string':
      out.push([path, schema]);
      break;
    case 'object':
      for (const [k, v] of Object.entries(def.shape ?? {})) walk(v, `${path}/${k}`);
      break;
    case 'array':
      walk(def.element, `${path}/0`);
      break;
    case 'record':
      walk(def.keyType, `${path}/{key}`);
      walk(def.valueType, `${path}/{value}`);
      break;
    case 'union':
      def.options?.forEach((o, i) => walk(o, `${path}|${i}`));
      break;
    case 'pipe':
      walk(def.in, path);
      walk(def.out, path);
      break;
    case 'lazy':
      walk(def.getter?.(), path);
      break;
    default:
      walk(def.innerType, path);
  }
  return out;
}

function schemasOf(name: string, route: RouteSpec): Array<[string, z.ZodType]> {
  const list: Array<[string, z.ZodType]> = [];
  if (route.params) list.push([`${name} params`, route.params]);
  if (route.query) list.push([`${name} query`, route.query]);
  if (route.body) list.push([`${name} body`, route.body]);
  for (const [status, r] of Object.entries(route.responses)) {
    const s = r.schema;
    for (const one of Array.isArray(s) ? s : s ? [s] : []) list.push([`${name} ${status}`, one as z.ZodType]);
  }
  return list;
}

const fields = Object.entries({ ...bridgeRoutes, ...gatewayRoutes }).flatMap(([name, route]) =>
  schemasOf(name, route).flatMap(([where, schema]) =>
    strings(schema, '#', []).map(([pointer, s]) => [`${where} ${pointer}`, s] as const),
  ),
);

describe('text fields', () => {
  it('the route tables have text fields to check (the walk finds them)', () => {
    expect(fields.length).toBeGreaterThan(50);
    expect(fields.map(([n]) => n)).toContain('createWorker body #/name');
  });

  it.each(fields)('%s refuses U+0000', (_name, schema) => {
    const r = schema.safeParse('a\u0000b');
    expect(r.success).toBe(false);
    // a format (uuid, date) is a closed alphabet; every other string says why, whatever else it says
    if (!defOf(schema).format) expect(r.error?.issues.map((i) => i.message)).toContain(NUL_MESSAGE);
  });
});

describe('lone surrogates', () => {
  it.each(fields)('%s refuses a lone surrogate', (_name, schema) => {
    for (const value of ['a\ud800b', '\udc00', 'end\udbff']) {
      const r = schema.safeParse(value);
      expect(r.success, JSON.stringify(value)).toBe(false);
      if (!defOf(schema).format)
        expect(r.error?.issues.map((i) => i.message)).toContain(LONE_SURROGATE_MESSAGE);
    }
  });

  it('keeps a character outside the BMP (a surrogate pair), and text around it', () => {
    expect(text().parse('Keys 🔑 left at 14 Elm Row')).toBe('Keys 🔑 left at 14 Elm Row');
    expect(text().safeParse('🔑\udc00').success).toBe(false);
    expect(text().safeParse('\ud83d🔑').success).toBe(false);
  });
});
