import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { gatewayRoutes, pathFor, type RouteAccess } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDeviceToken } from '../src/features/access/device-token.ts';
import { adminHeaders, newWorkspace, pairDevice, type PairedDevice, TOKEN_ENV } from './support/access.ts';
import { expectProblem } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Every route of the gateway's table, as each kind of caller (docs/access.md): the access middleware derives its rule
// from the table, so a route added later is covered here without a new line.

type AnyRoute = { operationId: string; method: string; path: string; access?: RouteAccess };
const routes = Object.values(gatewayRoutes) as AnyRoute[];
const scoped = routes.filter(
  (r) => r.access === 'chat' || r.access === 'workers:write' || r.access === 'admin',
);
// `embed` routes are checked by the embed router (their key, origin and visitor), never by a device token
const unguarded = routes.filter(
  (r) => r.access === 'open' || r.access === 'signed' || r.access === 'optional' || r.access === 'embed',
);

let g: TestGateway;
let ws: string;
let otherWs: string;
let full: PairedDevice;
let revoked: PairedDevice;
const lacking: Record<string, PairedDevice> = {};

function urlOf(route: AnyRoute): string {
  const names = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
  return pathFor(route, Object.fromEntries(names.map((n) => [n, crypto.randomUUID()])));
}

function call(route: AnyRoute, headers: Record<string, string> = {}) {
  const unsafe = route.method !== 'get';
  return fetch(`${g.baseUrl}${urlOf(route)}`, {
    method: route.method.toUpperCase(),
    headers: unsafe ? { 'content-type': 'application/json', ...headers } : headers,
    ...(unsafe ? { body: '{}' } : {}),
  });
}

beforeAll(async () => {
  g = await startTestGateway({ env: { ...TOKEN_ENV, AI_WORKERS_ENABLED: 'true' }, redis: 'required' });
  ws = await newWorkspace(g, 'routes');
  otherWs = await newWorkspace(g, 'other');
  full = await pairDevice(g, ws, ['chat', 'workers:write', 'admin'], 'full');
  revoked = await pairDevice(g, ws, ['chat', 'workers:write', 'admin'], 'revoked');
  expect(
    (await fetch(`${g.baseUrl}/api/devices/${revoked.deviceId}`, { method: 'DELETE', headers: adminHeaders }))
      .status,
  ).toBe(204);
  lacking.chat = await pairDevice(g, ws, ['workers:write', 'admin']);
  lacking['workers:write'] = await pairDevice(g, ws, ['chat', 'admin']);
  lacking.admin = await pairDevice(g, ws, ['chat', 'workers:write']);
});
afterAll(async () => {
  await g?.close();
});

describe('every scoped route with GATEWAY_AUTH=token', () => {
  it('covers the table', () => {
    expect(scoped.length).toBeGreaterThan(20);
    expect(routes.every((r) => r.access)).toBe(true);
  });

  const valid = generateDeviceToken();
  const flipped = valid.slice(0, -1) + (valid.endsWith('A') ? 'B' : 'A');
  const badTokens: Record<string, () => Record<string, string>> = {
    'no token': () => ({}),
    'a malformed token': () => ({ authorization: 'Bearer gwt_short' }),
    'a token with a wrong checksum': () => ({ authorization: `Bearer ${flipped}` }),
    'an unknown token': () => ({ authorization: `Bearer ${generateDeviceToken()}` }),
    'a revoked token': () => revoked.bearer,
    'a revoked token in the cookie': () => ({ cookie: `gw_session=${revoked.token}` }),
    'a Basic credential': () => ({ authorization: 'Basic dXNlcjpwYXNz' }),
    'a wrong admin token': () => ({ authorization: `Bearer ${TOKEN_ENV.GATEWAY_ADMIN_TOKEN}x` }),
  };
  for (const [what, headers] of Object.entries(badTokens)) {
    it(`answers 401 unauthorized with WWW-Authenticate: Bearer to ${what}`, async () => {
      for (const route of scoped) {
        const res = await call(route, headers());
        expect(res.status, `${route.operationId} with ${what}`).toBe(401);
        await expectProblem(res, 401, 'unauthorized');
        expect(res.headers.get('www-authenticate')).toMatch(
          /^Bearer realm="agent-gateway", error="invalid_token"/,
        );
      }
    });
  }

  it('answers 403 insufficient-scope to a device without the route’s scope, naming it', async () => {
    for (const route of scoped) {
      const res = await call(route, lacking[route.access!]!.bearer);
      expect(res.status, route.operationId).toBe(403);
      await expectProblem(res, 403, 'insufficient-scope');
      expect(res.headers.get('www-authenticate')).toContain(`scope="${route.access}"`);
    }
  });

  it('answers 403 workspace-forbidden to a device naming another workspace', async () => {
    for (const route of scoped) {
      const res = await call(route, { ...full.bearer, 'X-Workspace-Id': otherWs });
      expect(res.status, route.operationId).toBe(403);
      await expectProblem(res, 403, 'workspace-forbidden');
    }
  });

  it('lets a device with the scope, in its own workspace (header or none), and the operator through', async () => {
    for (const route of scoped) {
      for (const headers of [
        full.bearer,
        { ...full.bearer, 'X-Workspace-Id': ws.toUpperCase() },
        adminHeaders,
      ]) {
        const res = await call(route, headers);
        const body = await res.text();
        expect(res.status, `${route.operationId}: ${body}`).not.toBe(401);
        expect(body, route.operationId).not.toMatch(
          /"code":"(insufficient-scope|workspace-forbidden|unauthorized)"/,
        );
      }
    }
  });

  it('leaves open, signed and optional routes to their own rules', async () => {
    for (const route of unguarded) {
      const res = await call(route);
      expect(res.headers.get('www-authenticate'), route.operationId).toBeNull();
      expect(await res.text(), route.operationId).not.toMatch(/"code":"(insufficient-scope|unauthorized)"/);
    }
    for (const path of ['/', '/healthz', '/readyz', '/openapi.json', '/app.js']) {
      expect((await fetch(`${g.baseUrl}${path}`)).status, path).toBe(200);
    }
  });

  it('asks for a token on /api and /v1 paths no route serves, then says 404', async () => {
    for (const path of ['/api/nope', '/v1/models', '/API/devices', '/api/devices/']) {
      await expectProblem(await fetch(`${g.baseUrl}${path}`), 401, 'unauthorized');
    }
    await expectProblem(await fetch(`${g.baseUrl}/api/nope`, { headers: full.bearer }), 404, 'not-found');
    // Express routes case-insensitively with a trailing slash allowed: so does the access check
    await expectProblem(
      await fetch(`${g.baseUrl}/API/devices`, { headers: lacking.admin!.bearer }),
      403,
      'insufficient-scope',
    );
    expect((await fetch(`${g.baseUrl}/API/devices/`, { headers: full.bearer })).status).toBe(200);
  });
});

describe('cookies and origins', () => {
  const own = () => new URL(g.baseUrl).origin;

  it('takes the gw_session cookie for reads, and for writes only from an allowed Origin', async () => {
    const cookie = { cookie: `gw_session=${full.token}` };
    expect((await fetch(`${g.baseUrl}/api/providers`, { headers: cookie })).status).toBe(200);
    const clear = (headers: Record<string, string>) =>
      fetch(`${g.baseUrl}/api/clear`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...cookie, ...headers },
        body: JSON.stringify({ sessionId: 'cookie-origin' }),
      });
    await expectProblem(await clear({}), 403, 'origin-not-allowed');
    await expectProblem(await clear({ origin: 'https://evil.example' }), 403, 'origin-not-allowed');
    await expectProblem(await clear({ origin: 'null' }), 403, 'origin-not-allowed');
    expect((await clear({ origin: own() })).status).toBe(200);
  });

  it('behind a trusted proxy, the page’s own origin is the public one (X-Forwarded-Proto and X-Forwarded-Host)', async () => {
    const proxied = await startTestGateway({
      env: { ...TOKEN_ENV, TRUST_PROXY: '1', ALLOWED_HOSTS: 'chat.example.com,127.0.0.1' },
      redis: 'required',
    });
    try {
      const w = await newWorkspace(proxied);
      const d = await pairDevice(proxied, w, ['chat']);
      const clear = (origin: string) =>
        fetch(`${proxied.baseUrl}/api/clear`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            cookie: `gw_session=${d.token}`,
            origin,
            'x-forwarded-proto': 'https',
            'x-forwarded-host': 'chat.example.com',
          },
          body: JSON.stringify({ sessionId: 'proxied' }),
        });
      expect((await clear('https://chat.example.com')).status).toBe(200);
      await expectProblem(await clear('http://chat.example.com'), 403, 'origin-not-allowed');
    } finally {
      await proxied.close();
    }
  });

  it('with CORS_ORIGIN=* reads are open to any origin, writes to none but the gateway’s own, and no credentials', async () => {
    const read = await fetch(`${g.baseUrl}/api/providers`, {
      headers: { ...full.bearer, origin: 'https://evil.example' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('*');
    expect(read.headers.get('access-control-allow-credentials')).toBeNull();
    const write = await fetch(`${g.baseUrl}/api/clear`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...full.bearer, origin: 'https://evil.example' },
      body: JSON.stringify({ sessionId: 'x' }),
    });
    await expectProblem(write, 403, 'origin-not-allowed');
    const preflight = await fetch(`${g.baseUrl}/api/clear`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('with a CORS_ORIGIN list, listed origins may write with a bearer (and credentials are allowed)', async () => {
    const listed = await startTestGateway({
      env: { ...TOKEN_ENV, CORS_ORIGIN: 'https://app.example' },
      redis: 'required',
    });
    try {
      const w = await newWorkspace(listed);
      const d = await pairDevice(listed, w, ['chat']);
      const clear = (origin: string) =>
        fetch(`${listed.baseUrl}/api/clear`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...d.bearer, origin },
          body: JSON.stringify({ sessionId: 'x' }),
        });
      const ok = await clear('https://app.example');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
      await expectProblem(await clear('https://evil.example'), 403, 'origin-not-allowed');
    } finally {
      await listed.close();
    }
  });
});

describe('GATEWAY_AUTH=none', () => {
  it('every caller is the operator: no route asks for a token', async () => {
    const open = await startTestGateway({ env: { AI_WORKERS_ENABLED: 'true' }, redis: 'required' });
    try {
      expect(open.config.GATEWAY_AUTH).toBe('none');
      for (const route of routes) {
        const res = await fetch(`${open.baseUrl}${urlOf(route)}`, { method: route.method.toUpperCase() });
        // the embedded chat asks for its embed key in any mode, never for a token
        if (route.access === 'embed') expect(await res.text()).toMatch(/"code":"embed-key-invalid"/);
        else expect(res.status, route.operationId).not.toBe(401);
        expect(res.headers.get('www-authenticate')).toBeNull();
      }
    } finally {
      await open.close();
    }
  });
});

describe('the Host allow-list', () => {
  function get(path: string, host: string): Promise<{ status: number; body: string }> {
    const { port } = new URL(g.baseUrl);
    return new Promise((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
        .on('error', reject)
        .end();
    });
  }

  it('serves the loopback names, refuses others with 403 host-not-allowed, and answers health probes to any', async () => {
    const { port } = new URL(g.baseUrl);
    expect(g.config.ALLOWED_HOSTS).toEqual(['localhost', '127.0.0.1', '[::1]']);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect((await get('/', host)).status, host).toBe(200);
    }
    for (const host of [`evil.example:${port}`, 'evil.example', `localhost.evil.example:${port}`]) {
      for (const path of ['/', '/api/providers', '/openapi.json']) {
        const res = await get(path, host);
        expect(res.status, `${host}${path}`).toBe(403);
        expect(JSON.parse(res.body)).toMatchObject({ code: 'host-not-allowed', status: 403 });
      }
    }
    expect((await get('/healthz', 'gateway-container:3000')).status).toBe(200);
  });

  it('refuses a request with an empty or missing Host like an unknown name (raw requests, as a client may send them)', async () => {
    const { port } = new URL(g.baseUrl);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
        let answer = '';
        socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    for (const request of [
      'GET /api/providers HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n',
      'GET /api/providers HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n',
      `GET /api/providers HTTP/1.1\r\nHost: :${port}\r\nConnection: close\r\n\r\n`,
      'GET /api/providers HTTP/1.0\r\n\r\n',
      'GET / HTTP/1.0\r\n\r\n',
    ]) {
      const answer = await raw(request);
      expect(answer.split('\r\n')[0], request).toMatch(/^HTTP\/1\.1 403 /);
      expect(answer, request).toContain('"code":"host-not-allowed"');
    }
  });

  it('ALLOWED_HOSTS names the public host', async () => {
    const named = await startTestGateway({ env: { ...TOKEN_ENV, ALLOWED_HOSTS: 'gateway.example.com' } });
    try {
      const { port } = new URL(named.baseUrl);
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          httpRequest({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
            .on('error', reject)
            .end();
        });
      expect(await status('gateway.example.com')).toBe(200);
      expect(await status(`127.0.0.1:${port}`)).toBe(403);
    } finally {
      await named.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('lists the access refusals and the security of every scoped route, none for open ones', async () => {
    const doc = (await (await fetch(`${g.baseUrl}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { security: unknown[]; responses: Record<string, { description: string }> }>
      >;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['deviceToken', 'sessionCookie']);
    for (const route of scoped) {
      const op = doc.paths[route.path.replace(/:([A-Za-z_]+)/g, '{$1}')]![route.method]!;
      expect(op.security, route.operationId).toEqual([
        { deviceToken: [route.access] },
        { sessionCookie: [route.access] },
      ]);
      expect(op.responses['401']!.description, route.operationId).toContain('`unauthorized`');
      expect(op.responses['403']!.description, route.operationId).toContain('`insufficient-scope`');
      expect(op.responses['403']!.description, route.operationId).toContain('`workspace-forbidden`');
    }
    const redeem = doc.paths['/api/pairing/redeem']!.post!;
    expect(redeem.security).toEqual([]);
    expect(redeem.responses['401']).toBeUndefined();
    expect(redeem.responses['403']!.description).toContain('`origin-not-allowed`');
  });
});
