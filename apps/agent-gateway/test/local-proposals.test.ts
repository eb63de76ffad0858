import { REVIEW_QUEUE_PAGE } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformBridgeClient } from '../src/clients/bridge/platform-bridge-client.ts';
import { createLocalProvider, localReply } from '../src/features/providers/local/local-provider.ts';
import type { ToolCallRecord, Toolbox } from '../src/features/tools/toolbox.ts';
import { createPlatformToolbox } from '../src/features/tools/platform-tools.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';

// The local provider's "propose …" requests on the demo tenant of the REAL platform-bridge app (its
// clock fixed at 15 June 2026, 10:00 in London), asserting on the proposals in the bridge's own database.

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let writing: Toolbox;
let reading: Toolbox;
let idOf: (ref: string) => number;
const TODAY = '2026-06-15';

beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo({ scopes: ['bridge:read', 'bridge:propose'] });
  const client = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(demo.key);
  writing = createPlatformToolbox(client, {
    writes: true,
    reviewQueueUrl: `${platform.baseUrl}${REVIEW_QUEUE_PAGE}`,
  });
  reading = createPlatformToolbox(client);
  const ids = new Map((await client.getPortfolio({ limit: 500 })).properties.map((p) => [p.ref, p.id]));
  idOf = (ref) => ids.get(ref)!;
});
afterAll(async () => platform?.close());

async function ask(question: string, tools: Toolbox = writing) {
  const calls: ToolCallRecord[] = [];
  const recording: Toolbox = {
    definitions: tools.definitions,
    call: async (name, args, signal) => {
      const record = await tools.call(name, args, signal);
      calls.push(record);
      return record;
    },
  };
  let text = '';
  for await (const chunk of createLocalProvider().stream({
    messages: [{ role: 'user', content: question }],
    tools: recording,
    signal: new AbortController().signal,
  }))
    text += chunk;
  return { text, calls, proposals: calls.filter((c) => c.name.startsWith('platform-propose-')) };
}

const count = () => platform.db.proposal.count({ where: { tenantId: demo.tenant.id } });
const dealCount = () => platform.db.deal.count({ where: { tenantId: demo.tenant.id } });

/** The proposal the reply names, from the bridge's database. */
async function proposalIn(text: string) {
  const id = Number(/Proposal #(\d+) submitted for review/.exec(text)?.[1]);
  expect(id, text).toBeGreaterThan(0);
  return platform.db.proposal.findUniqueOrThrow({ where: { id } });
}

function expectAwaitsReview(text: string) {
  expect(text).toContain('**awaits review**');
  expect(text).toContain(`${platform.baseUrl}/settings/review-queue`);
  expect(text).not.toMatch(/\bcreated\b/i);
}

describe('propose … (writes on)', () => {
  it('"propose a deal to acquire 14 Oak Street for £250,000" → a deal proposal, off the platform', async () => {
    const deals = await dealCount();
    const { text } = await ask('propose a deal to acquire 14 Oak Street for £250,000');
    expectAwaitsReview(text);
    const row = await proposalIn(text);
    expect(row).toMatchObject({ tenantId: demo.tenant.id, kind: 'deal', status: 'pending_review' });
    expect(row.payload).toMatchObject({
      title: 'Acquire 14 Oak Street',
      deal_type: 'acquisition',
      value_pence: 25_000_000,
      property_id: null,
    });
    expect(text).toContain('a property not yet on the platform');
    expect(await dealCount()).toBe(deals);
  });

  it('a disposal of a property on the platform, matched by its street', async () => {
    const { text } = await ask('Please propose a deal to sell 34 Beech Road for £300k');
    expectAwaitsReview(text);
    expect((await proposalIn(text)).payload).toMatchObject({
      title: 'Sell 34 Beech Road',
      deal_type: 'disposal',
      value_pence: 30_000_000,
      property_id: idOf('MAN-002'),
    });
  });

  it('"log a £120 + VAT repair at MAN-004 paid to Acme Plumbing" → a financial log, dated today in London', async () => {
    const { text } = await ask('log a £120 + VAT repair at MAN-004 paid to Acme Plumbing');
    expectAwaitsReview(text);
    const row = await proposalIn(text);
    expect(row).toMatchObject({ kind: 'financial_log', status: 'pending_review' });
    expect(row.payload).toEqual({
      property_id: idOf('MAN-004'),
      date: TODAY,
      direction: 'expense',
      category: 'repair',
      net_pence: 12_000,
      vat_pence: 2_400,
      payee_or_payer: 'Acme Plumbing',
      review_notes: expect.stringContaining('log a £120 + VAT repair'),
    });
    expect(text).toContain('net £120 + VAT £24 = £144');
  });

  it('"the new gas certificate for LON-003 was issued today, ref GS-12345" → a compliance update', async () => {
    const { text } = await ask('the new gas certificate for LON-003 was issued today, ref GS-12345');
    expectAwaitsReview(text);
    const row = await proposalIn(text);
    expect(row).toMatchObject({ kind: 'compliance_update', status: 'pending_review' });
    expect(row.payload).toMatchObject({
      property_id: idOf('LON-003'),
      compliance_type: 'gas_safety',
      issue_date: TODAY,
      reference_number: 'GS-12345',
    });
    // no expiry was said: the bridge fills in the type's cycle (12 months for gas safety)
    expect(row.payload).toMatchObject({ expiry_date: expect.stringMatching(/^2027-06-1\d$/) });
  });

  it('reads more details: £144 including VAT on another day; an EICR with its outcome and contractor', async () => {
    const log = await ask(
      'Record £144 including VAT for the boiler service at MAN-002 on 12 June, invoice INV-2231',
    );
    expect((await proposalIn(log.text)).payload).toMatchObject({
      property_id: idOf('MAN-002'),
      date: '2026-06-12',
      net_pence: 12_000,
      vat_pence: 2_400,
      reference: 'INV-2231',
    });
    const eicr = await ask(
      'The EICR at 16 Clarendon Road was done yesterday by Spark Electrical Ltd, satisfactory',
    );
    expect((await proposalIn(eicr.text)).payload).toMatchObject({
      property_id: idOf('MAN-004'),
      compliance_type: 'eicr',
      issue_date: '2026-06-14',
      outcome: 'satisfactory',
      contractor: { company: 'Spark Electrical Ltd' },
    });
  });

  it('asks for what is missing instead of guessing, and proposes nothing', async () => {
    const before = await count();
    const cases: [string, RegExp][] = [
      ['log a £80 repair paid to Acme Plumbing', /Which property is this expense for\?/],
      ['log a repair at MAN-004 paid to Acme Plumbing', /How much was it\?/],
      ['log a £50 repair at MAN-099', /I can't find MAN-099 in your portfolio/],
      ['propose a deal to sell MAN-099 for £100k', /I can't find MAN-099 in your portfolio/],
      ['propose a disposal for £100k', /Which property is the disposal for\?/],
      ['the gas certificate for LON-003 was renewed', /When was the gas safety certificate .* issued\?/],
      ['the new gas certificate was issued today', /Which property is the gas safety certificate .* for\?/],
    ];
    for (const [question, expected] of cases) {
      const { text, proposals } = await ask(question);
      expect(text, question).toMatch(expected);
      expect(proposals, question).toHaveLength(0);
    }
    expect(await count()).toBe(before);
  });

  it('"what proposals are pending?" lists them: id, kind, what, when, property ref', async () => {
    const { text, calls } = await ask('what proposals are pending?');
    const pending = await platform.db.proposal.findMany({
      where: { tenantId: demo.tenant.id, status: 'pending_review' },
    });
    expect(pending.length).toBeGreaterThan(3);
    expect(text).toContain(`### Proposals pending review: ${pending.length}`);
    for (const p of pending) expect(text).toContain(`**#${p.id}**`);
    expect(text).toMatch(
      /\*\*#\d+\*\* deal: Acquire 14 Oak Street · £250,000 · not yet on the platform — proposed 15 Jun 2026 \(today\)/,
    );
    expect(text).toMatch(/financial log: expense \(repair\) £144 at MAN-004, Acme Plumbing/);
    expect(text).toMatch(
      /compliance update: Gas safety certificate \(CP12\) at LON-003, issued 15 Jun 2026, ref GS-12345/,
    );
    expect(text).toContain('/settings/review-queue');
    expect(calls.map((c) => c.name)).toContain('platform-get-proposals');
  });

  it('another kind of change (delete, update a record) is not made: it says what can be proposed', async () => {
    const { text, calls } = await ask('Delete the deal for 14 Oak Street');
    expect(calls).toHaveLength(0);
    expect(text).toContain('I cannot change or delete anything on the platform myself, and I have not.');
    expect(text).toContain('Propose a deal to acquire 14 Oak Street for £250,000');
  });

  it('keeps answering reads: a question about certificates is not a proposal', async () => {
    const { text, proposals } = await ask('Which gas safety certificates have expired?');
    expect(proposals).toHaveLength(0);
    expect(text).toContain('MAN-004');
  });

  it('help names the propose requests when writes are on, and not otherwise', () => {
    const help = (proposals: boolean) => localReply([{ role: 'user', content: 'help' }], { proposals });
    expect(help(true)).toContain('Propose a deal to acquire 14 Oak Street for £250,000');
    expect(help(true)).toContain('What proposals are pending?');
    expect(help(false)).not.toMatch(/propose/i);
  });
});

describe('without writes', () => {
  it('without the proposal tools it says how to switch them on, and calls nothing', async () => {
    for (const question of [
      'propose a deal to acquire 14 Oak Street for £250,000',
      'log a £120 + VAT repair at MAN-004 paid to Acme Plumbing',
      'the new gas certificate for LON-003 was issued today, ref GS-12345',
    ]) {
      const { text, calls } = await ask(question, reading);
      expect(calls, question).toHaveLength(0);
      expect(text).toContain('I have not created or changed anything');
      expect(text).toContain('`PLATFORM_BRIDGE_WRITES=true`');
      expect(text).toContain('`bridge:propose`');
      expect(text).toContain('`assistant_bridge_writes`');
    }
  });

  it('with the tools but a key without bridge:propose: the refusal in words and how to fix it', async () => {
    const reader = await platform.admin.createKey(demo.tenant.slug, ['bridge:read'], 'read only');
    const tools = createPlatformToolbox(
      createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(reader.key),
      { writes: true },
    );
    const before = await count();
    const { text } = await ask('propose a deal to acquire 14 Oak Street for £250,000', tools);
    expect(text).toContain('**I could not submit the proposal.**');
    expect(text).toContain('bind a key with the bridge:propose scope');
    expect(text).toContain('`PLATFORM_BRIDGE_WRITES=true`');
    expect(text).not.toContain(reader.key);
    expect(await count()).toBe(before);
  });

  it('pending proposals can still be listed without writes (a read)', async () => {
    const { text } = await ask('any proposals waiting for review?', reading);
    expect(text).toMatch(/### Proposals pending review: \d+/);
  });
});
