import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { bridgeRoutes, type Route } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/demo-seed.ts';
import { TOOL_ROUTES, toolNameOf } from '../../src/features/mcp/mcp-tool-table.ts';
import { bearer, makeProperty, makeTenant, uniqueSlug } from '../support/factories.ts';
import { mcpHarness, toolProblem } from '../support/mcp-client.ts';
import { listenTestBridge, startTestBridge, type TestBridge } from '../support/test-app.ts';

// The MCP tools as the SDK's own client sees them over real HTTP: which tools a key sees, what their definitions
// say, that every read answers exactly the REST route's answer for the same key, and how bad calls are refused.

const READS = [
  'get_portfolio',
  'get_property',
  'get_property_compliance',
  'list_portfolio_compliance',
  'list_tenant_copies',
  'list_deals',
  'list_email_activity',
  'search_knowledge',
  'list_proposals',
  'get_proposal',
];
const PROPOSALS = ['propose_deal', 'propose_compliance_update', 'propose_financial_log', 'withdraw_proposal'];

let t: TestBridge;
let http: { baseUrl: string; close(): Promise<void> };
const mcp = mcpHarness(() => http.baseUrl);
let demo: { slug: string; readKey: string; proposeKey: string; propertyId: number; proposalId: number };

beforeAll(async () => {
  t = await startTestBridge({ now: '2026-06-15T09:00:00Z' });
  http = await listenTestBridge(t);
  const seeded = await seedDemo({ db: t.db, clock: t.clock }, { tenantSlug: uniqueSlug('mcp') });
  const slug = seeded.tenant.slug;
  const property = await t.db.property.findFirstOrThrow({
    where: { tenantId: seeded.tenant.id },
    orderBy: { id: 'asc' },
  });
  const proposal = await t.db.proposal.findFirstOrThrow({ where: { tenantId: seeded.tenant.id } });
  demo = {
    slug,
    readKey: (await t.admin.createKey(slug, ['bridge:read'], 'reader')).key,
    proposeKey: (await t.admin.createKey(slug, ['bridge:read', 'bridge:propose'], 'assistant')).key,
    propertyId: property.id,
    proposalId: proposal.id,
  };
});
afterAll(async () => {
  await mcp.closeAll();
  await http?.close();
  await t?.close();
});

describe('tools/list', () => {
  it('shows a read-only key the reads only, and a key that may propose the proposal tools too', async () => {
    const reader = await mcp.connect(demo.readKey);
    expect((await reader.client.listTools()).tools.map((x) => x.name).sort()).toEqual([...READS].sort());
    const proposer = await mcp.connect(demo.proposeKey);
    expect((await proposer.client.listTools()).tools.map((x) => x.name).sort()).toEqual(
      [...READS, ...PROPOSALS].sort(),
    );
  });

  it('hides the proposal tools from a tenant whose writes are off, whatever the key may do', async () => {
    const tenant = await makeTenant(t, { scopes: ['bridge:read', 'bridge:propose'] });
    const { client } = await mcp.connect(tenant.key);
    expect((await client.listTools()).tools.map((x) => x.name).sort()).toEqual([...READS].sort());
  });

  it('derives every tool from its route: name, title, annotations, input and output schemas', async () => {
    const { client } = await mcp.connect(demo.proposeKey);
    const tools = new Map((await client.listTools()).tools.map((x) => [x.name, x]));
    for (const [routeName, access] of Object.entries(TOOL_ROUTES)) {
      const route = bridgeRoutes[routeName as keyof typeof TOOL_ROUTES] as Route;
      const tool = tools.get(toolNameOf(route.operationId))!;
      expect(tool.title).toBe(route.summary);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toEqual(
        access.writes
          ? {
              title: route.summary,
              readOnlyHint: false,
              destructiveHint: false,
              idempotentHint: true,
              openWorldHint: false,
            }
          : { title: route.summary, readOnlyHint: true, openWorldHint: false },
      );
    }
    const property = tools.get('get_property')!;
    expect(property.inputSchema.required).toEqual(['id']);
    expect(property.inputSchema.properties?.id).toMatchObject({ type: 'integer', exclusiveMinimum: 0 });
    // the query in its typed form: the compliance read's statuses are an array, not a comma list
    expect(tools.get('list_portfolio_compliance')!.inputSchema.properties?.status).toMatchObject({
      type: 'array',
    });
    const deal = tools.get('propose_deal')!;
    expect(deal.inputSchema.required).toEqual(['title', 'property_id']);
    expect(Object.keys(deal.inputSchema.properties ?? {})).toContain('idempotency_key');
    expect(deal.description).toMatch(
      /^Nothing changes on the platform until a person approves this proposal in the review queue/,
    );
    expect(tools.get('withdraw_proposal')!.description).toMatch(/changes no platform record/);
    expect(tools.get('get_portfolio')!.description).not.toMatch(/ETag/);
  });
});

describe('tools/call: every read answers what its REST route answers for the same key', () => {
  const cases: Array<[string, () => Record<string, unknown>, () => string]> = [
    ['get_portfolio', () => ({ limit: 5 }), () => '/portfolio?limit=5'],
    ['get_property', () => ({ id: demo.propertyId }), () => `/properties/${demo.propertyId}`],
    [
      'get_property_compliance',
      () => ({ id: demo.propertyId }),
      () => `/properties/${demo.propertyId}/compliance`,
    ],
    [
      'list_portfolio_compliance',
      () => ({ status: ['expired', 'missing'], limit: 3 }),
      () => '/portfolio/compliance?status=expired,missing&limit=3',
    ],
    [
      'list_tenant_copies',
      () => ({ status: ['due', 'overdue'] }),
      () => '/compliance/tenant-copies?status=due,overdue',
    ],
    ['list_deals', () => ({ status: 'all', limit: 4 }), () => '/deals?status=all&limit=4'],
    ['list_email_activity', () => ({ hours: 720 }), () => '/email-activity?hours=720'],
    ['search_knowledge', () => ({ q: 'boiler' }), () => '/knowledge/search?q=boiler'],
    ['list_proposals', () => ({ status: 'all' }), () => '/proposals?status=all'],
    ['get_proposal', () => ({ id: demo.proposalId }), () => `/proposals/${demo.proposalId}`],
  ];

  it.each(cases)('%s', async (name, args, path) => {
    const { client } = await mcp.connect(demo.readKey);
    // listed first, so that the SDK's client checks structuredContent against the tool's outputSchema
    await client.listTools();
    const result = await client.callTool({ name, arguments: args() });
    expect(result.isError).toBeFalsy();
    const rest = await request(t.app)
      .get(`/api/assistant-bridge${path()}`)
      .set(...bearer(demo.readKey));
    expect(rest.status).toBe(200);
    // the clock stands still, so even `as_of` is the same
    expect(result.structuredContent).toEqual(rest.body);
    const text = (result.content as Array<{ type: string; text: string }>)[0]!;
    expect(text.type).toBe('text');
    expect(text.text.length).toBeLessThan(4200);
  });

  it('has a case for every read tool', () => {
    expect(cases.map(([name]) => name).sort()).toEqual([...READS].sort());
  });

  it('renders a short text that names the items of a list', async () => {
    const { client } = await mcp.connect(demo.readKey);
    const result = await client.callTool({ name: 'get_portfolio', arguments: { limit: 2 } });
    const answer = result.structuredContent as { properties: Array<{ ref: string }> };
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toMatch(/^Portfolio summary and one page of properties\n/);
    for (const p of answer.properties) expect(text).toContain(`ref=${p.ref}`);
  });
});

describe('tools/call: bad calls', () => {
  it('answers an unknown tool with the protocol error -32602 (invalid params), as the SDK does', async () => {
    const { client } = await mcp.connect(demo.readKey);
    const err = await client.callTool({ name: 'drop_tables' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toMatch(/Unknown tool: drop_tables/);
  });

  it("answers bad arguments with a tool error carrying the contract's validation problem", async () => {
    const { client } = await mcp.connect(demo.readKey);
    const result = await client.callTool({
      name: 'get_portfolio',
      arguments: { limit: 0, cursor: '!', extra: 1 },
    });
    const problem = toolProblem(result);
    expect(problem).toMatchObject({
      type: '/problems/validation-failed',
      title: 'Validation failed',
      status: 400,
      code: 'validation-failed',
    });
    expect((problem.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort()).toEqual([
      '#/cursor',
      '#/extra',
      '#/limit',
    ]);
    expect(result.structuredContent).toBeUndefined();
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(
      /^Validation failed \(validation-failed\)/,
    );
    // a type the JSON schema refuses is refused too (not coerced from the string)
    const typed = await client.callTool({ name: 'get_portfolio', arguments: { limit: '5' } });
    expect(toolProblem(typed).code).toBe('validation-failed');
    const missing = await client.callTool({ name: 'get_property', arguments: {} });
    expect(toolProblem(missing).errors).toEqual([{ pointer: '#/id', detail: expect.any(String) as string }]);
  });

  it("answers another tenant's property as not found, as the REST read does", async () => {
    const other = await makeTenant(t);
    const theirs = await makeProperty(t, other.id);
    const { client } = await mcp.connect(demo.readKey);
    for (const name of ['get_property', 'get_property_compliance']) {
      const problem = toolProblem(await client.callTool({ name, arguments: { id: theirs.id } }));
      expect(problem).toMatchObject({ status: 404, code: 'property-not-found' });
    }
  });

  it('refuses a proposal tool to a key without bridge:propose, naming the scope, and to a tenant without writes', async () => {
    const { client } = await mcp.connect(demo.readKey);
    const problem = toolProblem(
      await client.callTool({ name: 'propose_deal', arguments: { title: 'x', property_id: null } }),
    );
    expect(problem).toMatchObject({ status: 403, code: 'insufficient-scope' });
    expect(problem.detail).toMatch(/`bridge:propose`/);

    const noWrites = await makeTenant(t, { scopes: ['bridge:read', 'bridge:propose'] });
    const other = await mcp.connect(noWrites.key);
    expect(
      toolProblem(await other.client.callTool({ name: 'withdraw_proposal', arguments: { id: 1 } })),
    ).toMatchObject({ status: 404, code: 'writes-not-enabled' });
  });
});
