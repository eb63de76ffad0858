import { Proposal, ProposalCreated, ProposalsResponse } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeError, type BridgeErrorKind } from '../src/clients/bridge/bridge-errors.ts';
import {
  createPlatformBridgeClient,
  type PlatformBridgeClient,
} from '../src/clients/bridge/platform-bridge-client.ts';
import { describeFailure } from '../src/features/tools/platform-tools.ts';
import { type BridgeProxy, startBridgeProxy } from './support/bridge-proxy.ts';
import { expectContract } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway, type TestTenant } from './support/platform.ts';

// The bridge client's proposals against the REAL platform-bridge app: each submission parsed by
// its contract, one Idempotency-Key per proposal that survives the client's own retries (a loopback proxy in
// front of the bridge drops answers and answers 409/503/429 on demand), and the bridge's refusals in words.

let platform: PlatformForGateway;
let proxy: BridgeProxy;
let tenant: TestTenant;
let propertyId: number;
let client: PlatformBridgeClient;
/** the same tenant's key, through the proxy, with quick retries */
let viaProxy: PlatformBridgeClient;

beforeAll(async () => {
  platform = await startPlatformForGateway({ proposalPendingLimit: 3 });
  proxy = await startBridgeProxy(platform.baseUrl);
  tenant = await platform.createTenant({ writes: true, scopes: ['bridge:read', 'bridge:propose'] });
  propertyId = await propertyOf(tenant);
  client = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(tenant.key);
  viaProxy = createPlatformBridgeClient({ baseUrl: proxy.baseUrl, retryBaseDelayMs: 10 }).forKey(tenant.key);
});
afterAll(async () => {
  await proxy?.close();
  await platform?.close();
});

/** A property of the tenant, made in the bridge's database (a new tenant has none). */
async function propertyOf(t: TestTenant): Promise<number> {
  const row = await platform.db.property.create({
    data: {
      tenantId: t.id,
      ref: 'TST-001',
      line1: '1 Test Street',
      town: 'Manchester',
      postcode: 'M1 1AA',
      propertyType: 'flat',
      bedrooms: 2,
      bathrooms: 1,
      tenure: 'leasehold',
      furnishing: 'furnished',
      localAuthority: 'Manchester',
      lettingStatus: 'let',
      managementType: 'managed',
    },
  });
  return row.id;
}

async function failure(call: Promise<unknown>, kind: BridgeErrorKind, key: string): Promise<BridgeError> {
  const err = await call.then(
    (v) => {
      throw new Error(`expected ${kind}, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BridgeError);
  expect((err as BridgeError).kind).toBe(kind);
  expect(JSON.stringify(err) + (err as Error).message).not.toContain(key);
  return err as BridgeError;
}

const proposalsOf = (tenantId: number) =>
  platform.db.proposal.findMany({ where: { tenantId }, orderBy: { id: 'asc' } });

/** Withdraws the tenant's pending proposals, so that the small quota (3) does not stop the next test. */
async function clearQueue(c: PlatformBridgeClient) {
  const { proposals } = await c.listProposals({ status: 'pending_review' });
  for (const p of proposals)
    await platform.db.proposal.update({ where: { id: p.proposal_id }, data: { status: 'withdrawn' } });
}

describe('proposeDeal / proposeComplianceUpdate / proposeFinancialLog', () => {
  it('each answers 201 ProposalCreated, pending review, and the bridge holds the proposal and no record', async () => {
    const deal = await client.proposeDeal({
      title: 'Acquire 14 Oak Street',
      property_id: null,
      value_pence: 25_000_000,
    });
    const cert = await client.proposeComplianceUpdate({
      property_id: propertyId,
      compliance_type: 'gas_safety',
      issue_date: '2026-06-15',
      reference_number: 'GS-12345',
    });
    const log = await client.proposeFinancialLog({
      property_id: propertyId,
      date: '2026-06-15',
      direction: 'expense',
      category: 'repair',
      net_pence: 12_000,
      vat_pence: 2_400,
      payee_or_payer: 'Acme Plumbing',
    });
    for (const [created, kind] of [
      [deal, 'deal'],
      [cert, 'compliance_update'],
      [log, 'financial_log'],
    ] as const) {
      expectContract(ProposalCreated, created);
      expect(created).toMatchObject({ status: 'pending_review', kind });
    }
    const rows = await proposalsOf(tenant.id);
    expect(rows.map((r) => [r.id, r.kind, r.status])).toEqual([
      [deal.proposal_id, 'deal', 'pending_review'],
      [cert.proposal_id, 'compliance_update', 'pending_review'],
      [log.proposal_id, 'financial_log', 'pending_review'],
    ]);
    // the defaults were filled in before sending (deal_type), and nothing exists on the platform yet
    expect(rows[0]!.payload).toMatchObject({ deal_type: 'acquisition', property_id: null });
    expect(await platform.db.deal.count({ where: { tenantId: tenant.id } })).toBe(0);
    expect(await platform.db.financialLog.count({ where: { tenantId: tenant.id } })).toBe(0);
    expect(await platform.db.complianceItem.count({ where: { tenantId: tenant.id } })).toBe(0);

    // and reads them back through listProposals and getProposal, parsed by their contracts
    const list = expectContract(ProposalsResponse, await client.listProposals({ status: 'pending_review' }));
    expect(list.proposals.map((p) => p.proposal_id)).toEqual([log, cert, deal].map((c) => c.proposal_id));
    const one = expectContract(Proposal, await client.getProposal(cert.proposal_id));
    expect(one).toMatchObject({ kind: 'compliance_update', status: 'pending_review', record: null });
    await clearQueue(client);
  });

  it('sends a fresh Idempotency-Key per proposal', async () => {
    proxy.requests.length = 0;
    const body = { title: 'Sell 1 Test Street', property_id: propertyId, deal_type: 'disposal' } as const;
    const a = await viaProxy.proposeDeal(body);
    const b = await viaProxy.proposeDeal(body);
    expect(a.proposal_id).not.toBe(b.proposal_id);
    const keys = proxy.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);
    await clearQueue(client);
  });

  it('retries a dropped answer with the same Idempotency-Key and gets the one proposal the bridge made', async () => {
    proxy.requests.length = 0;
    const before = (await proposalsOf(tenant.id)).length;
    proxy.script('drop-answer');
    const created = await viaProxy.proposeDeal({ title: 'Acquire 9 Elm Row', property_id: null });
    expect(proxy.requests).toHaveLength(2);
    const [first, second] = proxy.requests.map((r) => r.headers['idempotency-key']);
    expect(first).toBe(second);
    const rows = await proposalsOf(tenant.id);
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({ id: created.proposal_id, status: 'pending_review' });
    await clearQueue(client);
  });

  it('retries 409 idempotency-key-in-flight, 503 and 429 rate-limited with the same key', async () => {
    proxy.requests.length = 0;
    proxy.script(
      { status: 409, code: 'idempotency-key-in-flight' },
      { status: 503, code: 'database-unavailable' },
      { status: 429, code: 'rate-limited', retryAfter: 0 },
    );
    const c = createPlatformBridgeClient({ baseUrl: proxy.baseUrl, retries: 3, retryBaseDelayMs: 10 }).forKey(
      tenant.key,
    );
    const created = await c.proposeFinancialLog({
      property_id: propertyId,
      date: '2026-06-14',
      direction: 'income',
      category: 'rent_received',
      net_pence: 95_000,
    });
    expect(proxy.requests).toHaveLength(4);
    expect(new Set(proxy.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(await platform.db.proposal.findUnique({ where: { id: created.proposal_id } })).toMatchObject({
      kind: 'financial_log',
      payload: expect.objectContaining({ vat_pence: 0 }),
    });
    await clearQueue(client);
  });

  it('does not retry 429 proposal-quota-exceeded, and says so in words', async () => {
    for (let i = 0; i < 3; i++) await client.proposeDeal({ title: `Deal ${i}`, property_id: propertyId });
    proxy.requests.length = 0;
    const err = await failure(
      viaProxy.proposeDeal({ title: 'One too many', property_id: propertyId }),
      'rate-limited',
      tenant.key,
    );
    expect(err.code).toBe('proposal-quota-exceeded');
    expect(proxy.requests).toHaveLength(1);
    expect(describeFailure(err)).toMatch(/too many proposals are already waiting for review/);
    await clearQueue(client);
  });
});

describe('refusals in words', () => {
  it('a key without bridge:propose → forbidden: bind a key with the bridge:propose scope', async () => {
    const reader = await platform.admin.createKey(tenant.slug, ['bridge:read'], 'read only');
    const c = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(reader.key);
    const err = await failure(
      c.proposeDeal({ title: 'x', property_id: propertyId }),
      'forbidden',
      reader.key,
    );
    expect(err.code).toBe('insufficient-scope');
    expect(describeFailure(err)).toMatch(
      /the key this worker is bound with cannot propose: bind a key with the bridge:propose scope/,
    );
    // reading proposals needs bridge:read only
    expect((await c.listProposals()).proposals.length).toBeGreaterThan(0);
  });

  it('writes off at the tenant → not-found writes-not-enabled: the assistant_bridge_writes flag', async () => {
    const off = await platform.createTenant({ scopes: ['bridge:read', 'bridge:propose'] });
    const c = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(off.key);
    const err = await failure(c.proposeDeal({ title: 'x', property_id: null }), 'not-found', off.key);
    expect(err.code).toBe('writes-not-enabled');
    expect(describeFailure(err)).toMatch(/assistant_bridge_writes flag must be turned on/);
  });

  it('another tenant’s property → invalid-request unknown-property; its proposal → not-found', async () => {
    const other = await platform.createTenant({ writes: true, scopes: ['bridge:read', 'bridge:propose'] });
    const c = createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(other.key);
    const err = await failure(
      c.proposeDeal({ title: 'Not mine', property_id: propertyId }),
      'invalid-request',
      other.key,
    );
    expect(err.code).toBe('unknown-property');
    expect(describeFailure(err)).toMatch(/not one of this tenant's properties/);
    const mine = await client.proposeDeal({ title: 'Mine', property_id: propertyId });
    const hidden = await failure(c.getProposal(mine.proposal_id), 'not-found', other.key);
    expect(hidden.code).toBe('proposal-not-found');
    await clearQueue(client);
  });

  it('a body that breaks the contract is refused before sending', async () => {
    proxy.requests.length = 0;
    const err = await failure(
      viaProxy.proposeFinancialLog({
        property_id: propertyId,
        date: 'yesterday',
        direction: 'expense',
        category: 'repair',
        net_pence: -1,
      }),
      'invalid-request',
      tenant.key,
    );
    expect(err.status).toBeNull();
    expect(err.detail).toMatch(/date/);
    expect(err.detail).toMatch(/net_pence/);
    expect(proxy.requests).toHaveLength(0);
  });
});
