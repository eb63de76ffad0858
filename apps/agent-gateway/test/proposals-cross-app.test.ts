import { ApproveResponse, PortfolioResponse } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoundWorker, bindWorker } from './support/bound-worker.ts';
import { expectContract } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway, type TestAdmin } from './support/platform.ts';
import { parseSse } from './support/sse.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Across both apps, over HTTP only: a chat turn on the gateway proposes a deal through the REAL bridge; a
// workspace admin approves it through the bridge's admin API; the chat's next portfolio answer counts the new
// deal, as the bridge's own GET /portfolio does. And a retried chat turn (the same requestId) proposes once.

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let admin: TestAdmin;
let g: TestGateway;
let worker: BoundWorker;

beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo({ scopes: ['bridge:read', 'bridge:propose'] });
  admin = await platform.createAdmin(demo.tenant.slug, 'reviewer@demo-lettings.example');
  g = await startTestGateway({
    redis: 'none',
    env: {
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      PLATFORM_BRIDGE_WRITES: 'true',
      PLATFORM_BASE_URL: platform.baseUrl,
      CHAT_RATE_LIMIT_PER_MIN: '10000',
    },
  });
  worker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
});
afterAll(async () => {
  await g?.close();
  await platform?.close();
});

/** The bridge's own count of open deals (GET /portfolio with the tenant's key). */
async function bridgeOpenDeals(): Promise<number> {
  const res = await fetch(`${platform.baseUrl}/api/assistant-bridge/portfolio?limit=1`, {
    headers: { authorization: `Bearer ${demo.key}` },
  });
  expect(res.status).toBe(200);
  return expectContract(PortfolioResponse, await res.json()).summary.open_deals;
}

function openDealsIn(reply: string): number {
  const m = /\*\*(\d+) open deals?\*\*/.exec(reply);
  expect(m, reply).not.toBeNull();
  return Number(m![1]);
}

/** One turn over the event stream; its text. */
async function streamTurn(message: string, sessionId: string, requestId: string): Promise<string> {
  const query = new URLSearchParams({ message, sessionId, requestId, workerId: worker.workerId });
  const res = await fetch(`${g.baseUrl}/api/chat/stream?${query}`, {
    headers: { 'X-Workspace-Id': worker.workspaceId },
  });
  expect(res.status).toBe(200);
  return parseSse(await res.text())
    .filter((e) => e.data && e.data !== '[DONE]')
    .map(
      (e) =>
        (JSON.parse(e.data!) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta
          ?.content ?? '',
    )
    .join('');
}

describe('POST /api/chat → bridge proposal → admin approval → the chat counts the deal', () => {
  it('proposes a deal in the chat, an admin approves it, and the next portfolio answer has one more open deal', async () => {
    const sessionId = `cross-${Date.now()}`;
    const before = openDealsIn((await worker.chat('Give me a portfolio overview', { sessionId })).reply);
    expect(before).toBe(await bridgeOpenDeals());

    // the chat proposes: a pending proposal on the bridge, no deal yet
    const proposed = await worker.chat('Propose a deal to acquire 14 Oak Street for £250,000', { sessionId });
    expect(proposed.reply).toContain('awaits review');
    expect(proposed.reply).toContain(`${platform.baseUrl}/settings/review-queue`);
    expect(proposed.reply).not.toMatch(/\bcreated\b/i);
    const id = Number(/Proposal #(\d+)/.exec(proposed.reply)?.[1]);
    const row = await platform.db.proposal.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      tenantId: demo.tenant.id,
      kind: 'deal',
      status: 'pending_review',
      recordId: null,
    });
    expect(await bridgeOpenDeals()).toBe(before);
    expect(openDealsIn((await worker.chat('Give me a portfolio overview', { sessionId })).reply)).toBe(
      before,
    );

    // a workspace admin approves it through the review queue's API
    const approved = await fetch(`${platform.baseUrl}/api/admin/proposals/${id}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'Worth a viewing.' }),
    });
    expect(approved.status, await approved.clone().text()).toBe(200);
    const decision = expectContract(ApproveResponse, await approved.json());
    expect(decision).toMatchObject({ proposal_id: id, status: 'approved', record: { type: 'deal' } });
    expect(await platform.db.deal.findUniqueOrThrow({ where: { id: decision.record.id } })).toMatchObject({
      tenantId: demo.tenant.id,
      title: 'Acquire 14 Oak Street',
      valuePence: 25_000_000,
      status: 'open',
      source: 'proposal',
    });

    // the chat's next answer counts it, as the bridge does
    const after = openDealsIn((await worker.chat('Give me a portfolio overview', { sessionId })).reply);
    expect(after).toBe(before + 1);
    expect(await bridgeOpenDeals()).toBe(before + 1);
    const deals = await worker.chat('Any open deals?', { sessionId });
    expect(deals.reply).toContain('| Acquire 14 Oak Street |');
    const list = await worker.chat('which proposals were approved?', { sessionId });
    expect(list.reply).toContain(`**#${id}** deal: Acquire 14 Oak Street`);
  });

  it('a retried chat turn (the same requestId) replays the reply and proposes once', async () => {
    const sessionId = `retry-${Date.now()}`;
    const message = 'log a £120 + VAT repair at MAN-004 paid to Acme Plumbing';
    const count = () =>
      platform.db.proposal.count({ where: { tenantId: demo.tenant.id, kind: 'financial_log' } });
    const before = await count();
    const first = await streamTurn(message, sessionId, 'req-propose-1');
    const again = await streamTurn(message, sessionId, 'req-propose-1');
    expect(first).toMatch(/Proposal #\d+ submitted for review/);
    expect(again).toBe(first);
    expect(await count()).toBe(before + 1);
  });
});
