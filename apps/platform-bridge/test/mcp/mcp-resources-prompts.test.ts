import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeProperty, makeTenant } from '../support/factories.ts';
import { mcpHarness } from '../support/mcp-client.ts';
import { listenTestBridge, startTestBridge, type TestBridge } from '../support/test-app.ts';

// The tenant's properties as MCP resources (property://{id}, listed page by page with the bridge's cursor) and the
// two prompts, through the SDK's own client.

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

const WRITES = ['assistant_external_bridge', 'assistant_bridge_writes'];

describe('resources', () => {
  it('offers the property template, and lists the tenant’s properties 100 to a page with the bridge’s cursor', async () => {
    const tenant = await makeTenant(t);
    await t.db.property.createMany({
      data: Array.from({ length: 101 }, (_, i) => ({
        tenantId: tenant.id,
        ref: `RES-${String(i).padStart(3, '0')}-${tenant.slug}`,
        line1: `${i + 1} Resource Road`,
        town: 'Leeds',
        postcode: 'LS1 1AA',
        propertyType: 'flat',
        bedrooms: 1,
        bathrooms: 1,
        tenure: 'leasehold',
        furnishing: 'unfurnished',
        localAuthority: 'Leeds City Council',
        lettingStatus: 'let',
        managementType: 'managed',
        unitsTotal: 1,
        unitsOccupied: 1,
      })),
    });
    const { client } = await mcp.connect(tenant.key);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((r) => [r.uriTemplate, r.mimeType])).toEqual([
      ['property://{id}', 'application/json'],
    ]);
    const first = await client.listResources();
    expect(first.resources).toHaveLength(100);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(first.resources[0]).toMatchObject({
      uri: expect.stringMatching(/^property:\/\/\d+$/) as string,
      name: `RES-000-${tenant.slug}`,
      title: `RES-000-${tenant.slug}: 1 Resource Road, Leeds LS1 1AA`,
      mimeType: 'application/json',
    });
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.resources.map((r) => r.name)).toEqual([`RES-100-${tenant.slug}`]);
    expect(second.nextCursor).toBeUndefined();
    const bad = await client.listResources({ cursor: 'not-ours!' }).catch((e: unknown) => e);
    expect((bad as McpError).code).toBe(-32602);
  });

  it('reads a property with its compliance, as the two REST reads answer them', async () => {
    const tenant = await makeTenant(t);
    const property = await makeProperty(t, tenant.id);
    const { client } = await mcp.connect(tenant.key);
    const read = await client.readResource({ uri: `property://${property.id}` });
    expect(read.contents).toHaveLength(1);
    const content = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect([content.uri, content.mimeType]).toEqual([`property://${property.id}`, 'application/json']);
    const rest = async (path: string) =>
      (
        await request(t.app)
          .get(`/api/assistant-bridge/properties/${property.id}${path}`)
          .set(...bearer(tenant.key))
      ).body as unknown;
    expect(JSON.parse(content.text)).toEqual({
      property: await rest(''),
      compliance: await rest('/compliance'),
    });
  });

  it("answers another tenant's property as not found (-32002) and a URI that is not a property's as invalid", async () => {
    const [tenant, other] = [await makeTenant(t), await makeTenant(t)];
    const theirs = await makeProperty(t, other.id);
    const { client } = await mcp.connect(tenant.key);
    const missing = await client.readResource({ uri: `property://${theirs.id}` }).catch((e: unknown) => e);
    expect((missing as McpError).code).toBe(-32002);
    const invalid = await client.readResource({ uri: 'file:///etc/passwd' }).catch((e: unknown) => e);
    expect((invalid as McpError).code).toBe(-32602);
  });

  it('lists nothing to a key without bridge:read', async () => {
    const tenant = await makeTenant(t, { flags: WRITES, scopes: ['bridge:propose'] });
    await makeProperty(t, tenant.id);
    const { client } = await mcp.connect(tenant.key);
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
  });
});

describe('prompts', () => {
  it('lists the weekly compliance review and the owner’s monthly update', async () => {
    const tenant = await makeTenant(t);
    const { client } = await mcp.connect(tenant.key);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => [p.name, p.arguments?.map((a) => [a.name, a.required]) ?? []])).toEqual([
      ['weekly_compliance_review', []],
      ['owner_monthly_update', [['property', true]]],
    ]);
  });

  it('tells the assistant which tools to call for the weekly review, proposing only when the key may', async () => {
    const reader = await makeTenant(t);
    const proposer = await makeTenant(t, { flags: WRITES, scopes: ['bridge:read', 'bridge:propose'] });
    const readOnly = await (
      await mcp.connect(reader.key)
    ).client.getPrompt({ name: 'weekly_compliance_review' });
    const text = (m: typeof readOnly) => (m.messages[0]!.content as { text: string }).text;
    expect(readOnly.messages[0]!.role).toBe('user');
    expect(text(readOnly)).toContain('`list_portfolio_compliance`');
    expect(text(readOnly)).toContain('`list_tenant_copies`');
    expect(text(readOnly)).toContain('read-only');
    const writing = await (
      await mcp.connect(proposer.key)
    ).client.getPrompt({ name: 'weekly_compliance_review' });
    expect(text(writing)).toContain(
      '`propose_compliance_update`: nothing changes until a person approves it',
    );
  });

  it('drafts the owner’s update for a property named by its reference (any case) or its id', async () => {
    const tenant = await makeTenant(t);
    const property = await makeProperty(t, tenant.id);
    const { client } = await mcp.connect(tenant.key);
    for (const named of [property.ref.toLowerCase(), String(property.id)]) {
      const prompt = await client.getPrompt({ name: 'owner_monthly_update', arguments: { property: named } });
      const text = (prompt.messages[0]!.content as { text: string }).text;
      expect(text).toContain(
        `owner of ${property.ref} (${property.line1}, ${property.town} ${property.postcode}; property id ${property.id})`,
      );
      expect(text).toContain(`\`get_property\` with id ${property.id}`);
      expect(text).toContain('`search_knowledge`');
    }
    const other = await makeTenant(t);
    const theirs = await makeProperty(t, other.id);
    const err = await client
      .getPrompt({ name: 'owner_monthly_update', arguments: { property: theirs.ref } })
      .catch((e: unknown) => e);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain(`There is no property ${theirs.ref}`);
  });
});
