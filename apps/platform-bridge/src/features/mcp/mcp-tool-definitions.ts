import { bridgeRoutes, IDEMPOTENCY_KEY_MAX, queryArgsOf } from '@pa/contracts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  TOOL_ROUTE_NAMES,
  TOOL_ROUTES,
  type ToolAccess,
  type ToolRouteName,
  toolNameOf,
} from './mcp-tool-table.ts';

// Each tool's definition as tools/list answers it, derived from its route once at start: the input schema is the
// route's path parameters, query and body merged into one object (the query in its typed form, queryArgsOf), the
// output schema the route's success answer, the description the route's. JSON Schema draft-07 without `$schema`,
// as the SDK itself writes zod schemas (its client validates structuredContent with Ajv's draft-07).

type JsonSchema = Record<string, unknown>;
interface ObjectSchema {
  [keyword: string]: unknown;
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: string[];
}

export const IDEMPOTENCY_ARGUMENT = 'idempotency_key';

export interface ToolSpec {
  name: string;
  routeName: ToolRouteName;
  access: ToolAccess;
  /** which of the arguments are the route's path parameters, query fields and body fields */
  parts: { params: readonly string[]; query: readonly string[]; body: readonly string[] };
  /** the typed form of the route's query, when it has one (else the query is checked as strings only) */
  queryArgs: z.ZodObject | undefined;
  /** the route takes an Idempotency-Key: the tool takes `idempotency_key` */
  idempotent: boolean;
  definition: Tool;
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output', what: string): ObjectSchema {
  const js = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonSchema;
  if (js.type !== 'object' || 'definitions' in js || '$defs' in js) {
    throw new Error(`${what} is not a self-contained object schema; it cannot be a tool's schema.`);
  }
  const { $schema: _s, properties = {}, required = [], ...rest } = js as JsonSchema & Partial<ObjectSchema>;
  return { ...rest, type: 'object', properties, required };
}

/** The path parameters' schema as it parses (integers), the query's in its typed form, the body's as it is sent. */
function inputParts(routeName: ToolRouteName) {
  const route = bridgeRoutes[routeName];
  const params = 'params' in route ? jsonSchema(route.params, 'output', `${routeName} params`) : undefined;
  const queryArgs = 'query' in route ? queryArgsOf(route.query) : undefined;
  let query: ObjectSchema | undefined;
  if ('query' in route) {
    if (queryArgs) query = jsonSchema(queryArgs, 'input', `${routeName} query`);
    else {
      // a query without a typed form: its parsed values, every field optional as in the URL
      const parsed = jsonSchema(route.query, 'output', `${routeName} query`);
      query = { ...parsed, required: [] };
    }
  }
  const body = 'body' in route ? jsonSchema(route.body, 'input', `${routeName} body`) : undefined;
  return { params, query, body, queryArgs };
}

const HTTP_ONLY = /[^.]*\b(ETag|If-None-Match)\b[^.]*\.\s*/g;

function describe(routeName: ToolRouteName, access: ToolAccess): string {
  const route = bridgeRoutes[routeName];
  const about = [route.summary.replace(/\.?$/, '.'), ('description' in route ? route.description : '') ?? '']
    .join(' ')
    .replace(HTTP_ONLY, '')
    .trim();
  if (!access.writes) return about;
  if (routeName === 'withdrawProposal') {
    return `${about} Withdrawing changes no platform record: the proposal simply never reaches a person's decision.`;
  }
  return [
    'Nothing changes on the platform until a person approves this proposal in the review queue: this tool only submits it for review.',
    about,
    `Pass \`${IDEMPOTENCY_ARGUMENT}\` (any fresh string per proposal) and send the same one again to retry safely: the first answer comes back and nothing is proposed twice. Without one, a key is generated and every call is a new proposal.`,
  ].join(' ');
}

function defineTool(routeName: ToolRouteName): ToolSpec {
  const route = bridgeRoutes[routeName];
  const access = TOOL_ROUTES[routeName];
  const name = toolNameOf(route.operationId);
  const { params, query, body, queryArgs } = inputParts(routeName);
  const idempotent = 'headers' in route && route.headers.some((h) => h.name === 'Idempotency-Key');

  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const merge = (part: ObjectSchema | undefined): string[] => {
    if (!part) return [];
    for (const [field, schema] of Object.entries(part.properties)) {
      if (field in properties)
        throw new Error(`Tool ${name}: argument ${field} is in two parts of the route.`);
      properties[field] = schema;
    }
    required.push(...part.required);
    return Object.keys(part.properties);
  };
  const parts = { params: merge(params), query: merge(query), body: merge(body) };
  if (idempotent) {
    if (IDEMPOTENCY_ARGUMENT in properties)
      throw new Error(`Tool ${name}: ${IDEMPOTENCY_ARGUMENT} is taken.`);
    properties[IDEMPOTENCY_ARGUMENT] = {
      type: 'string',
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX,
      description:
        'one fresh key per proposal, sent again unchanged when retrying it (visible ASCII); generated when left out',
    };
  }

  const success = route.responses[200 as keyof typeof route.responses] ?? route.responses[201 as never];
  const answer = (success as { schema?: z.ZodType } | undefined)?.schema;
  if (!answer) throw new Error(`Tool ${name}: the route has no 200 or 201 answer schema.`);

  const annotations = access.writes
    ? { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }
    : { readOnlyHint: true, openWorldHint: false };
  return {
    name,
    routeName,
    access,
    parts,
    queryArgs,
    idempotent,
    definition: {
      name,
      title: route.summary,
      description: describe(routeName, access),
      inputSchema: { type: 'object', properties, required, additionalProperties: false },
      outputSchema: jsonSchema(answer, 'output', `${routeName} answer`),
      annotations: { title: route.summary, ...annotations },
    },
  };
}

/** Every tool, built once: the tool's name to its spec. */
export function buildToolSpecs(): ReadonlyMap<string, ToolSpec> {
  return new Map(TOOL_ROUTE_NAMES.map((r) => defineTool(r)).map((t) => [t.name, t]));
}
