import { HealthResponse, Problem, ReadinessResponse } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge();
});
afterAll(async () => t?.close());

describe('operations', () => {
  it('GET /healthz and /readyz', async () => {
    expectContract(HealthResponse, (await request(t.app).get('/healthz').expect(200)).body);
    const ready = expectContract(ReadinessResponse, (await request(t.app).get('/readyz').expect(200)).body);
    expect(ready.checks.database).toBe('ok');
  });

  it('GET /openapi.json serves the OpenAPI 3.1 document of the bridge', async () => {
    const res = await request(t.app).get('/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toContain('/api/assistant-bridge/properties/{id}/compliance');
  });

  it('echoes a safe X-Request-Id and replaces an unsafe one', async () => {
    const ok = await request(t.app).get('/healthz').set('X-Request-Id', 'trace-123.abc');
    expect(ok.headers['x-request-id']).toBe('trace-123.abc');
    const unsafe = await request(t.app).get('/healthz').set('X-Request-Id', 'bad id\twith spaces');
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const problem = await request(t.app).get('/api/assistant-bridge/portfolio').set('X-Request-Id', 'req-42');
    expect(expectContract(Problem, problem.body).request_id).toBe('req-42');
  });

  it('answers unknown routes with a problem', async () => {
    const p = expectProblem(await request(t.app).get('/nope'), 404, 'not-found');
    expect(p.instance).toBe('/nope');
  });

  it('sets Helmet’s security headers and hides the framework', async () => {
    const res = await request(t.app).get('/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('answers malformed JSON and oversized bodies with problems', async () => {
    const tenant = await makeTenant(t, {
      flags: ['assistant_external_bridge', 'assistant_bridge_writes'],
      scopes: ['bridge:propose'],
    });
    const bad = await request(t.app)
      .post('/api/assistant-bridge/proposals/deal')
      .set(...bearer(tenant.key))
      .set('Idempotency-Key', 'bad-json')
      .set('Content-Type', 'application/json')
      .send('{"oops":');
    expectProblem(bad, 400, 'malformed-json');
    const big = await request(t.app)
      .post('/api/assistant-bridge/proposals/deal')
      .set(...bearer(tenant.key))
      .set('Idempotency-Key', 'big-json')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ x: 'a'.repeat(70 * 1024) }));
    expectProblem(big, 413, 'payload-too-large');
  });
});
