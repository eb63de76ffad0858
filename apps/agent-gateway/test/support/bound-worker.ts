import { BindResponse, ChatResponse, Worker } from '@pa/contracts';
import { expect } from 'vitest';
import { expectContract, postJson } from './http.ts';
import type { TestGateway } from './test-app.ts';

// A workspace with a "Property Manager" worker bound to a platform tenant through the gateway's real API (the
// bind endpoint smoke-tests the key against the bridge), and a chat with it.

export interface BoundWorker {
  workspaceId: string;
  workerId: string;
  /** POST /api/chat to this worker; the reply parsed by its contract */
  chat(message: string, opts?: { sessionId?: string; provider?: string }): Promise<ChatResponse>;
}

export async function bindWorker(
  g: TestGateway,
  tenant: { slug: string; key: string },
): Promise<BoundWorker> {
  const workspaceId = (await g.db.workspace.create({ data: { name: `ws-${Date.now()}` } })).id;
  const headers = { 'X-Workspace-Id': workspaceId };
  const created = await postJson(
    g.baseUrl,
    '/api/assistant/workers',
    { name: 'Property Manager', template: 'property-manager' },
    headers,
  );
  expect(created.status).toBe(201);
  const worker = expectContract(Worker, await created.json());
  const bound = await postJson(
    g.baseUrl,
    `/api/assistant/workers/${worker.id}/platform/bind`,
    { tenantSlug: tenant.slug, apiKey: tenant.key },
    headers,
  );
  expect(bound.status, await bound.clone().text()).toBe(200);
  expectContract(BindResponse, await bound.json());
  return {
    workspaceId,
    workerId: worker.id,
    async chat(message, opts = {}) {
      const res = await postJson(g.baseUrl, '/api/chat', { message, workerId: worker.id, ...opts }, headers);
      expect(res.status, await res.clone().text()).toBe(200);
      return expectContract(ChatResponse, await res.json());
    },
  };
}
