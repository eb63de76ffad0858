import { AuditResponse, DealsResponse, ProposalCreated, ReviewQueueResponse } from '@pa/contracts';
import { scaled } from '@pa/http-kit/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.ts';
import { expectContract } from '../support/contract.ts';
import { bearer } from '../support/factories.ts';
import { mcpHarness, toolProblem } from '../support/mcp-client.ts';
import { makeWritingTenant } from '../support/proposals.ts';
import { listenTestBridge, startTestBridge, type TestBridge } from '../support/test-app.ts';

// A proposal made through MCP goes where a REST one goes: pending in the review queue until a person decides, its
// audit entry naming MCP as the channel; once approved, the record reads back through MCP. Every tool call leaves an
// audit line, which the operator's CLI lists.

let t: TestBridge;
let http: { baseUrl: string; close(): Promise<void> };
const mcp = mcpHarness(() => http.baseUrl);

beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z' });
  http = await listenTestBridge(t);
});
afterAll(async () => {
  await mcp.closeAll();
  await http?.close();
  await t?.close();
});

async function reviewTenant() {
  const tenant = await makeWritingTenant(t, {
    flags: ['assistant_external_bridge', 'assistant_bridge_writes', 'assistant_bridge_review_queue'],
    label: 'Claude (MCP)',
  });
  const admin = await t.admin.createAdmin(tenant.slug, `admin-${tenant.slug}@example.com`);
  const adminApi = (method: 'get' | 'post', path: string) => {
    const url = `/api/admin${path}`;
    const call = method === 'get' ? request(t.app).get(url) : request(t.app).post(url);
    return call.set(...bearer(admin.key));
  };
  return { ...tenant, adminApi };
}

/** Polls the tenant's MCP audit lines until `done` holds of them, within a deadline. */
async function auditLines(
  tenantId: number,
  done: (lines: Array<{ tool: string; status: string }>) => boolean,
) {
  const deadline = Date.now() + scaled(10_000);
  for (;;) {
    const lines = await t.db.mcpToolCall.findMany({ where: { tenantId }, orderBy: { id: 'asc' } });
    if (done(lines)) return lines;
    if (Date.now() > deadline) throw new Error(`audit lines not there: ${JSON.stringify(lines)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('propose_deal through MCP', () => {
  it('waits in the review queue; approved, the deal reads back through MCP', async () => {
    const tenant = await reviewTenant();
    const { client } = await mcp.connect(tenant.key);
    // listed first, so that the SDK's client checks every answer against its tool's outputSchema
    await client.listTools();
    const result = await client.callTool({
      name: 'propose_deal',
      arguments: {
        title: 'Acquire 14 Elm Road',
        property_id: tenant.property.id,
        deal_type: 'acquisition',
        value_pence: 24_000_000,
        review_notes: 'Seen in the broker’s email.',
      },
    });
    expect(result.isError).toBeFalsy();
    const created = expectContract(ProposalCreated, result.structuredContent);
    expect(created).toMatchObject({ status: 'pending_review', kind: 'deal' });

    const queue = expectContract(ReviewQueueResponse, (await tenant.adminApi('get', '/review-queue')).body);
    expect(queue.items.map((i) => [i.proposal_id, i.status, i.submitted_by])).toEqual([
      [created.proposal_id, 'pending_review', 'Claude (MCP)'],
    ]);
    // nothing exists before a person approves
    expect(await t.db.deal.count({ where: { tenantId: tenant.id } })).toBe(0);

    const approved = await tenant
      .adminApi('post', `/proposals/${created.proposal_id}/approve`)
      .send({ note: 'Fine.' });
    expect(approved.status).toBe(200);
    const deals = expectContract(
      DealsResponse,
      (await client.callTool({ name: 'list_deals', arguments: { status: 'all' } })).structuredContent,
    );
    expect(deals.deals.map((d) => [d.title, d.source, d.property_id])).toEqual([
      ['Acquire 14 Elm Road', 'proposal', tenant.property.id],
    ]);
    const proposal = await client.callTool({ name: 'get_proposal', arguments: { id: created.proposal_id } });
    expect(proposal.structuredContent).toMatchObject({ status: 'approved', record: { type: 'deal' } });

    const trail = expectContract(
      AuditResponse,
      (await tenant.adminApi('get', `/proposals/${created.proposal_id}/audit`)).body,
    );
    expect(trail.entries.map((e) => [e.action, e.actor, e.channel])).toEqual([
      ['submitted', 'Claude (MCP)', 'mcp'],
      ['approved', `admin-${tenant.slug}@example.com`, 'rest'],
    ]);
  });

  it('replays the first answer for the same idempotency_key and refuses it with other arguments', async () => {
    const tenant = await reviewTenant();
    const { client } = await mcp.connect(tenant.key);
    const args = {
      title: 'Let flat 2',
      property_id: tenant.property.id,
      deal_type: 'letting',
      idempotency_key: 'k-1',
    };
    const first = await client.callTool({ name: 'propose_deal', arguments: args });
    const again = await client.callTool({ name: 'propose_deal', arguments: args });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect((again.content as Array<{ text: string }>)[0]!.text).toMatch(/first answer again/);
    expect(await t.db.proposal.count({ where: { tenantId: tenant.id } })).toBe(1);

    const other = await client.callTool({
      name: 'propose_deal',
      arguments: { ...args, title: 'Something else' },
    });
    expect(toolProblem(other)).toMatchObject({ status: 422, code: 'idempotency-key-reused' });
    // without a key, each call is a new proposal (one is generated)
    const { idempotency_key: _k, ...bare } = args;
    await client.callTool({ name: 'propose_deal', arguments: bare });
    await client.callTool({ name: 'propose_deal', arguments: bare });
    expect(await t.db.proposal.count({ where: { tenantId: tenant.id } })).toBe(3);
  });

  it('answers a property of no tenant of the key as the REST route does (422 unknown-property)', async () => {
    const tenant = await reviewTenant();
    const { client } = await mcp.connect(tenant.key);
    const result = await client.callTool({
      name: 'propose_compliance_update',
      arguments: { property_id: 2_000_000_000, compliance_type: 'gas_safety', issue_date: '2026-06-01' },
    });
    expect(toolProblem(result)).toMatchObject({ status: 422, code: 'unknown-property' });
  });
});

describe('withdraw_proposal through MCP', () => {
  it('withdraws a pending proposal, recorded as MCP in its audit trail; a second withdrawal is a conflict', async () => {
    const tenant = await reviewTenant();
    const { client } = await mcp.connect(tenant.key);
    await client.listTools();
    const created = expectContract(
      ProposalCreated,
      (
        await client.callTool({
          name: 'propose_financial_log',
          arguments: {
            property_id: tenant.property.id,
            date: '2026-06-10',
            direction: 'expense',
            category: 'repair',
            net_pence: 12_000,
            vat_pence: 2_400,
            payee_or_payer: 'Boiler repair',
          },
        })
      ).structuredContent,
    );
    const withdrawn = await client.callTool({
      name: 'withdraw_proposal',
      arguments: { id: created.proposal_id },
    });
    expect(withdrawn.structuredContent).toMatchObject({
      proposal_id: created.proposal_id,
      status: 'withdrawn',
    });
    const trail = expectContract(
      AuditResponse,
      (await tenant.adminApi('get', `/proposals/${created.proposal_id}/audit`)).body,
    );
    expect(trail.entries.map((e) => [e.action, e.channel])).toEqual([
      ['submitted', 'mcp'],
      ['withdrawn', 'mcp'],
    ]);
    const again = await client.callTool({
      name: 'withdraw_proposal',
      arguments: { id: created.proposal_id },
    });
    expect(toolProblem(again)).toMatchObject({
      status: 409,
      code: 'proposal-not-pending',
      current_status: 'withdrawn',
    });
  });
});

describe('the audit of tool calls', () => {
  it('leaves one line per call: key, tool, the ids among the arguments, the outcome, the duration', async () => {
    const tenant = await reviewTenant();
    const { client } = await mcp.connect(tenant.key);
    await client.callTool({ name: 'get_property', arguments: { id: tenant.property.id } });
    await client.callTool({ name: 'get_property', arguments: { id: 2_000_000_000 } });
    const made = await client.callTool({
      name: 'propose_deal',
      arguments: { title: 'Audit me', property_id: tenant.property.id },
    });
    const proposalId = (made.structuredContent as { proposal_id: number }).proposal_id;
    await client.callTool({ name: 'get_portfolio', arguments: { limit: 0 } });

    const lines = await auditLines(tenant.id, (l) => l.length >= 4);
    expect(lines.map((l) => [l.apiKeyId, l.tool, l.ids, l.status])).toEqual([
      [tenant.keyId, 'get_property', { id: tenant.property.id }, 'ok'],
      [tenant.keyId, 'get_property', { id: 2_000_000_000 }, 'property-not-found'],
      [tenant.keyId, 'propose_deal', { property_id: tenant.property.id, proposal_id: proposalId }, 'ok'],
      [tenant.keyId, 'get_portfolio', {}, 'validation-failed'],
    ]);
    for (const l of lines) {
      expect(l.durationMs).toBeGreaterThanOrEqual(0);
      expect(l.at).toEqual(t.clock.now());
    }

    // the operator reads them, newest first, with the key's label
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: (s: string) => out.push(s),
      stderr: (s: string) => err.push(s),
      env: { ...process.env, PLATFORM_DATABASE_URL: t.databaseUrl },
    };
    expect(await runCli(['audit', 'mcp', '--tenant', tenant.slug, '--limit', '2', '--json'], io)).toBe(0);
    const listed = JSON.parse(out.join('')) as { calls: Array<Record<string, unknown>> };
    expect(listed.calls.map((c) => [c.tool, c.status, c.key_label])).toEqual([
      ['get_portfolio', 'validation-failed', 'Claude (MCP)'],
      ['propose_deal', 'ok', 'Claude (MCP)'],
    ]);
    out.length = 0;
    expect(await runCli(['audit', 'mcp', '--tenant', tenant.slug], io)).toBe(0);
    expect(out.join('')).toMatch(/TOOL[\s\S]*get_property[\s\S]*id=2000000000[\s\S]*property-not-found/);
    expect(await runCli(['audit', 'mcp', '--tenant', tenant.slug, '--limit', 'x'], io)).toBe(2);
    expect(await runCli(['audit', 'mcp', '--tenant', 'no-such-tenant'], io)).toBe(1);
  });

  it("keeps each tenant's lines to itself", async () => {
    const [a, b] = [await reviewTenant(), await reviewTenant()];
    await (await mcp.connect(a.key)).client.callTool({ name: 'list_proposals', arguments: {} });
    await auditLines(a.id, (l) => l.length === 1);
    expect(await t.db.mcpToolCall.count({ where: { tenantId: b.id } })).toBe(0);
  });
});
