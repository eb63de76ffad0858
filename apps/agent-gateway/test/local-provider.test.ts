import type { ComplianceResponse, Deal, EmailActivity, PortfolioProperty } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPlatformBridgeClient,
  type PlatformBridgeClient,
} from '../src/clients/bridge/platform-bridge-client.ts';
import { BRIEFING_MAX_CHARS } from '../src/features/briefing/briefing-writer.ts';
import { createLocalProvider, localReply } from '../src/features/providers/local/local-provider.ts';
import type { ChatMessage } from '../src/features/providers/provider.ts';
import {
  compactJson,
  createPlatformToolbox,
  PLATFORM_TOOL_DEFINITIONS,
} from '../src/features/tools/platform-tools.ts';
import { EMPTY_TOOLBOX, type ToolCallRecord, type Toolbox } from '../src/features/tools/toolbox.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';

// The local provider answering a property manager from REAL platform data (docs/gateway-api.md): the demo tenant on the
// real platform-bridge app (fixed clock), read through the worker's toolbox. The facts asserted here are taken
// from the bridge itself, so the test checks the answers, not a copy of the demo.

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let client: PlatformBridgeClient;
let toolbox: Toolbox;
let properties: PortfolioProperty[];
let compliance: Map<string, ComplianceResponse>;

beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo();
  client = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(demo.key);
  toolbox = createPlatformToolbox(client);
  properties = (await client.getPortfolio({ limit: 500 })).properties;
  compliance = new Map(
    await Promise.all(properties.map(async (p) => [p.ref, await client.getCompliance(p.id)] as const)),
  );
});
afterAll(async () => platform?.close());

interface Answer {
  text: string;
  chunks: string[];
  calls: ToolCallRecord[];
}

/** Streams one turn through the local provider with a recording toolbox. */
async function ask(question: string | ChatMessage[], tools: Toolbox = toolbox): Promise<Answer> {
  const calls: ToolCallRecord[] = [];
  const recording: Toolbox = {
    definitions: tools.definitions,
    call: async (name, args, signal) => {
      const record = await tools.call(name, args, signal);
      calls.push(record);
      return record;
    },
  };
  const messages: ChatMessage[] =
    typeof question === 'string'
      ? [
          { role: 'system', content: 'You are a property assistant.' },
          { role: 'user', content: question },
        ]
      : question;
  const chunks: string[] = [];
  const provider = createLocalProvider();
  for await (const chunk of provider.stream({
    messages,
    tools: recording,
    signal: new AbortController().signal,
  }))
    chunks.push(chunk);
  return { text: chunks.join(''), chunks, calls };
}

function names(calls: ToolCallRecord[]): Set<string> {
  return new Set(calls.map((c) => c.name));
}

function refsWith(pred: (c: ComplianceResponse) => boolean): string[] {
  return [...compliance.entries()].filter(([, c]) => pred(c)).map(([ref]) => ref);
}

describe('answers from the platform (bound worker)', () => {
  it('portfolio overview: counts, occupancy, rent roll, arrears, compliance, deals', async () => {
    const { text, calls } = await ask('Give me a portfolio overview');
    const summary = (await client.getPortfolio({ limit: 1 })).summary;
    expect(summary.properties_total).toBe(24);
    expect(text).toContain('**24 properties**');
    expect(text).toContain(`occupancy **${(summary.occupancy_rate * 100).toFixed(1)}%**`);
    const gbp = (p: number) =>
      new Intl.NumberFormat('en-GB', {
        style: 'currency',
        currency: 'GBP',
        minimumFractionDigits: p % 100 === 0 ? 0 : 2,
      }).format(p / 100);
    expect(text).toContain(gbp(summary.rent_roll_monthly_pence));
    expect(text).toContain(gbp(summary.arrears_pence));
    expect(text).toContain(
      `${summary.compliance.valid} valid, ${summary.compliance.expiring_soon} expiring soon, ${summary.compliance.expired} expired, ${summary.compliance.missing} missing`,
    );
    expect(text).toContain(`**${summary.open_deals} open deals**`);
    expect(text).not.toMatch(/\p{Extended_Pictographic}/u);
    expect(text).toMatch(/\nAsk next: “[^”]+”( · “[^”]+”){0,2}$/);
    expect([...names(calls)]).toEqual(['platform-get-portfolio']);
    expect(calls.every((c) => c.ok)).toBe(true);
  });

  it('"which gas safety certificates have expired?" lists exactly the expired ones', async () => {
    const { text, calls } = await ask('Which gas safety certificates have expired?');
    const expired = refsWith((c) => c.items.some((i) => i.type === 'gas_safety' && i.status === 'expired'));
    const valid = refsWith((c) => c.items.some((i) => i.type === 'gas_safety' && i.status === 'valid'));
    expect(expired.sort()).toEqual(['BRS-002', 'LON-003', 'MAN-004']);
    for (const ref of expired) expect(text).toContain(ref);
    for (const ref of valid) expect(text).not.toContain(ref);
    expect(text).toContain('16 Clarendon Road'); // address with the ref
    expect(text).toMatch(/12 May 2026 \(34 days ago\)/);
    // no emoji, and a table with the ref, address and date in one row
    // one status column and one date column: the status never repeats the date
    expect(text).toMatch(
      /\| MAN-004 \| 16 Clarendon Road[^\n]*\| Expired \| 12 May 2026 \(34 days ago\) \|$/m,
    );
    expect(text).not.toMatch(/expired on/);
    // the count expiring soon is the bridge's: every gas item expiring soon, at properties of any status
    const soon = refsWith((c) =>
      c.items.some((i) => i.type === 'gas_safety' && i.status === 'expiring_soon'),
    );
    const soonItems = [...compliance.values()].flatMap((c) =>
      c.items.filter((i) => i.type === 'gas_safety' && i.status === 'expiring_soon'),
    );
    expect(soon.length).toBeGreaterThan(0);
    expect(text).toContain(`A further ${soonItems.length} item`);
    // one portfolio read, then the portfolio-wide compliance read of what is not valid, ten properties a call
    // (not a call per property)
    expect(calls[0]!.name).toBe('platform-get-portfolio');
    const complianceCalls = calls.filter((c) => c.name === 'platform-get-compliance');
    const notValid = properties.filter((p) => p.compliance_status !== 'valid');
    expect(notValid.length).toBeGreaterThan(10);
    expect(complianceCalls).toHaveLength(Math.ceil(notValid.length / 10));
    for (const call of complianceCalls) expect(call.arguments).not.toHaveProperty('property_id');
    expect(calls).toHaveLength(1 + complianceCalls.length);
  });

  it('a portfolio-wide page trimmed to the result cap: the properties it left out are read one by one, same answer', async () => {
    const question = 'Which gas safety certificates have expired?';
    const roomy = await ask(question);
    // the portfolio-wide pages (about 10,000 characters for ten properties here) trimmed as a 4,000-character cap
    // would trim them, the other reads left whole
    const tight = await ask(question, {
      definitions: toolbox.definitions,
      call: async (name, args, signal) => {
        const record = await toolbox.call(name, args, signal);
        const portfolioWide = name === 'platform-get-compliance' && !ofOneProperty(args);
        return portfolioWide ? { ...record, result: compactJson(JSON.parse(record.result), 4_000) } : record;
      },
    });
    const paged = tight.calls.filter(
      (c) => c.name === 'platform-get-compliance' && !ofOneProperty(c.arguments),
    );
    const single = tight.calls.filter(
      (c) => c.name === 'platform-get-compliance' && ofOneProperty(c.arguments),
    );
    expect(paged).toHaveLength(1);
    expect(JSON.parse(paged[0]!.result)).toHaveProperty('truncated');
    const notValid = properties.filter((p) => p.compliance_status !== 'valid');
    const shown = (JSON.parse(paged[0]!.result) as { properties: unknown[] }).properties.length;
    expect(single).toHaveLength(notValid.length - shown);
    expect(stripAsOf(tight.text)).toBe(stripAsOf(roomy.text));
  });

  it('a question about a few properties reads them one by one when that takes fewer calls', async () => {
    const { text, calls } = await ask('What is expiring soon at MAN-004 and MAN-002?');
    expect(text).toContain('MAN-004');
    const complianceCalls = calls.filter((c) => c.name === 'platform-get-compliance');
    expect(complianceCalls.length).toBeGreaterThan(0);
    expect(complianceCalls.length).toBeLessThanOrEqual(2);
    for (const call of complianceCalls) expect(call.arguments).toHaveProperty('property_id');
  });

  it('"what is expiring soon?" lists expiring items with dates and days, soonest first', async () => {
    const { text } = await ask('What is expiring soon?');
    const soon = refsWith((c) => c.items.some((i) => i.status === 'expiring_soon'));
    expect(soon.length).toBeGreaterThan(5);
    for (const ref of soon) expect(text).toContain(ref);
    expect(text).toMatch(/\| \d{1,2} \w{3,4} 2026 \(in \d+ days\) \|/);
    // the soonest (deposit protection at BRS-003, in 6 days) comes before an EPC due in months
    expect(text.indexOf('Deposit protection')).toBeLessThan(text.indexOf('EPC'));
  });

  it('per type: EICRs', async () => {
    const { text } = await ask('Which EICRs need attention?');
    const eicr = refsWith((c) => c.items.some((i) => i.type === 'eicr' && i.status !== 'valid'));
    for (const ref of eicr) expect(text).toContain(ref);
    expect(text).toMatch(/remedial work due \| 27 Jun 2026 \(in 12 days\) \|/);
    expect(text).not.toMatch(/Gas safety/);
  });

  it('"what needs attention at MAN-004?" names the expired gas certificate, the EICR remedial and the arrears', async () => {
    const { text, calls } = await ask('What needs attention at MAN-004?');
    const id = properties.find((p) => p.ref === 'MAN-004')!.id;
    expect(text).toContain('MAN-004');
    expect(text).toContain('16 Clarendon Road');
    expect(text).toMatch(/\| Gas safety certificate \(CP12\) \| Expired \| 12 May 2026 \(34 days ago\) \|/);
    expect(text).toMatch(
      /EICR[^\n]*Unsatisfactory \(2 × C2\): remedial work due \| 27 Jun 2026 \(in 12 days\)/,
    );
    expect(text).toMatch(/\| Legionella risk assessment \| Missing \|/);
    expect(text).toContain('**Arrears:** **£1,150**');
    expect(text).toMatch(/notice given[^\n]*ends on 9 Jul 2026/); // tenancy: periodic from 1 May 2026
    expect(text).toMatch(
      /\| Tenancy \| Possession due \(notice given 1 Apr 2026\) \| 9 Jul 2026 \(in 24 days\) \|/,
    );
    expect(names(calls)).toEqual(
      new Set(['platform-get-portfolio', 'platform-get-property', 'platform-get-compliance']),
    );
    expect(calls.find((c) => c.name === 'platform-get-property')!.arguments).toEqual({ property_id: id });
  });

  it('finds a property by postcode, by street fragment and by id', async () => {
    const byPostcode = await ask('Tell me about M21 9EL');
    expect(byPostcode.text).toMatch(/^### MAN-002 — 34 Beech Road/);
    const byStreet = await ask('What needs attention at 42 North Road?');
    expect(byStreet.text).toMatch(/^### BRS-002 — 42 North Road/);
    expect(byStreet.text).toMatch(/\| Gas safety certificate \(CP12\) \| Expired \| 5 Jun 2026/);
    const byFragment = await ask('How is Clarendon Road doing?');
    expect(byFragment.text).toMatch(/^### MAN-004/);
    const id = properties.find((p) => p.ref === 'LON-003')!.id;
    const byId = await ask(`Show me property ${id}`);
    expect(byId.text).toMatch(/^### LON-003/);
    const unknown = await ask('What needs attention at XYZ-999?');
    expect(unknown.text).toMatch(/could not find a property with the reference \*\*XYZ-999\*\*/);
  });

  it('open deals list next actions with due dates, overdue first', async () => {
    const { text, calls } = await ask('Any open deals with actions due?');
    const open: Deal[] = (await client.getDeals({ status: 'open' })).deals;
    for (const d of open) {
      expect(text).toContain(d.title);
      if (d.next_action) expect(text).toContain(d.next_action);
    }
    const closed = (await client.getDeals({ status: 'all' })).deals.filter((d) => d.status !== 'open');
    for (const d of closed) expect(text).not.toContain(d.title);
    expect(text).toMatch(/12 Jun 2026 \(3 days overdue\)/);
    expect(text.indexOf('Overdue')).toBeLessThan(text.indexOf('Due in the next 7 days'));
    expect(names(calls)).toContain('platform-get-deals');
  });

  it('emails needing a response in the last 48 hours list their subjects', async () => {
    const { text, calls } = await ask('Which emails need a response in the last 48 hours?');
    expect(calls.map((c) => [c.name, c.arguments])).toContainEqual([
      'platform-get-email-activity',
      { hours: 48 },
    ]);
    expect(names(calls)).toEqual(new Set(['platform-get-email-activity', 'platform-get-portfolio']));
    const items: EmailActivity[] = (await client.getEmailActivity({ hours: 48 })).items;
    const needing = items.filter((e) => e.direction === 'inbound' && e.requires_response);
    expect(needing.length).toBeGreaterThan(5);
    for (const e of needing) expect(text).toContain(e.subject);
    const subjects = new Set(needing.map((e) => e.subject));
    const noReplyNeeded = items.filter((x) => !x.requires_response && !subjects.has(x.subject));
    expect(noReplyNeeded.length).toBeGreaterThan(0);
    for (const e of noReplyNeeded) expect(text).not.toContain(e.subject);
    expect(text).toMatch(/^### Email needing a response — last 48 hours/);
    const day = await ask('Which emails need a response?');
    expect(day.calls.find((c) => c.name === 'platform-get-email-activity')!.arguments).toEqual({ hours: 24 });
  });

  it('the daily briefing combines everything in at most 4000 characters', async () => {
    const { text, calls } = await ask('Give me my daily briefing');
    expect(text.length).toBeLessThanOrEqual(BRIEFING_MAX_CHARS);
    expect(text).toMatch(/^### Daily briefing: Demo Lettings Ltd, 15 Jun 2026/);
    // safety first: every expired gas certificate is named, before any other certificate
    expect(text).toMatch(
      /\*\*Safety: gas, electrical, smoke and CO alarms \(\d+\)\*\*\n- \*\*MAN-004\*\* Gas safety certificate \(CP12\): expired on 12 May 2026/,
    );
    for (const ref of ['MAN-004', 'LON-003', 'BRS-002'])
      expect(text).toMatch(new RegExp(`\\*\\*${ref}\\*\\* Gas safety certificate \\(CP12\\): expired on`));
    expect(text.indexOf('Gas safety')).toBeLessThan(text.indexOf('Legionella'));
    expect(text).toContain('**BRS-003** Deposit protection: must be protected');
    expect(text).not.toMatch(/not valid/i);
    expect(text).toMatch(/Deal actions/);
    expect(text).toMatch(/Email awaiting a reply/);
    expect(text).toContain('MAN-004');
    expect(names(calls)).toEqual(
      new Set([
        'platform-get-portfolio',
        'platform-get-compliance',
        'platform-get-tenant-copies',
        'platform-get-deals',
        'platform-get-email-activity',
      ]),
    );
  });

  it('"what needs my attention this week?" lists every item, safety first, with its date and why', async () => {
    const { text } = await ask('What needs my attention this week?');
    expect(text).toMatch(/^### What needs you this week \(to 22 Jun 2026\): \d+ items/);
    const safety = text.indexOf('**Safety: gas, electrical, smoke and CO alarms');
    expect(safety).toBeGreaterThan(0);
    expect(safety).toBeLessThan(text.indexOf('**Other certificates'));
    // a property with both an expired and a missing item is listed under both (MAN-004: gas expired, legionella missing)
    expect(text).toMatch(
      /\| MAN-004 \| Gas safety certificate \(CP12\) \| Expired \| 12 May 2026 \(34 days ago\) \| legal duty/,
    );
    expect(text).toMatch(/\| MAN-004 \| Legionella risk assessment \| Missing \| none on file \|/);
    for (const ref of ['BRS-002', 'LON-003']) expect(text).toMatch(new RegExp(`\\| ${ref} \\| Gas safety`));
    // a deadline to act is worded as one
    expect(text).toMatch(
      /\| BRS-003 \| Deposit protection \| To protect \| 21 Jun 2026 \(in 6 days\) \| a deposit must be protected/,
    );
    expect(text).not.toMatch(/expires/);
    expect(text).not.toMatch(/and \d+ more/);
  });

  it('streams the reply in small chunks', async () => {
    const { text, chunks } = await ask('Give me a portfolio overview');
    expect(chunks.length).toBeGreaterThan(20);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(120);
    expect(chunks.join('')).toBe(text);
  });

  it('keeps the conversation rules and help when bound, without calling tools', async () => {
    const named = await ask([
      { role: 'user', content: 'my name is Ada' },
      { role: 'assistant', content: 'Nice to meet you, **Ada**.' },
      { role: 'user', content: 'what is my name?' },
    ]);
    expect(named.text).toBe('Your name is **Ada**.');
    expect(named.calls).toHaveLength(0);
    const help = await ask('help');
    expect(help.text).toBe(localReply([{ role: 'user', content: 'help' }]));
    expect(help.calls).toHaveLength(0);
  });

  it('never claims a record was created', async () => {
    const { text, calls } = await ask('Create a deal for 5 Oak Street');
    expect(calls).toHaveLength(0);
    expect(text).toMatch(/have not created or changed anything/);
  });
});

describe('the new kinds of question (facts from the bridge, fixed clock)', () => {
  it('arrears: every property in arrears with its amount, in a table, from the portfolio page alone', async () => {
    const { text, calls } = await ask('Which properties have arrears?');
    const owing = properties.filter((p) => p.arrears_pence > 0);
    expect(owing.length).toBeGreaterThan(1);
    for (const p of owing) expect(text).toContain(`| ${p.ref} |`);
    for (const p of properties.filter((x) => x.arrears_pence === 0)) expect(text).not.toContain(p.ref);
    expect(text).toMatch(/^\| Ref \| Address \| Arrears \| Tenancy \|\n\| --- \|/m);
    expect([...names(calls)]).toEqual(['platform-get-portfolio']);
  });

  it('tenancies ending in the next 60 days: the end dates, nothing later', async () => {
    const { text } = await ask('Which tenancies end in the next 60 days?');
    const ending = properties.filter(
      (p) => p.tenancy_end_date && p.tenancy_end_date >= '2026-06-15' && p.tenancy_end_date <= '2026-08-14',
    );
    const later = properties.filter((p) => p.tenancy_end_date && p.tenancy_end_date > '2026-08-14');
    expect(ending.length).toBeGreaterThan(0);
    for (const p of ending) expect(text).toContain(`| ${p.ref} |`);
    for (const p of later) expect(text).not.toContain(`| ${p.ref} |`);
  });

  it('voids: the properties with no unit occupied', async () => {
    const { text } = await ask('Which properties are void?');
    const empty = properties.filter((p) => p.units_total > 0 && p.units_occupied === 0);
    expect(empty.length).toBeGreaterThan(0);
    for (const p of empty) expect(text).toContain(p.ref);
  });

  it('a town: its properties only, in a table', async () => {
    const { text } = await ask('summarise Leeds');
    const leeds = properties.filter((p) => p.address.town === 'Leeds');
    expect(leeds.length).toBeGreaterThan(1);
    for (const p of leeds) expect(text).toContain(`| ${p.ref} |`);
    for (const p of properties.filter((x) => x.address.town !== 'Leeds')) expect(text).not.toContain(p.ref);
  });

  it('EPCs below E: the F and G ratings, never an expiry "in N days" for them', async () => {
    const { text } = await ask('Which EPCs are below E?');
    const low = refsWith((c) =>
      c.items.some((i) => i.type === 'epc' && (i.rating === 'F' || i.rating === 'G')),
    );
    expect(low.length).toBeGreaterThan(0);
    for (const ref of low) expect(text).toContain(ref);
    expect(text).not.toMatch(/expired on [^\n]*\(in \d+ days\)/);
  });

  it('a place that does not exist: said plainly, naming no property', async () => {
    for (const q of [
      'tell me about 14 Oak Street',
      'XYZ-999',
      'what about M1 1AA?',
      'Summarise Birmingham',
    ]) {
      const { text } = await ask(q);
      expect(text).toMatch(/^I could not find/);
      for (const p of properties) expect(text).not.toContain(p.ref);
    }
  });

  it('small talk and memory: short, kind, no help dump; "what did I ask first?" quotes the first', async () => {
    const thanks = await ask('thanks');
    expect(thanks.text).toMatch(/welcome/);
    expect(thanks.text.length).toBeLessThan(300);
    expect(thanks.calls).toHaveLength(0);
    const first = await ask([
      { role: 'user', content: 'Which gas safety certificates have expired?' },
      { role: 'assistant', content: '…' },
      { role: 'user', content: 'What about MAN-004?' },
      { role: 'assistant', content: '…' },
      { role: 'user', content: 'What did I ask you first?' },
    ]);
    expect(first.text).toContain('Which gas safety certificates have expired?');
    expect(first.text).not.toContain('MAN-004');
  });

  it('a follow-up reads the conversation: "And EICRs?" keeps "expired", "there" keeps the property', async () => {
    const eicr = await ask([
      { role: 'user', content: 'Which gas safety certificates have expired?' },
      { role: 'assistant', content: '…' },
      { role: 'user', content: 'And EICRs?' },
    ]);
    expect(eicr.text).toMatch(/^### Expired EICRs/);
    const rent = await ask([
      { role: 'user', content: 'Tell me about MAN-004' },
      { role: 'assistant', content: '…' },
      { role: 'user', content: "What's the rent there?" },
    ]);
    expect(rent.text).toMatch(/^### MAN-004/);
  });
});

describe('without the platform, or when it fails', () => {
  it('an unbound worker (EMPTY_TOOLBOX) still explains how to bind', async () => {
    const { text, calls } = await ask('Which gas safety certificates have expired?', EMPTY_TOOLBOX);
    expect(text).toContain('I am not connected to your property platform yet');
    expect(text).not.toMatch(/gateway|skill pack|tenant slug|worker/i);
    expect(text).toBe(localReply([{ role: 'user', content: 'Which gas safety certificates have expired?' }]));
    expect(calls).toHaveLength(0);
  });

  it('a failing toolbox gives a readable failure reply', async () => {
    const failing: Toolbox = {
      definitions: PLATFORM_TOOL_DEFINITIONS,
      call: async (name, args) => ({
        name,
        arguments: args,
        ok: false,
        result: `${name} failed: bridge exploded.`,
      }),
    };
    const { text, calls } = await ask('Give me a portfolio overview', failing);
    expect(calls).toHaveLength(1);
    expect(text).toMatch(/could not read the property platform/);
    expect(text).toContain('platform-get-portfolio failed: bridge exploded.');
  });

  it('a revoked key: says the key was refused, never showing it', async () => {
    const issued = await platform.admin.createKey(demo.tenant.slug, ['bridge:read'], 'revoked in test');
    await platform.admin.revokeKey(issued.id);
    const revoked = createPlatformToolbox(
      createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(issued.key),
    );
    for (const question of [
      'What needs attention at MAN-004?',
      'Give me my daily briefing',
      'Any open deals?',
    ]) {
      const { text } = await ask(question, revoked);
      expect(text).toMatch(/could not read the property platform/);
      expect(text).toMatch(/refused the API key/);
      expect(text).not.toContain(issued.key);
    }
  });

  it('an aborted turn rejects instead of answering', async () => {
    const controller = new AbortController();
    controller.abort();
    const provider = createLocalProvider();
    const run = async () => {
      for await (const _ of provider.stream({
        messages: [{ role: 'user', content: 'Give me a portfolio overview' }],
        tools: toolbox,
        signal: controller.signal,
      }));
    };
    await expect(run()).rejects.toMatchObject({ name: 'AbortError' });
  });
});

/** An answer without its footer's time of reading, which differs between two reads. */
function stripAsOf(text: string): string {
  return text.replace(/_As of [^_]*_/g, '_As of …_');
}

/** Whether a tool call's arguments name one property (`property_id`). */
function ofOneProperty(args: unknown): boolean {
  return typeof args === 'object' && args !== null && 'property_id' in args;
}
