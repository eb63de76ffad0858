import { Worker } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, newWorkspace, pairDevice, type PairedDevice, TOKEN_ENV } from './support/access.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Failed binds and channel connections are limited per client IP and per paired device (docs/access.md): each
// attempt makes the gateway call out with a key the caller typed. The client IP comes from one trusted proxy hop
// here, so that one test can speak from several addresses.

let g: TestGateway;
let workspaceId: string;
let workerId: string;
let d1: PairedDevice;
let d2: PairedDevice;

beforeAll(async () => {
  g = await startTestGateway({
    env: {
      ...TOKEN_ENV,
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      // nothing listens there: every bind fails without reaching a bridge
      PLATFORM_BASE_URL: 'http://127.0.0.1:9',
      TRUST_PROXY: '1',
      SETUP_FAILURES_PER_10_MIN: '3',
      // the per-workspace budget is the next describe's
      SETUP_FAILURES_PER_WORKSPACE_10_MIN: '1000',
    },
    redis: 'required',
  });
  workspaceId = await newWorkspace(g, 'limits');
  d1 = await pairDevice(g, workspaceId, ['chat', 'workers:write'], 'd1');
  d2 = await pairDevice(g, workspaceId, ['chat', 'workers:write'], 'd2');
  const res = await postJson(g.baseUrl, '/api/assistant/workers', { name: 'Limits' }, d1.bearer);
  expect(res.status).toBe(201);
  workerId = expectContract(Worker, await res.json()).id;
});
afterAll(async () => {
  await g?.close();
});

const bind = (headers: Record<string, string>, ip: string) =>
  postJson(
    g.baseUrl,
    `/api/assistant/workers/${workerId}/platform/bind`,
    { tenantSlug: 'no-such-tenant', apiKey: 'plat_junk' },
    { ...headers, 'x-forwarded-for': ip },
  );
const connect = (headers: Record<string, string>, ip: string) =>
  postJson(
    g.baseUrl,
    `/api/assistant/workers/${workerId}/channels`,
    { type: 'telegram', botToken: 'junk' },
    { ...headers, 'x-forwarded-for': ip },
  );

describe('failed binds and channel connections', () => {
  const operator = () => ({ ...adminHeaders, 'x-workspace-id': workspaceId });
  it('are limited per device, whatever the address it comes from', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await bind(d1.bearer, '203.0.113.1');
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).not.toBe(429);
    }
    const limited = await bind(d1.bearer, '203.0.113.1');
    const problem = await expectProblem(limited, 429, 'rate-limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(500);
    expect(problem.detail).toMatch(/Too many failed attempts/);
    // the same device from another address: still its own budget
    await expectProblem(await bind(d1.bearer, '203.0.113.2'), 429, 'rate-limited');
    // another device of the workspace, from a third address, is not held back
    expect((await bind(d2.bearer, '203.0.113.3')).status).not.toBe(429);
  });

  it('are limited per client IP, for devices and the operator alike; connects and binds share the budget', async () => {
    for (let i = 0; i < 2; i++) expect((await connect(operator(), '198.51.100.7')).status).not.toBe(429);
    expect((await bind(operator(), '198.51.100.7')).status).not.toBe(429);
    await expectProblem(await connect(operator(), '198.51.100.7'), 429, 'rate-limited');
    // d2 from that address: the address's budget is spent
    await expectProblem(await bind(d2.bearer, '198.51.100.7'), 429, 'rate-limited');
    // the operator from elsewhere is not
    expect((await bind(operator(), '198.51.100.8')).status).not.toBe(429);
  });
});

// Issue 33, defect 1: the budget was per client IP (and device) only, so one workspace spread over many addresses
// could make the gateway call out without end.
describe('failed setup attempts of one workspace', () => {
  let w: TestGateway;
  beforeAll(async () => {
    w = await startTestGateway({
      env: {
        ...TOKEN_ENV,
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        PLATFORM_BASE_URL: 'http://127.0.0.1:9',
        TRUST_PROXY: '1',
        SETUP_FAILURES_PER_10_MIN: '3',
        SETUP_FAILURES_PER_WORKSPACE_10_MIN: '4',
      },
      redis: 'required',
    });
  });
  afterAll(async () => w?.close());

  const workerIn = async (name: string) => {
    const workspace = await newWorkspace(w, name);
    const headers = { ...adminHeaders, 'x-workspace-id': workspace };
    const res = await postJson(w.baseUrl, '/api/assistant/workers', { name }, headers);
    expect(res.status).toBe(201);
    return { headers, id: expectContract(Worker, await res.json()).id };
  };
  const bindFrom = (worker: { headers: Record<string, string>; id: string }, ip: string) =>
    postJson(
      w.baseUrl,
      `/api/assistant/workers/${worker.id}/platform/bind`,
      { tenantSlug: 'no-such-tenant', apiKey: 'plat_junk' },
      { ...worker.headers, 'x-forwarded-for': ip },
    );

  it('are limited per workspace, whatever the addresses they come from; another workspace is not held back', async () => {
    const busy = await workerIn('spread');
    // each from an address of its own: no address comes near its budget of 3
    for (let i = 1; i <= 4; i++) {
      const res = await bindFrom(busy, `192.0.2.${i}`);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).not.toBe(429);
    }
    const limited = await bindFrom(busy, '192.0.2.5');
    expect((await expectProblem(limited, 429, 'rate-limited')).detail).toMatch(/Too many failed attempts/);
    const other = await workerIn('quiet');
    expect((await bindFrom(other, '192.0.2.6')).status).not.toBe(429);
  });
});
