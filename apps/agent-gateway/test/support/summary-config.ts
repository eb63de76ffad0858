import { randomBytes } from 'node:crypto';
import { SummaryConfig } from '@pa/contracts';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { bindWorker, type BoundWorker } from './bound-worker.ts';
import { expectContract, postJson } from './http.ts';
import type { TestTenant } from './platform.ts';
import type { TestGateway } from './test-app.ts';

// The daily summary's configuration tests: a queue prefix of the test file's own (cleaned after), the routes
// called as a client would, and the gateway's flags.

export const uniqueQueuePrefix = (file: string) =>
  `test-${file}-${process.pid}-${randomBytes(4).toString('hex')}`;

export function summaryEnv(platformUrl: string, queuePrefix: string): Record<string, string> {
  return {
    AI_WORKERS_ENABLED: 'true',
    PLATFORM_BRIDGE_ENABLED: 'true',
    ASSISTANT_DAILY_SUMMARY_ENABLED: 'true',
    PLATFORM_BASE_URL: platformUrl,
    SUMMARY_QUEUE_PREFIX: queuePrefix,
  };
}

/** Deletes every key under the queue prefix (the test file's own). */
export async function dropQueueKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

export const configPath = (workerId: string) => `/api/assistant/email/summary/config/${workerId}`;

export function getConfig(g: TestGateway, workspaceId: string, workerId: string) {
  return fetch(`${g.baseUrl}${configPath(workerId)}`, { headers: { 'X-Workspace-Id': workspaceId } });
}

export function postConfig(g: TestGateway, workspaceId: string, workerId: string, body: unknown) {
  return postJson(g.baseUrl, configPath(workerId), body, { 'X-Workspace-Id': workspaceId });
}

/** POSTs the configuration and expects 200 with an answer that keeps the contract. */
export async function configure(
  g: TestGateway,
  w: { workspaceId: string; workerId: string },
  body: Record<string, unknown>,
): Promise<SummaryConfig> {
  const res = await postConfig(g, w.workspaceId, w.workerId, body);
  expect(res.status, await res.clone().text()).toBe(200);
  return expectContract(SummaryConfig, await res.json());
}

/** A worker bound to the tenant through the real bind endpoint (which smoke-tests the key on the bridge). */
export function boundWorker(g: TestGateway, tenant: TestTenant): Promise<BoundWorker> {
  return bindWorker(g, tenant);
}

/** A worker in a workspace of its own, not bound. */
export async function unboundWorker(g: TestGateway): Promise<{ workspaceId: string; workerId: string }> {
  const workspaceId = (await g.db.workspace.create({ data: { name: `ws-${Date.now()}` } })).id;
  const worker = await g.db.worker.create({
    data: {
      workspaceId,
      name: 'Property Manager',
      template: 'property-manager',
      skillPacks: ['property-uk'],
    },
  });
  return { workspaceId, workerId: worker.id };
}
