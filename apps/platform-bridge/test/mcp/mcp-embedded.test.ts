import { scaled } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness } from '../support/mcp-client.ts';
import { makeWritingTenant } from '../support/proposals.ts';
import { listenTestBridge, startTestBridge, type TestBridge } from '../support/test-app.ts';

// `npm start` without a database URL runs on the embedded PGlite: the MCP endpoint's writes (a proposal with its MCP
// channel, the batched audit lines, the knowledge search's index) work there too.

describe('MCP on the embedded database', () => {
  let t: TestBridge;
  let http: { baseUrl: string; close(): Promise<void> };
  const mcp = mcpHarness(() => http.baseUrl);
  beforeAll(async () => {
    t = await startTestBridge({ now: '2026-06-15T09:00:00Z', backend: 'embedded' });
    http = await listenTestBridge(t);
  });
  afterAll(async () => {
    await mcp.closeAll();
    await http?.close();
    await t?.close();
  });

  it('proposes, searches and audits', async () => {
    const tenant = await makeWritingTenant(t);
    const { client } = await mcp.connect(tenant.key);
    const made = await client.callTool({
      name: 'propose_deal',
      arguments: { title: 'Embedded deal', property_id: tenant.property.id },
    });
    expect(made.isError).toBeFalsy();
    const id = (made.structuredContent as { proposal_id: number }).proposal_id;
    const audit = await t.db.auditEntry.findFirstOrThrow({ where: { tenantId: tenant.id, proposalId: id } });
    expect(audit.channel).toBe('mcp');
    const found = await client.callTool({ name: 'search_knowledge', arguments: { q: 'boiler' } });
    expect(found.structuredContent).toEqual({ results: [] });

    const deadline = Date.now() + scaled(10_000);
    let lines = await t.db.mcpToolCall.findMany({ where: { tenantId: tenant.id }, orderBy: { id: 'asc' } });
    while (lines.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      lines = await t.db.mcpToolCall.findMany({ where: { tenantId: tenant.id }, orderBy: { id: 'asc' } });
    }
    expect(lines.map((l) => [l.tool, l.status, l.ids])).toEqual([
      ['propose_deal', 'ok', { property_id: tenant.property.id, proposal_id: id }],
      ['search_knowledge', 'ok', {}],
    ]);
  });
});
