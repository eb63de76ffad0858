import { rawRequest, type SilentServer, startSilentServer } from '@pa/http-kit/testing';
import { Problem } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Issue 10: bad input of every kind is a clean 4xx problem, never a 500.

let g: TestGateway;
let workspaceId: string;
beforeAll(async () => {
  g = await startTestGateway({ redis: 'none', env: { AI_WORKERS_ENABLED: 'true' } });
  workspaceId = (await g.db.workspace.create({ data: { name: 'hardening' } })).id;
});
afterAll(async () => g?.close());

describe('GET /api/assistant/workers/{workerId}', () => {
  it('with bad percent-encoding (%E0%A4%A) answers 400 validation-failed', async () => {
    const res = await fetch(`${g.baseUrl}/api/assistant/workers/%E0%A4%A`, {
      headers: { 'X-Workspace-Id': workspaceId },
    });
    await expectProblem(res, 400, 'validation-failed');
  });
});

describe('POST /api/chat', () => {
  it('with Content-Encoding: gzip and a body that is not gzip answers 400 malformed-json', async () => {
    const res = await postJson(g.baseUrl, '/api/chat', { message: 'hello' }, { 'content-encoding': 'gzip' });
    await expectProblem(res, 400, 'malformed-json');
  });
});

describe('POST /api/assistant/workers', () => {
  it('with U+0000 in the name answers 400 validation-failed at #/name', async () => {
    const res = await postJson(
      g.baseUrl,
      '/api/assistant/workers',
      { name: 'a\u0000b' },
      { 'X-Workspace-Id': workspaceId },
    );
    const p = await expectProblem(res, 400, 'validation-failed');
    expect(p.errors?.map((e) => e.pointer)).toEqual(['#/name']);
  });
});

describe('unknown query parameters', () => {
  it('GET /api/web/context?x=1 answers 400 validation-failed', async () => {
    const p = await expectProblem(await fetch(`${g.baseUrl}/api/web/context?x=1`), 400, 'validation-failed');
    expect(p.errors).toEqual([{ pointer: '#/x', detail: 'is not a known field' }]);
  });

  it('POST /v1/chat/completions?api-version=1 stays lenient for OpenAI clients', async () => {
    const res = await postJson(g.baseUrl, '/v1/chat/completions?api-version=1', {
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(res.status).toBe(200);
  });
});

describe("Node's own parser errors", () => {
  it.each([
    ['an oversized header', 431, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['a bare LF', 400, 'GET /healthz HTTP/1.1\nHost: x\r\n\r\n'],
    [
      'Content-Length with Transfer-Encoding',
      400,
      'POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
  ] as const)('%s is answered %i as problem+json', async (_name, status, bytes) => {
    const res = await rawRequest(g.baseUrl, bytes);
    expect(res.status).toBe(status);
    expect(res.head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(expectContract(Problem, JSON.parse(res.body)).status).toBe(status);
  });
});

describe('database outage', () => {
  let down: TestGateway;
  beforeAll(async () => {
    // port 1 on loopback: nothing listens there, so every connection is refused
    down = await startTestGateway({
      redis: 'none',
      databaseUrl: 'postgresql://postgres@127.0.0.1:1/gone',
      env: { AI_WORKERS_ENABLED: 'true' },
    });
  });
  afterAll(async () => down?.close());

  it('POST /api/chat answers 503 database-unavailable with Retry-After', async () => {
    const res = await postJson(down.baseUrl, '/api/chat', { message: 'hello' });
    await expectProblem(res, 503, 'database-unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('GET /api/assistant/workers answers 503 database-unavailable', async () => {
    const res = await fetch(`${down.baseUrl}/api/assistant/workers`, {
      headers: { 'X-Workspace-Id': '5b1c2f0e-6a43-4d55-9a7e-0a6f2b0f1c11' },
    });
    await expectProblem(res, 503, 'database-unavailable');
  });
});

// Issue 33, defect 2: a server that accepts connections and never answers held every request (pg waits forever by
// default); the pool's timeouts (db-tools' timeouts.ts) turn the silence into a 503 within seconds.
describe('a database that accepts connections but never answers', () => {
  let silent: SilentServer;
  let hung: TestGateway;
  beforeAll(async () => {
    silent = await startSilentServer();
    hung = await startTestGateway({
      redis: 'none',
      databaseUrl: `postgresql://postgres@127.0.0.1:${silent.port}/hung`,
      env: { AI_WORKERS_ENABLED: 'true' },
    });
  });
  afterAll(async () => {
    await hung?.close();
    await silent?.close();
  });

  it('GET /api/assistant/workers answers 503 database-unavailable with Retry-After instead of hanging', async () => {
    const res = await fetch(`${hung.baseUrl}/api/assistant/workers`, {
      headers: { 'X-Workspace-Id': '5b1c2f0e-6a43-4d55-9a7e-0a6f2b0f1c11' },
      // stands for "hung": the fix answers within the pool's 5 s connect timeout
      signal: AbortSignal.timeout(60_000),
    });
    await expectProblem(res, 503, 'database-unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(silent.accepted()).toBeGreaterThan(0);
  }, 90_000);

  it('GET /readyz answers 503 within its own deadline', async () => {
    const res = await fetch(`${hung.baseUrl}/readyz`, { signal: AbortSignal.timeout(60_000) });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: 'unavailable', checks: { database: 'unavailable' } });
  }, 90_000);
});
