import { Writable } from 'node:stream';
import { Worker, WorkersResponse } from '@pa/contracts';
import { createLogger } from '@pa/http-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, newWorkspace, pairDevice, TOKEN_ENV } from './support/access.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// A device acts in its one workspace: without X-Workspace-Id it is its own, with another one it is refused, and
// another workspace's records are not found. Tokens never reach the logs.

let g: TestGateway;
let logs = '';
beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs += chunk.toString();
      done();
    },
  });
  g = await startTestGateway({
    env: { ...TOKEN_ENV, AI_WORKERS_ENABLED: 'true' },
    redis: 'required',
    logger: createLogger('agent-gateway', 'debug', sink),
  });
});
afterAll(async () => {
  await g?.close();
});

describe('a device’s workspace', () => {
  it('is where it acts without X-Workspace-Id; other workspaces are refused or not found', async () => {
    const mine = await newWorkspace(g, 'mine');
    const theirs = await newWorkspace(g, 'theirs');
    const device = await pairDevice(g, mine, ['chat', 'workers:write']);

    const created = await postJson(
      g.baseUrl,
      '/api/assistant/workers',
      { name: 'Lettings helper' },
      device.bearer,
    );
    expect(created.status, await created.clone().text()).toBe(201);
    const worker = expectContract(Worker, await created.json());
    expect(worker.workspaceId).toBe(mine);

    const theirsCreated = await postJson(
      g.baseUrl,
      '/api/assistant/workers',
      { name: 'Other' },
      { ...adminHeaders, 'X-Workspace-Id': theirs },
    );
    const other = expectContract(Worker, await theirsCreated.json());

    const listed = expectContract(
      WorkersResponse,
      await (await fetch(`${g.baseUrl}/api/assistant/workers`, { headers: device.bearer })).json(),
    );
    expect(listed.workers.map((w) => w.id)).toEqual([worker.id]);
    await expectProblem(
      await fetch(`${g.baseUrl}/api/assistant/workers/${other.id}`, { headers: device.bearer }),
      404,
      'worker-not-found',
    );
    await expectProblem(
      await fetch(`${g.baseUrl}/api/assistant/workers`, {
        headers: { ...device.bearer, 'X-Workspace-Id': theirs },
      }),
      403,
      'workspace-forbidden',
    );
    // the operator names the workspace it acts in, as before tokens
    await expectProblem(
      await fetch(`${g.baseUrl}/api/assistant/workers`, { headers: adminHeaders }),
      400,
      'validation-failed',
    );
  });

  it('keeps tokens, codes and the admin token out of the logs', async () => {
    const ws = await newWorkspace(g, 'logs');
    const device = await pairDevice(g, ws, ['chat']);
    await fetch(`${g.baseUrl}/api/providers`, { headers: device.bearer });
    await fetch(`${g.baseUrl}/api/providers`, { headers: { cookie: `gw_session=${device.token}` } });
    await fetch(`${g.baseUrl}/api/providers`, { headers: { authorization: `Bearer ${device.token}x` } });
    expect(logs).toContain('/api/providers');
    expect(logs).not.toContain(device.token);
    expect(logs).not.toContain(TOKEN_ENV.GATEWAY_ADMIN_TOKEN);
    expect(logs).not.toMatch(/gwt_[0-9A-Za-z]{10}/);
  });
});
