import { z } from 'zod';
import type { OpenApiDocument } from './health.ts';
import { Problem } from './problem.ts';
import { type ResponseSpec, type Route, type RouteAccess, type RouteSpec, templatePath } from './routes.ts';

// Builds OpenAPI 3.1 documents from the zod contracts, so that the document can never disagree with the
// schemas the servers validate with. Named schemas become components; everything else is inlined.

type JsonSchema = Record<string, unknown>;
type Zod = z.ZodType;

function withHeaderSchemas(headers: NonNullable<ResponseSpec['headers']>) {
  return Object.fromEntries(
    Object.entries(headers).map(([name, h]) => [
      name,
      { description: h.description, schema: h.schema ?? { type: 'string' } },
    ]),
  );
}

export interface DocumentSpec {
  title: string;
  version: string;
  description: string;
  servers: Array<{ url: string; description: string }>;
  schemas: Record<string, Zod>;
  securitySchemes?: Record<string, JsonSchema>;
  /**
   * Headers every successful (2xx) answer of an operation that needs a key carries, listed on each of them (the
   * bridge's per-key budget sends `RateLimit` on every authenticated answer).
   */
  securedSuccessHeaders?: NonNullable<ResponseSpec['headers']>;
  /** the app's route table: every operation it documents */
  routes: Record<string, Route>;
}

function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

export function buildOpenApiDocument(spec: DocumentSpec): OpenApiDocument {
  const registry = z.registry<{ id: string }>();
  const named = { Problem, ...spec.schemas };
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const ref = (id: string) => `#/components/schemas/${id}`;
  const generated = z.toJSONSchema(registry, { uri: ref, io: 'output', unrepresentable: 'any' }) as {
    schemas: Record<string, JsonSchema>;
  };
  const components: Record<string, JsonSchema> = {};
  for (const [id, s] of Object.entries(generated.schemas)) components[id] = clean(s);

  // A schema that is registered is referenced; anything else is converted inline (refs to named parts kept).
  const idOf = new Map<Zod, string>(Object.entries(named).map(([id, s]) => [s, id]));
  const toSchema = (schema: Zod, io: 'input' | 'output'): JsonSchema => {
    const id = idOf.get(schema);
    if (id && io === 'output') return { $ref: ref(id) };
    return clean(z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema);
  };

  const isList = (schema: Zod | readonly Zod[]): schema is readonly Zod[] => Array.isArray(schema);
  const responseSchema = (schema: Zod | readonly Zod[]): JsonSchema =>
    isList(schema) ? { oneOf: schema.map((s) => toSchema(s, 'output')) } : toSchema(schema, 'output');

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of Object.values(spec.routes)) {
    const path = templatePath(op.path);
    const parameters: unknown[] = [];
    const addParams = (obj: z.ZodObject | undefined, where: 'path' | 'query') => {
      if (!obj) return;
      // Parameters arrive as strings but are documented by what they parse to (integer, range, default).
      const js = z.toJSONSchema(obj, { io: 'output', unrepresentable: 'any' }) as {
        properties?: Record<string, JsonSchema>;
        required?: string[];
      };
      for (const [name, schema] of Object.entries(js.properties ?? {})) {
        const { description, ...rest } = schema as { description?: string };
        parameters.push({
          name,
          in: where,
          required: where === 'path' || ((js.required ?? []).includes(name) && !('default' in rest)),
          ...(description ? { description } : {}),
          schema: rest,
        });
      }
    };
    addParams(op.params, 'path');
    addParams(op.query, 'query');
    for (const h of op.headers ?? []) {
      parameters.push({
        name: h.name,
        in: 'header',
        required: h.required,
        description: h.description,
        schema: h.schema ?? { type: 'string' },
      });
    }

    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      const secured = op.security && status.startsWith('2') ? spec.securedSuccessHeaders : undefined;
      const headers = secured || r.headers ? { ...r.headers, ...secured } : undefined;
      responses[status] = {
        description: r.description,
        ...(headers ? { headers: withHeaderSchemas(headers) } : {}),
        ...(r.schema
          ? { content: { [r.contentType ?? 'application/json']: { schema: responseSchema(r.schema) } } }
          : {}),
      };
    }
    for (const [status, codes] of Object.entries(accessProblems(op))) {
      responses[status] = {
        description: `Problem: ${codes.map((c) => `\`${c}\``).join(', ')}`,
        content: { 'application/problem+json': { schema: { $ref: ref('Problem') } } },
      };
    }

    paths[path] ??= {};
    paths[path][op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: op.tags,
      // No security listed means a public operation, said explicitly so that it is not mistaken for an omission.
      security: op.security ?? accessSecurity(op.access),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: toSchema(op.body, 'input') } },
            },
          }
        : {}),
      responses,
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: spec.title,
      version: spec.version,
      description: spec.description,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: spec.servers,
    paths,
    components: {
      schemas: components,
      ...(spec.securitySchemes ? { securitySchemes: spec.securitySchemes } : {}),
    },
  };
}

// The gateway's access rules (RouteSpec.access, docs/access.md) in the document: who may call (security: a device
// token as a bearer or the gw_session cookie, holding the route's scope; the operator's GATEWAY_ADMIN_TOKEN is a
// bearer too), and the refusals the access check may answer before the route's own problems. They apply when
// the gateway runs with GATEWAY_AUTH=token.
const SCOPED = new Set<RouteAccess | undefined>(['chat', 'workers:write', 'admin']);

function accessSecurity(access: RouteAccess | undefined): Array<Record<string, string[]>> {
  if (!SCOPED.has(access)) return [];
  return [{ deviceToken: [access!] }, { sessionCookie: [access!] }];
}

function accessProblems(op: RouteSpec): Record<string, readonly string[]> {
  const problems: Record<string, string[]> = {};
  const add = (status: number, ...codes: string[]) => {
    const list = (problems[status] ??= []);
    for (const c of codes) if (!list.includes(c)) list.push(c);
  };
  for (const [status, codes] of Object.entries(op.problems ?? {})) add(Number(status), ...codes);
  if (SCOPED.has(op.access)) {
    add(401, 'unauthorized');
    add(403, 'insufficient-scope', 'workspace-forbidden');
  }
  // the embedded chat's routes check the origin against their embed key instead (embed-origin-not-allowed)
  if (op.access && op.access !== 'embed' && op.method !== 'get') add(403, 'origin-not-allowed');
  return Object.fromEntries(Object.entries(problems).sort(([a], [b]) => Number(a) - Number(b)));
}
