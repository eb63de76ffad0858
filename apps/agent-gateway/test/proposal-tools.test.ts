import { REVIEW_QUEUE_PAGE } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformBridgeClient } from '../src/clients/bridge/platform-bridge-client.ts';
import type { Toolbox } from '../src/features/tools/toolbox.ts';
import { createPlatformToolbox, PLATFORM_TOOL_NAMES } from '../src/features/tools/platform-tools.ts';
import { bindWorker } from './support/bound-worker.ts';
import { type FakeAnthropic, startFakeAnthropic } from './support/fake-anthropic.ts';
import { type FakeOpenAI, startFakeOpenAI } from './support/fake-openai.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// The proposal tools against the REAL platform-bridge app: which tools a worker has with and without
// PLATFORM_BRIDGE_WRITES, what a proposal returns and leaves in the bridge's database (a pending proposal, no
// record), the bridge's refusals in words, and an OpenAI-compatible model calling platform-propose-deal through
// the gateway's chat.

const PROPOSE = [
  'platform-propose-deal',
  'platform-propose-compliance-update',
  'platform-propose-financial-log',
];
const READS = [
  'platform-get-portfolio',
  'platform-get-property',
  'platform-get-compliance',
  'platform-get-tenant-copies',
  'platform-get-deals',
  'platform-get-email-activity',
  'platform-get-proposals',
];
// a bound worker of the gateway also searches its synced knowledge corpus (issue 35)
const CHAT_READS = [...READS, 'platform-search-knowledge'];
const signal = new AbortController().signal;

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let tools: Toolbox;
let idOf: (ref: string) => number;

beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo({ scopes: ['bridge:read', 'bridge:propose'] });
  const client = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(demo.key);
  tools = createPlatformToolbox(client, {
    writes: true,
    reviewQueueUrl: `${platform.baseUrl}${REVIEW_QUEUE_PAGE}`,
  });
  const ids = new Map((await client.getPortfolio({ limit: 500 })).properties.map((p) => [p.ref, p.id]));
  idOf = (ref) => ids.get(ref)!;
});
afterAll(async () => platform?.close());

const deals = () => platform.db.deal.count({ where: { tenantId: demo.tenant.id } });

describe('definitions', () => {
  it('without writes: the read tools and platform-get-proposals, no proposal tools', () => {
    const readOnly = createPlatformToolbox(
      createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(demo.key),
    );
    expect(readOnly.definitions.map((d) => d.name)).toEqual(READS);
  });

  it('with writes: the three proposal tools too, their arguments the bridge’s own bodies', () => {
    expect(tools.definitions.map((d) => d.name)).toEqual([...READS, ...PROPOSE]);
    const deal = tools.definitions.find((d) => d.name === PLATFORM_TOOL_NAMES.proposeDeal)!;
    expect(deal.parameters).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['title', 'property_id'],
      properties: {
        property_id: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        deal_type: { enum: ['acquisition', 'disposal', 'letting', 'management_instruction', 'refinance'] },
      },
    });
    const log = tools.definitions.find((d) => d.name === PLATFORM_TOOL_NAMES.proposeFinancialLog)!;
    expect(log.parameters).toMatchObject({
      required: ['property_id', 'date', 'direction', 'category', 'net_pence'],
    });
    for (const name of PROPOSE) {
      const d = tools.definitions.find((x) => x.name === name)!;
      expect(d.description).toMatch(/creates NOTHING/);
      expect(d.description).toMatch(/review queue/);
      expect(d.description).toMatch(/never say a record was created/);
    }
  });
});

describe('platform-propose-*', () => {
  it('platform-propose-deal: a pending proposal with its id and the review queue, and no deal', async () => {
    const before = await deals();
    const record = await tools.call(
      'platform-propose-deal',
      { title: 'Acquire 14 Oak Street', property_id: null, value_pence: 25_000_000 },
      signal,
    );
    expect(record, record.result).toMatchObject({ ok: true });
    const result = JSON.parse(record.result) as Record<string, unknown>;
    expect(result).toMatchObject({
      proposal_id: expect.any(Number),
      status: 'pending_review',
      kind: 'deal',
      review_queue_url: `${platform.baseUrl}/settings/review-queue`,
      note: expect.stringMatching(/pending review; nothing has been changed on the platform/),
    });
    const row = await platform.db.proposal.findUniqueOrThrow({ where: { id: result.proposal_id as number } });
    expect(row).toMatchObject({ tenantId: demo.tenant.id, status: 'pending_review', kind: 'deal' });
    expect(row.payload).toMatchObject({ title: 'Acquire 14 Oak Street', deal_type: 'acquisition' });
    expect(await deals()).toBe(before);
    expect(JSON.stringify(record)).not.toContain(demo.key);
  });

  it('platform-propose-compliance-update and platform-propose-financial-log submit their kinds', async () => {
    const cert = await tools.call(
      'platform-propose-compliance-update',
      { property_id: idOf('LON-003'), compliance_type: 'gas_safety', issue_date: '2026-06-15' },
      signal,
    );
    const log = await tools.call(
      'platform-propose-financial-log',
      {
        property_id: idOf('MAN-004'),
        date: '2026-06-15',
        direction: 'expense',
        category: 'repair',
        net_pence: 12_000,
        vat_pence: 2_400,
      },
      signal,
    );
    for (const [record, kind] of [
      [cert, 'compliance_update'],
      [log, 'financial_log'],
    ] as const) {
      expect(record, record.result).toMatchObject({ ok: true });
      const id = (JSON.parse(record.result) as { proposal_id: number }).proposal_id;
      expect(await platform.db.proposal.findUniqueOrThrow({ where: { id } })).toMatchObject({
        kind,
        status: 'pending_review',
      });
    }
  });

  it('arguments that break the body are refused before the bridge is called', async () => {
    const count = await platform.db.proposal.count({ where: { tenantId: demo.tenant.id } });
    for (const args of [
      { title: '', property_id: null },
      { title: 'x', property_id: 'MAN-004' },
      { title: 'x', property_id: null, value_pence: -5 },
      { title: 'x', property_id: null, surprise: true },
    ]) {
      const record = await tools.call('platform-propose-deal', args, signal);
      expect(record.ok).toBe(false);
      expect(record.result).toMatch(/^Invalid arguments for platform-propose-deal/);
    }
    expect(await platform.db.proposal.count({ where: { tenantId: demo.tenant.id } })).toBe(count);
  });

  it('a key without bridge:propose → ok:false: bind a key with the bridge:propose scope', async () => {
    const reader = await platform.admin.createKey(demo.tenant.slug, ['bridge:read'], 'reader');
    const readOnlyKey = createPlatformToolbox(
      createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(reader.key),
      { writes: true },
    );
    const record = await readOnlyKey.call('platform-propose-deal', { title: 'x', property_id: null }, signal);
    expect(record.ok).toBe(false);
    expect(record.result).toContain(
      'the key this worker is bound with cannot propose: bind a key with the bridge:propose scope',
    );
    expect(record.result).not.toContain(reader.key);
  });

  it('writes off at the tenant → ok:false naming the assistant_bridge_writes flag', async () => {
    const off = await platform.createTenant({ scopes: ['bridge:read', 'bridge:propose'] });
    const toolbox = createPlatformToolbox(
      createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(off.key),
      { writes: true },
    );
    const record = await toolbox.call('platform-propose-deal', { title: 'x', property_id: null }, signal);
    expect(record.ok).toBe(false);
    expect(record.result).toMatch(/proposals are switched off for this tenant.*assistant_bridge_writes/);
  });

  it('a proposal tool the toolbox was not given (writes off) is unknown', async () => {
    const readOnly = createPlatformToolbox(
      createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(demo.key),
    );
    const record = await readOnly.call('platform-propose-deal', { title: 'x', property_id: null }, signal);
    expect(record).toMatchObject({ ok: false, result: 'No tool named platform-propose-deal.' });
  });
});

describe('platform-get-proposals', () => {
  it('lists the tenant’s proposals by status, with the review queue', async () => {
    const record = await tools.call('platform-get-proposals', { status: 'pending_review' }, signal);
    expect(record, record.result).toMatchObject({ ok: true });
    const body = JSON.parse(record.result) as {
      proposals: { status: string; kind: string }[];
      review_queue_url: string;
    };
    expect(body.proposals.length).toBeGreaterThan(0);
    expect(body.proposals.every((p) => p.status === 'pending_review')).toBe(true);
    expect(body.review_queue_url).toMatch(/\/settings\/review-queue$/);
    const pending = await platform.db.proposal.count({
      where: { tenantId: demo.tenant.id, status: 'pending_review' },
    });
    expect(body.proposals).toHaveLength(pending);
  });
});

describe('an OpenAI-compatible model proposing through the chat', () => {
  let fake: FakeOpenAI;
  let g: TestGateway;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    g = await startTestGateway({
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        PLATFORM_BRIDGE_WRITES: 'true',
        PLATFORM_BASE_URL: platform.baseUrl,
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: 'sk-test',
        PROVIDER: 'openai',
        CHAT_RATE_LIMIT_PER_MIN: '10000',
      },
    });
  });
  afterAll(async () => {
    await g?.close();
    await fake?.close();
  });

  it('POST /api/chat: the model calls platform-propose-deal; the bridge holds a pending proposal, no deal', async () => {
    const worker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
    const before = await deals();
    fake.reset();
    fake.script(
      {
        toolCalls: [
          {
            name: 'platform-propose-deal',
            arguments: { title: 'Acquire 3 Mill Lane', property_id: null, value_pence: 18_500_000 },
          },
        ],
      },
      (req) => {
        const tool = req.body.messages.find((m) => m.role === 'tool');
        const id = (JSON.parse(String(tool?.content)) as { proposal_id: number }).proposal_id;
        return { chunks: [`Proposal #${id} `, 'awaits review.'] };
      },
    );
    const answer = await worker.chat('Propose buying 3 Mill Lane for £185k');
    const id = Number(/#(\d+)/.exec(answer.reply)?.[1]);
    expect(answer.reply).toBe(`Proposal #${id} awaits review.`);

    const row = await platform.db.proposal.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ tenantId: demo.tenant.id, kind: 'deal', status: 'pending_review' });
    expect(row.payload).toMatchObject({ title: 'Acquire 3 Mill Lane', value_pence: 18_500_000 });
    expect(await deals()).toBe(before);

    // what the model was given: the proposal tools, the rule about records, and the tool's answer
    const first = fake.requests[0]!.body;
    expect(first.tools?.map((t) => t.function.name)).toEqual([...CHAT_READS, ...PROPOSE]);
    expect(String(first.messages[0]!.content)).toMatch(/Never claim that a record .* was created/);
    const toolMessage = fake.requests[1]!.body.messages.find((m) => m.role === 'tool')!;
    expect(String(toolMessage.content)).toContain('"status":"pending_review"');
    expect(String(toolMessage.content)).toContain('/settings/review-queue');
    for (const r of fake.requests) expect(JSON.stringify(r.body)).not.toContain(demo.key);

    // the turn's tool call is stored with it
    const turn = await g.db.turn.findFirstOrThrow({ where: { role: 'assistant' }, orderBy: { seq: 'desc' } });
    expect(turn.toolCalls).toEqual([expect.objectContaining({ name: 'platform-propose-deal', ok: true })]);
  });
});

describe('an Anthropic model proposing through the chat', () => {
  let fake: FakeAnthropic;
  let g: TestGateway;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    g = await startTestGateway({
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        PLATFORM_BRIDGE_WRITES: 'true',
        PLATFORM_BASE_URL: platform.baseUrl,
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        PROVIDER: 'anthropic',
        CHAT_RATE_LIMIT_PER_MIN: '10000',
      },
    });
  });
  afterAll(async () => {
    await g?.close();
    await fake?.close();
  });

  it('POST /api/chat: the model calls platform-propose-financial-log; the bridge holds it, pending', async () => {
    const worker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
    fake.reset();
    fake.script(
      {
        toolCalls: [
          {
            name: 'platform-propose-financial-log',
            arguments: {
              property_id: idOf('BRS-001'),
              date: '2026-06-15',
              direction: 'expense',
              category: 'insurance',
              net_pence: 31_000,
            },
          },
        ],
      },
      { chunks: ['It awaits review.'] },
    );
    const answer = await worker.chat('Log the £310 insurance premium for BRS-001');
    expect(answer.reply).toBe('It awaits review.');
    const row = await platform.db.proposal.findFirstOrThrow({
      where: { tenantId: demo.tenant.id, kind: 'financial_log' },
      orderBy: { id: 'desc' },
    });
    expect(row).toMatchObject({ status: 'pending_review', propertyId: idOf('BRS-001') });
    expect(row.payload).toMatchObject({ category: 'insurance', net_pence: 31_000, vat_pence: 0 });
    const first = fake.requests[0]!.body;
    expect(first.tools?.map((t) => t.name)).toEqual([...CHAT_READS, ...PROPOSE]);
    expect(JSON.stringify(first.system)).toMatch(/Never claim that a record/);
    const results = JSON.stringify(fake.requests[1]!.body.messages.at(-1));
    expect(results).toContain('tool_result');
    expect(results).toContain(`\\"proposal_id\\":${row.id}`);
  });
});
