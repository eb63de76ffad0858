import { BindingResponse } from '@pa/contracts';
import { scaled } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeGateway, type Gateway } from '../src/compose/gateway.ts';
import { bindWorker, type BoundWorker } from './support/bound-worker.ts';
import { expectContract, postJson } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway, type TestTenant } from './support/platform.ts';
import { GATEWAY_BACKENDS, startTestGateway, type TestGateway } from './support/test-app.ts';

// A bound worker's key refused by the platform (401: revoked or unknown), recorded on its binding so that the
// Settings tab can say so: by each path that calls the bridge with the worker's key (chat tools, knowledge sync,
// daily summary), written once when it changes and not on ordinary calls, not for a 403, cleared by a call the key
// passes again or by a new bind, and never set on a binding bound again since the key was read. The REAL bridge.

describe.each(GATEWAY_BACKENDS)('a refused platform key on %s', (_name, backend) => {
  let platform: PlatformForGateway;
  let g: TestGateway;
  let gw: Gateway;

  beforeAll(async () => {
    platform = await startPlatformForGateway();
    g = await startTestGateway({
      backend,
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        PLATFORM_BASE_URL: platform.baseUrl,
        RUN_WORKER_IN_PROCESS: 'false', // the tests run the syncs themselves
      },
    });
    gw = composeGateway(g.deps);
  }, scaled(60_000));
  afterAll(async () => {
    await g?.close();
    await platform?.close();
  });

  /** GET /workers/:id/platform, as the Settings tab reads it */
  async function binding(w: BoundWorker): Promise<BindingResponse> {
    const res = await fetch(`${g.baseUrl}/api/assistant/workers/${w.workerId}/platform`, {
      headers: { 'X-Workspace-Id': w.workspaceId },
    });
    expect(res.status).toBe(200);
    return expectContract(BindingResponse, await res.json());
  }

  /** The row's version: PostgreSQL gives an updated row a new xmin, so an unchanged one was not written. */
  async function rowVersion(workerId: string): Promise<string> {
    const rows = await g.db.$queryRaw<{ v: string }[]>`
      SELECT xmin::text AS v FROM platform_bindings WHERE worker_id = ${workerId}::uuid`;
    return rows[0]!.v;
  }

  async function boundWithOwnKey(): Promise<{ tenant: TestTenant; worker: BoundWorker }> {
    const tenant = await platform.createTenant({ writes: true });
    return { tenant, worker: await bindWorker(g, tenant) };
  }

  const portfolioViaSummary = async (workerId: string) => {
    const access = await gw.summaryProcessor.bridgeFor(workerId);
    if ('skipped' in access) throw new Error(`summary skipped: ${access.skipped}`);
    return access.client.getPortfolio({ limit: 1 });
  };

  it('knowledge sync refused → recorded once, said in words without jargon; a new bind clears it', async () => {
    const { tenant, worker } = await boundWithOwnKey();
    expect((await gw.knowledge.syncNow(worker.workerId))?.outcome).toBe('synced');
    expect((await binding(worker)).keyRefusedAt).toBeNull();
    const accepted = await rowVersion(worker.workerId);
    // ordinary calls with an accepted key write nothing
    await gw.knowledge.syncNow(worker.workerId);
    await portfolioViaSummary(worker.workerId);
    expect(await rowVersion(worker.workerId)).toBe(accepted);

    await platform.admin.revokeKey(tenant.keyId);
    const outcome = await gw.knowledge.syncNow(worker.workerId);
    expect(outcome).toMatchObject({ outcome: 'failed' });
    const error = (outcome as { error: string }).error;
    expect(error).toMatch(/no longer accepts Porter’s key/);
    expect(error).not.toMatch(/worker|bind|bridge|tenant|scope/i);
    const refused = (await binding(worker)).keyRefusedAt;
    expect(refused).not.toBeNull();
    expect(Date.now() - Date.parse(refused!)).toBeLessThan(scaled(60_000));

    // refused again, by another path: nothing more is written, and the first time stays
    const marked = await rowVersion(worker.workerId);
    await expect(portfolioViaSummary(worker.workerId)).rejects.toMatchObject({ kind: 'unauthorized' });
    expect((await gw.knowledge.syncNow(worker.workerId))?.outcome).toBe('failed');
    expect(await rowVersion(worker.workerId)).toBe(marked);
    expect((await binding(worker)).keyRefusedAt).toBe(refused);

    // a new key, bound: the mark is gone
    const fresh = await platform.admin.createKey(tenant.slug, ['bridge:read'], 'the new one');
    const rebound = await postJson(
      g.baseUrl,
      `/api/assistant/workers/${worker.workerId}/platform/bind`,
      { tenantSlug: tenant.slug, apiKey: fresh.key },
      { 'X-Workspace-Id': worker.workspaceId },
    );
    expect(rebound.status).toBe(200);
    expect((await binding(worker)).keyRefusedAt).toBeNull();
    expect((await gw.knowledge.syncNow(worker.workerId))?.outcome).toBe('synced');
    expect((await binding(worker)).keyRefusedAt).toBeNull();
  });

  it('a chat turn whose tool call is refused → recorded', async () => {
    const { tenant, worker } = await boundWithOwnKey();
    await platform.admin.revokeKey(tenant.keyId);
    const reply = await worker.chat('give me a portfolio overview', { provider: 'local' });
    expect(reply.reply).toMatch(/refused the API key/);
    expect((await binding(worker)).keyRefusedAt).not.toBeNull();
  });

  it('the daily summary’s read refused → recorded', async () => {
    const { tenant, worker } = await boundWithOwnKey();
    await platform.admin.revokeKey(tenant.keyId);
    await expect(portfolioViaSummary(worker.workerId)).rejects.toMatchObject({ status: 401 });
    expect((await binding(worker)).keyRefusedAt).not.toBeNull();
  });

  it('a 403 (the key lacks a scope) is not a refused key', async () => {
    const { worker } = await boundWithOwnKey();
    const before = await rowVersion(worker.workerId);
    const credentials = (await gw.binding.credentials(worker.workerId))!;
    const client = credentials.watch(g.deps.platform.forKey(credentials.apiKey));
    await expect(
      client.proposeFinancialLog(
        { property_id: 1, date: '2026-06-15', direction: 'expense', category: 'repair', net_pence: 100 },
        { idempotencyKey: 'refusal-403-test' },
      ),
    ).rejects.toMatchObject({ kind: 'forbidden', code: 'insufficient-scope' });
    expect((await binding(worker)).keyRefusedAt).toBeNull();
    expect(await rowVersion(worker.workerId)).toBe(before);
  });

  it('a call the key passes again clears the mark', async () => {
    const { worker } = await boundWithOwnKey();
    // as after a refusal that the platform has since taken back (a key restored by its operator)
    await g.db.platformBinding.update({
      where: { workerId: worker.workerId },
      data: { keyRefusedAt: new Date() },
    });
    expect((await binding(worker)).keyRefusedAt).not.toBeNull();
    await portfolioViaSummary(worker.workerId);
    expect((await binding(worker)).keyRefusedAt).toBeNull();
  });

  it('a refusal of the old key after a new bind leaves the new binding unmarked', async () => {
    const { tenant, worker } = await boundWithOwnKey();
    const old = (await gw.binding.credentials(worker.workerId))!;
    const fresh = await platform.admin.createKey(tenant.slug, ['bridge:read'], 'the new one');
    const rebound = await postJson(
      g.baseUrl,
      `/api/assistant/workers/${worker.workerId}/platform/bind`,
      { tenantSlug: tenant.slug, apiKey: fresh.key },
      { 'X-Workspace-Id': worker.workspaceId },
    );
    expect(rebound.status).toBe(200);
    await platform.admin.revokeKey(tenant.keyId);
    // a call that read the old key before the rebind, answered after it
    await expect(
      old.watch(g.deps.platform.forKey(old.apiKey)).getPortfolio({ limit: 1 }),
    ).rejects.toMatchObject({ status: 401 });
    expect((await binding(worker)).keyRefusedAt).toBeNull();
  });
});
