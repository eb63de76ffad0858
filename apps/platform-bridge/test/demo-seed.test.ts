import { PortfolioResponse } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toRulesItem, toRulesProperty } from '../src/features/compliance/compliance-mapper.ts';
import { evaluateProperty, requiredTypes } from '../src/features/compliance/compliance-rules.ts';
import { DEMO_TENANT_SLUG } from '../src/demo/demo-data.ts';
import { seedDemo, type SeedDemoResult } from '../src/demo/demo-seed.ts';
import { currentTenancy } from '../src/features/compliance/current-tenancy.ts';
import { type Clock, londonDate } from '../src/lib/clock.ts';
import { expectContract } from './support/contract.ts';
import { bearer } from './support/factories.ts';
import { fixedClock, startTestBridge, type TestBridge } from './support/test-app.ts';

const NOW = '2026-06-15T09:00:00Z';

let t: TestBridge;
let seeded: SeedDemoResult;
let seedMs: number;

beforeAll(async () => {
  t = await startTestBridge({ now: NOW });
  const started = performance.now();
  seeded = await seedDemo({ db: t.db, clock: t.clock });
  seedMs = performance.now() - started;
});
afterAll(async () => t?.close());

/** Every required slot and every item of a tenant's portfolio, judged by the real rules. */
async function distribution(tenantId: number, clock: Clock) {
  const today = londonDate(clock.now());
  const properties = await t.db.property.findMany({
    where: { tenantId },
    orderBy: { ref: 'asc' },
    include: { tenancies: currentTenancy, complianceItems: true },
  });
  const counts = { valid: 0, expiring_soon: 0, expired: 0, missing: 0, not_applicable: 0 };
  const byRef = new Map<string, ReturnType<typeof evaluateProperty>>();
  for (const p of properties) {
    const rp = toRulesProperty(p);
    const e = evaluateProperty(rp, p.complianceItems.map(toRulesItem), today);
    byRef.set(p.ref, e);
    const required = new Set<string>(requiredTypes(rp));
    for (const i of e.items) {
      if (required.has(i.item.type)) counts[i.status]++;
      else counts.not_applicable++;
    }
    counts.missing += e.missing.length;
  }
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const share = (n: number) => n / total;
  return { counts, total, share, byRef, properties };
}

describe('seedDemo', () => {
  it('creates the demo tenant with its portfolio, quickly', () => {
    expect(seeded.created).toBe(true);
    expect(seeded.tenant.slug).toBe(DEMO_TENANT_SLUG);
    expect(seeded.counts.properties).toBe(24);
    expect(seeded.counts.compliance_items).toBeGreaterThanOrEqual(120);
    expect(seeded.counts.compliance_items).toBeLessThanOrEqual(140);
    expect(seeded.counts.deals).toBe(8);
    expect(seeded.counts.emails).toBeGreaterThanOrEqual(35);
    expect(seeded.counts.emails).toBeLessThanOrEqual(45);
    expect(seedMs).toBeLessThan(10_000);
  });

  it('reports counts that match the rows written', async () => {
    const tenantId = seeded.tenant.id;
    const where = { tenantId };
    expect(await t.db.property.count({ where })).toBe(seeded.counts.properties);
    expect(await t.db.tenancy.count({ where })).toBe(seeded.counts.tenancies);
    expect(await t.db.complianceItem.count({ where })).toBe(seeded.counts.compliance_items);
    expect(await t.db.emailActivity.count({ where })).toBe(seeded.counts.emails);
    expect(await t.db.financialLog.count({ where })).toBe(seeded.counts.financial_logs);
    expect(await t.db.auditEntry.count({ where })).toBe(seeded.counts.audit_entries);
    expect(await t.db.propertyComplianceRollup.count({ where })).toBe(seeded.counts.properties);
  });

  it('has the compliance distribution of the demo by the real rules', async () => {
    const d = await distribution(seeded.tenant.id, t.clock);
    expect(d.total).toBeGreaterThanOrEqual(125);
    expect(d.total).toBeLessThanOrEqual(145);
    expect(d.share(d.counts.valid)).toBeGreaterThan(0.55);
    expect(d.share(d.counts.valid)).toBeLessThan(0.65);
    expect(d.share(d.counts.expiring_soon)).toBeGreaterThan(0.12);
    expect(d.share(d.counts.expiring_soon)).toBeLessThan(0.18);
    expect(d.share(d.counts.expired)).toBeGreaterThan(0.08);
    expect(d.share(d.counts.expired)).toBeLessThan(0.13);
    expect(d.share(d.counts.missing)).toBeGreaterThan(0.08);
    expect(d.share(d.counts.missing)).toBeLessThan(0.13);
    expect(d.counts.not_applicable).toBeGreaterThan(0);
    expect(d.share(d.counts.not_applicable)).toBeLessThan(0.08);
  });

  it('keeps the same distribution whatever day it is seeded (dates are relative)', async () => {
    const base = await distribution(seeded.tenant.id, t.clock);
    // Late on New Year's Eve in London, across a month end and in winter time.
    const clock = fixedClock('2027-12-31T23:30:00Z');
    const other = await seedDemo({ db: t.db, clock }, { tenantSlug: 'demo-relative-dates' });
    const d = await distribution(other.tenant.id, clock);
    expect(d.counts).toEqual(base.counts);
    const rollups = await t.db.propertyComplianceRollup.findMany({ where: { tenantId: other.tenant.id } });
    expect(rollups.every((r) => r.evaluatedOn.toISOString().startsWith('2027-12-31'))).toBe(true);
  });

  it('makes MAN-004 need attention: an expired gas certificate and an EICR with an open remedial', async () => {
    const { byRef } = await distribution(seeded.tenant.id, t.clock);
    const man004 = byRef.get('MAN-004')!;
    expect(['expired', 'missing']).toContain(man004.status);
    const status = (type: string) => man004.items.find((i) => i.item.type === type);
    expect(status('gas_safety')?.status).toBe('expired');
    expect(status('eicr')?.status).toBe('expiring_soon');
    expect(status('eicr')?.item.outcome).toBe('unsatisfactory');
    expect((status('eicr')?.item.remedialDueDate ?? '') > londonDate(t.clock.now())).toBe(true);
  });

  it('has a clear answer to "which gas safety certificates have expired?"', async () => {
    const { byRef } = await distribution(seeded.tenant.id, t.clock);
    const expiredGas = [...byRef]
      .filter(([, e]) => e.items.some((i) => i.item.type === 'gas_safety' && i.status === 'expired'))
      .map(([ref]) => ref);
    expect(expiredGas.length).toBeGreaterThanOrEqual(2);
    expect(expiredGas.length).toBeLessThanOrEqual(3);
    expect(expiredGas).toContain('MAN-004');
  });

  it('covers the portfolio shapes of the demo', async () => {
    const { properties } = await distribution(seeded.tenant.id, t.clock);
    const refs = properties.map((p) => p.ref);
    for (const prefix of ['MAN-', 'BRS-', 'LDS-', 'LON-'])
      expect(refs.some((r) => r.startsWith(prefix))).toBe(true);
    const hmos = properties.filter((p) => p.isHmo);
    expect(hmos).toHaveLength(4);
    expect(new Set(hmos.map((p) => p.hmoLicenceType))).toEqual(
      new Set(['mandatory', 'additional', 'selective']),
    );
    expect(properties.filter((p) => p.lettingStatus === 'void')).toHaveLength(1);
    expect(properties.filter((p) => p.lettingStatus === 'under_offer')).toHaveLength(1);
    expect(properties.some((p) => p.tenure === 'leasehold' && p.propertyType === 'flat')).toBe(true);
    const electric = properties.filter((p) => !p.hasGas);
    expect(electric.length).toBeGreaterThanOrEqual(3);
    for (const p of electric) expect(p.complianceItems.some((i) => i.type === 'gas_safety')).toBe(false);
    for (const p of properties) expect(p.uprn).toMatch(/^\d{8,12}$/);
  });

  it('has tenancies with deposits in every scheme, periodic and weekly ones, arrears and an unprotected deposit', async () => {
    const tenancies = await t.db.tenancy.findMany({ where: { tenantId: seeded.tenant.id } });
    expect(new Set(tenancies.map((x) => x.depositScheme).filter(Boolean))).toEqual(
      new Set(['tds', 'dps', 'mydeposits']),
    );
    expect(tenancies.some((x) => x.isPeriodic)).toBe(true);
    expect(tenancies.some((x) => x.rentFrequency === 'weekly')).toBe(true);
    const unprotected = tenancies.filter(
      (x) => x.depositPence && !x.depositProtectedAt && x.status !== 'ended',
    );
    expect(unprotected).toHaveLength(1);
    const arrears = await t.db.property.count({
      where: { tenantId: seeded.tenant.id, arrearsPence: { gt: 0 } },
    });
    expect(arrears).toBeGreaterThanOrEqual(2);
  });

  it('has deals of every type and status, some with overdue next actions', async () => {
    const deals = await t.db.deal.findMany({ where: { tenantId: seeded.tenant.id } });
    expect(new Set(deals.map((d) => d.dealType))).toEqual(
      new Set(['acquisition', 'disposal', 'letting', 'management_instruction', 'refinance']),
    );
    expect(new Set(deals.map((d) => d.status))).toEqual(new Set(['open', 'won', 'lost']));
    const today = londonDate(t.clock.now());
    const overdue = deals.filter(
      (d) => d.status === 'open' && d.nextActionDue && d.nextActionDue.toISOString().slice(0, 10) < today,
    );
    expect(overdue.length).toBeGreaterThanOrEqual(2);
  });

  it('has about forty emails over the last 72 hours, linked and within the snippet limit', async () => {
    const emails = await t.db.emailActivity.findMany({ where: { tenantId: seeded.tenant.id } });
    const now = t.clock.now().getTime();
    for (const e of emails) {
      expect(now - e.receivedAt.getTime()).toBeGreaterThan(0);
      expect(now - e.receivedAt.getTime()).toBeLessThanOrEqual(72 * 3_600_000);
      expect(e.snippet.length).toBeLessThanOrEqual(255);
    }
    const categories = new Set(emails.map((e) => e.category));
    for (const c of ['compliance', 'invoice', 'council', 'arrears', 'viewing', 'offer'])
      expect(categories).toContain(c);
    expect(emails.some((e) => e.requiresResponse)).toBe(true);
    expect(emails.some((e) => e.dealId !== null)).toBe(true);
    expect(emails.some((e) => /CP12/.test(e.snippet))).toBe(true);
    const mailboxes = await t.db.mailbox.findMany({ where: { tenantId: seeded.tenant.id } });
    const registered = new Set(mailboxes.map((m) => m.address));
    for (const e of emails) expect(registered).toContain(e.mailbox);
  });

  it('has three months of financial logs whose gross is net plus VAT', async () => {
    const logs = await t.db.financialLog.findMany({ where: { tenantId: seeded.tenant.id } });
    for (const l of logs) expect(l.grossPence).toBe(l.netPence + l.vatPence);
    const days = logs.map((l) => l.date.getTime());
    expect((Math.max(...days) - Math.min(...days)) / 86_400_000).toBeGreaterThanOrEqual(80);
    const categories = new Set(logs.map((l) => l.category));
    for (const c of ['rent_received', 'management_fee', 'repair']) expect(categories).toContain(c);
    expect(logs.some((l) => l.category === 'repair' && l.vatPence > 0)).toBe(true);
  });

  it('has proposals in every state, each with its audit trail and a record for the approved ones', async () => {
    const proposals = await t.db.proposal.findMany({
      where: { tenantId: seeded.tenant.id },
      include: { audit: { orderBy: { at: 'asc' } } },
    });
    expect(new Set(proposals.map((p) => p.status))).toEqual(
      new Set(['pending_review', 'approved', 'rejected', 'expired', 'withdrawn']),
    );
    expect(new Set(proposals.map((p) => p.kind))).toEqual(
      new Set(['deal', 'compliance_update', 'financial_log']),
    );
    const now = t.clock.now().getTime();
    for (const p of proposals) {
      expect((p.payload as { property_id?: unknown }).property_id).toEqual(expect.any(Number));
      expect(p.audit[0]).toMatchObject({ fromStatus: null, toStatus: 'pending_review' });
      if (p.status === 'pending_review') {
        expect(p.audit).toHaveLength(1);
        expect(p.expiresAt.getTime()).toBeGreaterThan(now);
      } else {
        expect(p.audit.at(-1)).toMatchObject({ fromStatus: 'pending_review', toStatus: p.status });
        expect(p.decidedAt).not.toBeNull();
      }
    }
    const approved = proposals.filter((p) => p.status === 'approved');
    for (const p of approved) expect(p.recordId).toEqual(expect.any(Number));
    const log = approved.find((p) => p.kind === 'financial_log')!;
    const record = await t.db.financialLog.findUniqueOrThrow({ where: { id: log.recordId! } });
    expect(record.sourceProposalId).toBe(log.id);
    const deal = approved.find((p) => p.kind === 'deal')!;
    expect((await t.db.deal.findUniqueOrThrow({ where: { id: deal.recordId! } })).source).toBe('proposal');
  });

  it('turns the bridge, its proposals and the review queue on, and leaves the events off', async () => {
    const flags = await t.admin.listFlags(DEMO_TENANT_SLUG);
    expect(flags).toEqual({
      assistant_external_bridge: true,
      assistant_bridge_writes: true,
      assistant_bridge_review_queue: true,
      platform_event_webhooks: false,
    });
  });

  it('is served by the bridge: the portfolio summary agrees with the rules', async () => {
    const key = await t.admin.createKey(DEMO_TENANT_SLUG);
    const res = await request(t.app)
      .get('/api/assistant-bridge/portfolio')
      .set(...bearer(key.key));
    expect(res.status).toBe(200);
    const body = expectContract(PortfolioResponse, res.body);
    expect(body.summary.properties_total).toBe(24);
    expect(body.summary.open_deals).toBe(6);
    const man004 = body.properties.find((p) => p.ref === 'MAN-004');
    expect(man004?.compliance_status).not.toBe('valid');
  });

  it('does nothing when the tenant already has properties', async () => {
    const again = await seedDemo({ db: t.db, clock: t.clock });
    expect(again.created).toBe(false);
    expect(again.tenant.id).toBe(seeded.tenant.id);
    expect(again.counts.properties).toBe(24);
    expect(await t.db.property.count({ where: { tenantId: seeded.tenant.id } })).toBe(24);
    expect(await t.db.proposal.count({ where: { tenantId: seeded.tenant.id } })).toBe(
      seeded.counts.proposals,
    );
  });
});
