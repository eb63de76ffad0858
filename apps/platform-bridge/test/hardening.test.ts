import { rawRequest, startSilentServer } from '@pa/http-kit/testing';
import { openAppDatabase } from '@pa/db-tools';
import { PrismaPg } from '@prisma/adapter-pg';
import { Problem } from '@pa/contracts';
import { createLogger } from '@pa/http-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { createPrismaClient } from '../src/lib/db.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeProperty, makeTenant } from './support/factories.ts';
import { makeReviewTenant } from './support/proposal-factory.ts';
import { listenTestBridge, startTestBridge, type TestBridge } from './support/test-app.ts';

// Issue 10: bad input of every kind is a clean 4xx problem, never a 500.

let t: TestBridge;
let tenant: Awaited<ReturnType<typeof makeTenant>>;
let propertyId: number;
beforeAll(async () => {
  t = await startTestBridge();
  tenant = await makeTenant(t);
  propertyId = (await makeProperty(t, tenant.id)).id;
});
afterAll(async () => t?.close());

const get = (path: string) =>
  request(t.app)
    .get(path)
    .set(...bearer(tenant.key));

describe('cursors', () => {
  it.each([
    ['/api/assistant-bridge/portfolio', `p:2147483648`],
    ['/api/assistant-bridge/deals', `d:2147483648`],
    ['/api/assistant-bridge/deals', `d:9999999999`],
  ])(
    'GET %s with a cursor past the integer id range (%s) answers 400 validation-failed',
    async (path, raw) => {
      const cursor = Buffer.from(raw).toString('base64url');
      const p = expectProblem(await get(`${path}?cursor=${cursor}`), 400, 'validation-failed');
      expect(p.errors?.[0]?.pointer).toBe('#/cursor');
    },
  );
});

describe('cursors of the admin API', () => {
  it.each(['r:1:2147483648', 'r:99999999999999999:1', 'd:5', 'r:x:1'])(
    'GET /api/admin/review-queue with a forged cursor (%s) answers 400 validation-failed',
    async (raw) => {
      const admin = await makeReviewTenant(t);
      const res = await request(t.app)
        .get(`/api/admin/review-queue?cursor=${Buffer.from(raw).toString('base64url')}`)
        .set(...bearer(admin.adminKey));
      expect(expectProblem(res, 400, 'validation-failed').errors?.[0]?.pointer).toBe('#/cursor');
    },
  );
});

describe('path encoding', () => {
  it.each([
    '/api/assistant-bridge/properties/%E0%A4%A',
    '/api/assistant-bridge/properties/%E0%A4%A/compliance',
  ])('GET %s (bad percent-encoding) answers 400 validation-failed', async (path) => {
    expectProblem(await get(path), 400, 'validation-failed');
  });
});

describe('unknown query parameters', () => {
  it('GET /api/admin/proposals/{id}/audit?x=1 answers 400 validation-failed naming the parameter', async () => {
    const admin = await makeReviewTenant(t);
    const res = await request(t.app)
      .get('/api/admin/proposals/1/audit?x=1')
      .set(...bearer(admin.adminKey));
    expect(expectProblem(res, 400, 'validation-failed').errors).toEqual([
      { pointer: '#/x', detail: 'is not a known field' },
    ]);
  });

  it.each(['/properties/{id}', '/properties/{id}/compliance', '/mailboxes'])(
    'GET %s?x=1 answers 400 validation-failed naming the parameter',
    async (path) => {
      const url = `/api/assistant-bridge${path.replace('{id}', String(propertyId))}?x=1`;
      const p = expectProblem(await get(url), 400, 'validation-failed');
      expect(p.errors).toEqual([{ pointer: '#/x', detail: 'is not a known field' }]);
    },
  );

  it('GET /properties/{id} without a query still answers 200', async () => {
    expect((await get(`/api/assistant-bridge/properties/${propertyId}`)).status).toBe(200);
  });
});

describe('invalid compressed bodies', () => {
  it('a gzip Content-Encoding whose body is not gzip answers 400 problem+json, not 500', async () => {
    // the body parser runs on the routes that take a body, after their key, flag, scope and Idempotency-Key checks
    const writer = await makeTenant(t, {
      flags: ['assistant_external_bridge', 'assistant_bridge_writes'],
      scopes: ['bridge:propose'],
    });
    const res = await request(t.app)
      .post('/api/assistant-bridge/proposals/deal')
      .set(...bearer(writer.key))
      .set('Idempotency-Key', 'gzip')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .send('{"not":"gzip"}');
    expectProblem(res, 400, 'malformed-json');
  });
});

describe('bodies in other charsets, invalid UTF-8 and other compressions', () => {
  let writer: Awaited<ReturnType<typeof makeTenant>>;
  let server: Awaited<ReturnType<typeof listenTestBridge>>;
  beforeAll(async () => {
    writer = await makeTenant(t, {
      flags: ['assistant_external_bridge', 'assistant_bridge_writes'],
      scopes: ['bridge:propose'],
    });
    server = await listenTestBridge(t);
  });
  afterAll(async () => server?.close());
  // the bytes exactly as given (supertest would serialise a Buffer as JSON)
  const post = async (key: string, headers: Record<string, string>, body: Buffer | string) => {
    const res = await fetch(`${server.baseUrl}/api/assistant-bridge/proposals/deal`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.key}`, 'idempotency-key': key, ...headers },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    return {
      status: res.status,
      headers: { 'content-type': res.headers.get('content-type') ?? '' },
      body: (await res.json()) as unknown,
    };
  };
  const deal = JSON.stringify({ title: 'Charset check', property_id: null });
  const stored = () => t.db.proposal.count({ where: { tenantId: writer.id } });

  it('a body declared UTF-16 (and sent so) or Latin-1 answers 415; utf-8 in any case is read', async () => {
    const before = await stored();
    const utf16 = await post(
      'utf16',
      { 'Content-Type': 'application/json; charset=utf-16' },
      Buffer.from(deal, 'utf16le'),
    );
    expectProblem(utf16, 415, 'unsupported-media-type');
    const latin1 = await post('latin1', { 'Content-Type': 'application/json; charset=latin1' }, deal);
    expectProblem(latin1, 415, 'unsupported-media-type');
    expect(await stored()).toBe(before);
    for (const charset of ['utf-8', 'UTF-8', '"utf-8"']) {
      const res = await post(
        `ok-${charset}`,
        { 'Content-Type': `application/json; charset=${charset}` },
        deal,
      );
      expect(res.status, charset).toBe(201);
    }
    expect(await stored()).toBe(before + 3);
  });

  it('bytes that are not UTF-8 answer 400 malformed-json and store nothing (no U+FFFD in their place)', async () => {
    const before = await stored();
    const bytes = Buffer.concat([
      Buffer.from('{"title":"Bad '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","property_id":null}'),
    ]);
    expectProblem(
      await post('bad-utf8', { 'Content-Type': 'application/json' }, bytes),
      400,
      'malformed-json',
    );
    expect(await stored()).toBe(before);
  });

  it('a lone UTF-16 surrogate in a text field answers 400 validation-failed naming it, and stores nothing', async () => {
    const before = await stored();
    for (const title of ['a\ud800b', '\udc00']) {
      // JSON.stringify writes a lone surrogate as its \uXXXX escape, as a client would send it
      const body = JSON.stringify({ title, property_id: null });
      expect(body).toContain('\\u');
      const res = await post(`lone-${title.length}`, { 'Content-Type': 'application/json' }, body);
      const p = expectProblem(res, 400, 'validation-failed');
      expect(p.errors?.map((e) => e.pointer)).toContain('#/title');
    }
    expect(await stored()).toBe(before);
  });

  it('a br Content-Encoding whose body is not Brotli answers 400 malformed-json, as gzip does', async () => {
    const res = await post('br', { 'Content-Type': 'application/json', 'Content-Encoding': 'br' }, deal);
    expectProblem(res, 400, 'malformed-json');
  });
});

describe('conditional GET /properties/{id} from fetch', () => {
  let server: Awaited<ReturnType<typeof listenTestBridge>>;
  beforeAll(async () => {
    server = await listenTestBridge(t);
  });
  afterAll(async () => server?.close());

  const fetchProperty = (headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}/api/assistant-bridge/properties/${propertyId}`, {
      headers: { authorization: `Bearer ${tenant.key}`, ...headers },
    });

  it('answers 304 to If-None-Match with the ETag even with Cache-Control: no-cache (as fetch sends it)', async () => {
    const first = await fetchProperty();
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    for (const inm of [etag, etag.slice(2), `"nope", ${etag}`, '*']) {
      const res = await fetchProperty({ 'if-none-match': inm, 'cache-control': 'no-cache' });
      expect(res.status, inm).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(await res.text()).toBe('');
    }
    const other = await fetchProperty({ 'if-none-match': '"nope", W/"other"', 'cache-control': 'no-cache' });
    expect(other.status).toBe(200);
  });

  it('the same holds on every GET of the app, e.g. /deals (one freshness check for the whole app)', async () => {
    const url = `${server.baseUrl}/api/assistant-bridge/deals`;
    const auth = { authorization: `Bearer ${tenant.key}` };
    const etag = (await fetch(url, { headers: auth })).headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const again = await fetch(url, {
      headers: { ...auth, 'if-none-match': etag, 'cache-control': 'no-cache' },
    });
    expect(again.status).toBe(304);
  });
});

describe('reads stamped with their moment (as_of)', () => {
  let server: Awaited<ReturnType<typeof listenTestBridge>>;
  beforeAll(async () => {
    server = await listenTestBridge(t);
  });
  afterAll(async () => server?.close());

  // as_of differs on every request in production, so an ETag could never match: these send none
  for (const path of ['portfolio', 'portfolio/compliance', 'properties/:id/compliance'])
    it(`GET /${path} sends JSON without an ETag, and a conditional request gets the whole answer`, async () => {
      const url = `${server.baseUrl}/api/assistant-bridge/${path.replace(':id', String(propertyId))}`;
      const headers = { authorization: `Bearer ${tenant.key}` };
      const res = await fetch(url, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBeNull();
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = await res.text();
      expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(body));
      expect(JSON.parse(body)).toHaveProperty('as_of');
      const again = await fetch(url, { headers: { ...headers, 'if-none-match': 'W/"any"' } });
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(body); // the test's clock stands still
      const head = await fetch(url, { method: 'HEAD', headers });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
    });
});

describe("Node's own parser errors", () => {
  let server: Awaited<ReturnType<typeof listenTestBridge>>;
  beforeAll(async () => {
    server = await listenTestBridge(t);
  });
  afterAll(async () => server?.close());

  it.each([
    ['an oversized header', 431, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['a bare LF', 400, 'GET /healthz HTTP/1.1\nHost: x\r\n\r\n'],
    [
      'Content-Length with Transfer-Encoding',
      400,
      'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
  ] as const)('%s is answered %i as problem+json', async (_name, status, bytes) => {
    const res = await rawRequest(server.baseUrl, bytes);
    expect(res.status).toBe(status);
    expect(res.head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    const p = expectContract(Problem, JSON.parse(res.body));
    expect(p.status).toBe(status);
  });
});

describe('database outage', () => {
  it('GET /properties/{id} with the database gone answers 503 database-unavailable with Retry-After', async () => {
    // port 1 on loopback: nothing listens there, so every connection is refused
    const db = createPrismaClient(
      new PrismaPg({
        connectionString: 'postgresql://postgres@127.0.0.1:1/gone',
        connectionTimeoutMillis: 2_000,
      }),
    );
    const app = createApp({ db, logger: createLogger('platform-bridge', 'silent') });
    try {
      const res = await request(app)
        .get(`/api/assistant-bridge/properties/${propertyId}`)
        .set(...bearer(tenant.key));
      expectProblem(res, 503, 'database-unavailable');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await db.$disconnect();
    }
  });

  // Issue 33, defect 2: a server that accepts connections and never answers held GET /deals for minutes (pg waits
  // forever by default). Opened as main.ts opens it, the pool's timeouts turn the silence into a 503.
  it('a database that accepts connections but never answers: GET /deals and /readyz answer 503 instead of hanging', async () => {
    const silent = await startSilentServer();
    const opened = await openAppDatabase({
      name: 'platform',
      url: `postgresql://postgres@127.0.0.1:${silent.port}/hung`,
    });
    const db = createPrismaClient(opened.adapter);
    const app = createApp({ db, logger: createLogger('platform-bridge', 'silent') });
    try {
      // supertest's own timeout stands for "hung": the fix answers within the pool's 5 s connect timeout
      const deals = await request(app)
        .get('/api/assistant-bridge/deals')
        .set(...bearer(tenant.key))
        .timeout(60_000);
      expectProblem(deals, 503, 'database-unavailable');
      expect(Number(deals.headers['retry-after'])).toBeGreaterThan(0);
      const ready = await request(app).get('/readyz').timeout(60_000);
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', checks: { database: 'unavailable' } });
      expect(silent.accepted()).toBeGreaterThan(0);
    } finally {
      await db.$disconnect();
      await opened.close();
      await silent.close();
    }
  }, 90_000);
});
