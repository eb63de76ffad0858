import { gzipSync } from 'node:zlib';
import {
  bridgeRoutes,
  gatewayRoutes,
  pathFor,
  Problem,
  type Route,
  type RouteSpec,
  templatePath,
} from '@pa/contracts';
import { type BridgeForTests, startBridgeForTests, type TestTenant } from '@pa/platform-bridge/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../apps/agent-gateway/test/support/test-app.ts';

// Issue 10: generated bad input, per route of both route tables (from which the OpenAPI documents derive), is only
// ever a 4xx problem+json, never a 500, and no body carries a stack trace or SQL. Every generated request is bad in
// at least one way (a path parameter, the query, the body, or a header the route needs), with odd headers on top.
// Reproducible: a fixed seed (FUZZ_SEED), FUZZ_RUNS requests per route (default 250: "a few hundred" per route,
// as the hardening issue asks; about 30 s for both apps on a quiet 2-core machine; FUZZ_RUNS=1000 for a deeper
// run).

const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
// per route, generous: the machine may be loaded by other test files
const ROUTE_TIMEOUT_MS = 60_000 + RUNS * 100;
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

interface Target {
  baseUrl: string;
  /** headers a request needs to get past authentication / workspace scoping to the input checks */
  headers: Record<string, string>;
}

interface BadRequest {
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  why: string;
}

const printable = fc.string({ unit: 'binary', maxLength: 40 });
const oddStrings = fc.oneof(
  printable,
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    // a lone surrogate's bytes as UTF-8 would write them (CESU-8): not valid UTF-8 once percent-decoded
    '%ED%A0%80',
    '-1',
    '0',
    '1e3',
    '1.5',
    '2147483648',
    '99999999999999999999',
  ),
  fc.constantFrom(
    "'; DROP TABLE tenants; --",
    '<script>alert(1)</script>',
    '../../etc/passwd',
    '%00',
    '\uFFFF',
  ),
  fc.string({ minLength: 200, maxLength: 3000 }),
);
// raw path segments, sent without encoding (bad percent-encoding included)
const rawSegments = fc.constantFrom(
  '%E0%A4%A',
  '%',
  '%zz',
  '%C0%AF',
  '%FF',
  '..',
  '%2e%2e',
  '%2F',
  ';x=1',
  '%00',
);

const oddHeaders = fc.dictionary(
  fc.constantFrom(
    'x-request-id',
    'accept',
    'accept-encoding',
    'x-forwarded-for',
    'if-none-match',
    'range',
    'origin',
  ),
  fc.oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength: 300 }).map((s) => s.replace(/[\r\n]/g, '')),
    fc.constantFrom('*', '', 'bytes=0-1', 'W/"x", *', '300.1.1.1, ::1', 'null'),
  ),
  { maxKeys: 3 },
);

const jsonValues = fc.jsonValue({ maxDepth: 3 });

function badParams(
  route: RouteSpec,
): fc.Arbitrary<{ values: Record<string, string>; raw: boolean }> | undefined {
  const shape = route.params?.shape;
  if (!shape) return undefined;
  const names = Object.keys(shape);
  return (
    fc
      .oneof(
        fc.record({
          values: fc.dictionary(fc.constantFrom(...names), oddStrings, { minKeys: 1 }),
          raw: fc.constant(false),
        }),
        fc.record({
          values: fc.dictionary(fc.constantFrom(...names), rawSegments, { minKeys: 1 }),
          raw: fc.constant(true),
        }),
      )
      .map(({ values, raw }) => ({
        values: { ...Object.fromEntries(names.map((n) => [n, '1'])), ...values },
        raw,
      }))
      // an empty segment would name another route (the list instead of the item): not a bad input of this one
      .filter(({ values }) => Object.values(values).every((v) => v !== ''))
      .filter(({ values, raw }) => raw || !route.params!.safeParse(values).success)
  );
}

function badQuery(route: RouteSpec): fc.Arbitrary<Record<string, string>> | undefined {
  const known = Object.keys(route.query?.shape ?? {});
  const unknownKey = fc
    .string({ minLength: 1, maxLength: 20 })
    .filter((k) => !known.includes(k) && k !== '__proto__');
  const lenient = route.query && route.query.safeParse({ zz_unknown: '1' }).success;
  const options: Array<fc.Arbitrary<Record<string, string>>> = [];
  if (!lenient)
    options.push(fc.dictionary(unknownKey, fc.string({ maxLength: 20 }), { minKeys: 1, maxKeys: 3 }));
  if (known.length) {
    options.push(
      fc
        .dictionary(fc.constantFrom(...known), oddStrings, { minKeys: 1 })
        .filter((q) => !route.query!.safeParse(q).success),
    );
  }
  return options.length ? fc.oneof(...options) : undefined;
}

/** The body's field names, or `message` when it has none (a strict `{}`) or is not an object schema. */
function fieldsOrMessage(schema: unknown): string[] {
  const fields = Object.keys((schema as { shape?: object }).shape ?? {});
  return fields.length > 0 ? fields : ['message'];
}

function badBody(
  route: RouteSpec,
): fc.Arbitrary<{ body: string | Uint8Array; headers: Record<string, string> }> | undefined {
  if (!route.body) return undefined;
  const schema = route.body;
  const json = { 'content-type': 'application/json' };
  return fc.oneof(
    // malformed JSON
    fc
      .string({ maxLength: 200 })
      .filter((s) => {
        try {
          JSON.parse(s);
          return false;
        } catch {
          return true;
        }
      })
      .map((body) => ({ body, headers: json })),
    // JSON of the wrong shape or types
    jsonValues
      .filter((v) => !schema.safeParse(v).success)
      .map((v) => ({ body: JSON.stringify(v), headers: json })),
    // oversized
    fc.integer({ min: 65 * 1024, max: 200 * 1024 }).map((n) => ({
      body: JSON.stringify({ message: 'x'.repeat(n) }),
      headers: json,
    })),
    // a body that is not what its Content-Encoding says, or an encoding nobody takes
    fc.constantFrom('gzip', 'deflate', 'br', 'x-unknown').map((enc) => ({
      body: '{"message":"hello"}',
      headers: { ...json, 'content-encoding': enc },
    })),
    // valid gzip around invalid JSON
    fc.constant({
      body: new Uint8Array(gzipSync('{"message":')),
      headers: { ...json, 'content-encoding': 'gzip' },
    }),
    // not JSON at all
    fc
      .constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'application/json; charset=latin1',
      )
      .map((type) => ({ body: 'message=hello', headers: { 'content-type': type } })),
    // a lone surrogate in a field of the body (JSON.stringify writes its \uXXXX escape)
    fc
      .tuple(
        // a body of no fields (a strict `{}`) still gets one: any field is a bad input there
        fc.constantFrom(...fieldsOrMessage(schema)),
        fc.constantFrom('\ud800', 'a\udc00b', '\udbff'),
      )
      .map(([key, value]) => ({ body: JSON.stringify({ [key]: value }), headers: json })),
    // JSON in another charset, declared and sent so (UTF-16 and UTF-32 too, which body-parser would decode)
    fc
      .constantFrom('utf-16', 'utf-16le', 'utf-16be', 'utf-32', 'iso-8859-1', 'windows-1252', 'utf8mb4')
      .map((charset) => ({
        body: new Uint8Array(
          Buffer.from('{"message":"héllo"}', charset.startsWith('utf-16') ? 'utf16le' : 'latin1'),
        ),
        headers: { 'content-type': `application/json; charset=${charset}` },
      })),
    // bytes that are not UTF-8 inside otherwise good JSON
    fc
      .uint8Array({ minLength: 1, maxLength: 8 })
      .map((b) => Uint8Array.from(b, (x) => 0x80 | x))
      .map((bad) => ({
        body: new Uint8Array(
          Buffer.concat([Buffer.from('{"message":"'), Buffer.from(bad), Buffer.from('"}')]),
        ),
        headers: json,
      })),
  );
}

/** Every kind of bad request the route can be sent, each one bad on purpose. */
function badRequests(route: RouteSpec, target: Target): fc.Arbitrary<BadRequest> {
  const okPath = (values: Record<string, string> = {}) =>
    route.path.replace(/:([A-Za-z_]+)/g, (_m, n: string) => values[n] ?? '1');
  const validParams = route.params
    ? Object.fromEntries(
        Object.keys(route.params.shape).map((n) => [n, n === 'id' ? '1' : crypto.randomUUID()]),
      )
    : {};
  const base = { path: pathFor(route, validParams), query: '', headers: target.headers };
  const kinds: Array<fc.Arbitrary<BadRequest>> = [];
  const params = badParams(route);
  if (params) {
    kinds.push(
      params.map(({ values, raw }) => ({
        ...base,
        path: raw ? okPath(values) : pathFor(route, values),
        why: `path ${JSON.stringify(values)}${raw ? ' (raw)' : ''}`,
      })),
    );
  }
  const query = badQuery(route);
  if (query) {
    kinds.push(
      query.map((q) => ({ ...base, query: `?${new URLSearchParams(q)}`, why: `query ${JSON.stringify(q)}` })),
    );
  }
  const body = badBody(route);
  if (body) {
    kinds.push(
      body.map((b) => ({
        ...base,
        headers: { ...target.headers, ...b.headers },
        body: b.body,
        why: `body ${typeof b.body === 'string' ? JSON.stringify(b.body.slice(0, 120)) : `<${b.body.length} bytes>`} ${JSON.stringify(b.headers)}`,
      })),
    );
  }
  // the headers the route needs, missing or garbled
  for (const name of Object.keys(target.headers)) {
    kinds.push(
      fc.option(fc.string({ unit: 'grapheme-ascii', maxLength: 100 }), { nil: undefined }).map((v) => {
        const headers = { ...target.headers };
        if (v === undefined) delete headers[name];
        else headers[name] = v.replace(/[\r\n]/g, '');
        return { ...base, headers, why: `header ${name}: ${JSON.stringify(v)}` };
      }),
    );
  }
  if (!kinds.length) throw new Error(`No bad input to generate for ${route.method} ${route.path}`);
  return fc.tuple(fc.oneof(...kinds), oddHeaders).map(([req, odd]) => ({
    ...req,
    headers: { ...odd, ...req.headers },
    why: `${req.why} + ${JSON.stringify(odd)}`,
  }));
}

async function send(target: Target, route: RouteSpec, req: BadRequest) {
  const res = await fetch(`${target.baseUrl}${req.path}${req.query}`, {
    method: route.method.toUpperCase(),
    headers: req.headers,
    body: route.method === 'get' ? undefined : (req.body as BodyInit | undefined),
    redirect: 'manual',
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

async function fuzz(route: Route, target: Target) {
  await fc.assert(
    fc.asyncProperty(badRequests(route, target), async (req) => {
      const res = await send(target, route, req);
      const where = `${route.method.toUpperCase()} ${req.path}${req.query} [${req.why}] → ${res.status} ${res.text.slice(0, 300)}`;
      expect(res.status, where).toBeGreaterThanOrEqual(400);
      expect(res.status, where).toBeLessThan(500);
      expect(res.type, where).toMatch(/^application\/problem\+json/);
      const problem = Problem.safeParse(JSON.parse(res.text));
      expect(problem.success, where).toBe(true);
      expect(problem.data?.status, where).toBe(res.status);
      expect(res.text, where).not.toMatch(
        /\bat [^ ]+ \(|\.ts:\d+|node_modules|\bSELECT\b|\bINSERT\b|prisma|postgres/i,
      );
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
}

let bridge: BridgeForTests;
let tenant: TestTenant;
/** the tenant's admin key with every admin scope, for the admin API's routes */
let adminKey: string;
let gateway: TestGateway;
let workspaceId: string;
beforeAll(async () => {
  [bridge, gateway] = await Promise.all([
    startBridgeForTests({
      now: '2026-06-15T09:00:00Z',
      databasePrefix: 'fuzz_bridge',
      rateLimitPerMin: 1_000_000,
    }),
    startTestGateway({
      redis: 'none',
      env: { AI_WORKERS_ENABLED: 'true', CHAT_RATE_LIMIT_PER_MIN: '100000', MAX_STREAMS_PER_IP: '10000' },
    }),
  ]);
  // writes on and a key that may propose, so that the proposal routes get past their gates to the input checks
  tenant = await bridge.createTenant({ scopes: ['bridge:read', 'bridge:propose'] });
  await bridge.admin.setFlag(tenant.slug, 'assistant_bridge_writes', true);
  await bridge.admin.setFlag(tenant.slug, 'assistant_bridge_review_queue', true);
  // every admin scope, so that the remote-access routes' input checks are reached rather than a 403
  adminKey = (
    await bridge.admin.createAdmin(tenant.slug, 'fuzz@example.com', [
      'review:read',
      'review:write',
      'access:manage',
    ])
  ).key;
  workspaceId = (await gateway.db.workspace.create({ data: { name: 'fuzz' } })).id;
});
afterAll(async () => {
  await Promise.all([bridge?.close(), gateway?.close()]);
});

const name = (r: RouteSpec) => `${r.method.toUpperCase()} ${templatePath(r.path)}`;

// A route that takes no input at all (a page that ignores its query string) has no bad input to send.
const takesInput = (r: RouteSpec) =>
  Boolean(r.params || r.body || r.headers?.length || !r.query?.safeParse({ zz_unknown: '1' }).success);

describe('fuzz: bridge routes answer bad input with 4xx problem+json only', () => {
  it('leaves out only the routes that take no input', () => {
    expect(
      Object.values<Route>(bridgeRoutes)
        .filter((r) => !takesInput(r))
        .map(name),
    ).toEqual(['GET /settings/review-queue', 'GET /settings/remote-access']);
  });

  it.each(
    Object.values<Route>(bridgeRoutes)
      .filter(takesInput)
      .map((r) => [name(r), r] as const),
  )(
    '%s',
    async (_n, route) => {
      // each API its own kind of key: the admin API takes the admin's, the bridge the remote key
      const key = route.security?.some((s) => 'adminApiKey' in s) ? adminKey : tenant.key;
      const bearer: Record<string, string> = route.security ? { authorization: `Bearer ${key}` } : {};
      const idempotent: Record<string, string> = (route.headers ?? []).some(
        (h) => h.name === 'Idempotency-Key',
      )
        ? { 'idempotency-key': 'fuzz' }
        : {};
      await fuzz(route, { baseUrl: bridge.baseUrl, headers: { ...bearer, ...idempotent } });
    },
    ROUTE_TIMEOUT_MS,
  );
});

describe('fuzz: gateway routes answer bad input with 4xx problem+json only', () => {
  it.each(Object.values<Route>(gatewayRoutes).map((r) => [name(r), r] as const))(
    '%s',
    async (_n, route) => {
      const scoped: Record<string, string> = (route.headers ?? []).some((h) => h.name === 'X-Workspace-Id')
        ? { 'x-workspace-id': workspaceId }
        : {};
      await fuzz(route, { baseUrl: gateway.baseUrl, headers: scoped });
    },
    ROUTE_TIMEOUT_MS,
  );
});
