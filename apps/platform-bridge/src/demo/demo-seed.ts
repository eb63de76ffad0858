import type { Clock } from '../lib/clock.ts';
import { isUniqueViolation } from '@pa/http-kit';
import type { Db, Prisma, Tx } from '../lib/db.ts';
import { PROPOSAL_BODY_OF_KIND } from '@pa/contracts';
import { createComplianceRollup } from '../features/compliance/compliance-rollup.ts';
import {
  proposalAuditTrail,
  proposalExpiresAt,
  RECORD_TYPE_OF_KIND,
} from '../features/proposals/proposal-rules.ts';
import { TENANT_FLAGS, TENANT_SLUG } from '../features/tenants/flags.ts';
import { Invalid } from '../features/tenants/tenant-admin-service.ts';
import {
  buildDemoPlan,
  DEMO_FLAGS_ON,
  DEMO_MAILBOXES,
  DEMO_TENANT_NAME,
  DEMO_TENANT_SLUG,
  type DemoPlan,
} from './demo-data.ts';
import { DEMO_KNOWLEDGE } from './demo-knowledge.ts';
import { APPROVED_REPAIR, ASSISTANT_ACTOR } from './demo-proposals.ts';

export interface DemoCounts {
  properties: number;
  tenancies: number;
  compliance_items: number;
  deals: number;
  emails: number;
  financial_logs: number;
  proposals: number;
  audit_entries: number;
  mailboxes: number;
  knowledge_documents: number;
}

export interface SeedDemoResult {
  tenant: { id: number; slug: string; name: string };
  created: boolean;
  counts: DemoCounts;
}

// Generous: the seed is a few dozen statements, but on the embedded database a CLI's transaction waits for
// the running app's single connection, and a busy machine (load 30 on 2 CPUs, seen) makes the seed itself slow:
// a slow start must only be slower, so the transaction is given minutes, not one.
const TX_OPTIONS = { maxWait: 60_000, timeout: 600_000 };

/**
 * Provisions the demo portfolio (docs/operations.md) for a tenant, creating the tenant if needed. Idempotent: a
 * tenant that already has properties is left alone (`created: false`), so the app can call this on every
 * start. Everything is written in one transaction; the compliance rollups are refreshed after it commits.
 */
export async function seedDemo(
  deps: { db: Db; clock: Clock },
  opts: { tenantSlug?: string } = {},
): Promise<SeedDemoResult> {
  const { db, clock } = deps;
  const slug = opts.tenantSlug ?? DEMO_TENANT_SLUG;
  if (!TENANT_SLUG.test(slug)) throw Invalid(`Slug "${slug}" must match ${TENANT_SLUG}.`);

  const existing = await db.tenant.findUnique({ where: { slug } });
  if (existing && (await db.property.count({ where: { tenantId: existing.id } })) > 0) {
    // A demo seeded before the corpus existed gets it once (documents are keyed, so a race adds nothing twice).
    if ((await db.knowledgeDocument.count({ where: { tenantId: existing.id } })) === 0) {
      await db.$transaction((tx) => writeKnowledge(tx, existing.id, clock.now()), TX_OPTIONS);
    }
    return {
      tenant: pick(existing),
      created: false,
      counts: await countRows(db, existing.id),
    };
  }

  const plan = buildDemoPlan(clock);
  let written: { tenant: SeedDemoResult['tenant'] } | null;
  try {
    written = await db.$transaction((tx) => writePlan(tx, slug, plan, clock.now()), TX_OPTIONS);
  } catch (err) {
    // Another process seeded the same tenant at the same moment; its copy stands.
    if (!isUniqueViolation(err)) throw err;
    written = null;
  }
  if (!written) {
    const tenant = await db.tenant.findUniqueOrThrow({ where: { slug } });
    return {
      tenant: pick(tenant),
      created: false,
      counts: await countRows(db, tenant.id),
    };
  }

  const rollup = createComplianceRollup({ db, clock });
  // the whole new portfolio, evaluated for the seed's day (and recorded as such on its summary)
  await rollup.refreshStale(written.tenant.id);
  return { tenant: written.tenant, created: true, counts: planCounts(plan) };
}

function pick(t: { id: number; slug: string; name: string }) {
  return { id: t.id, slug: t.slug, name: t.name };
}

async function writePlan(tx: Tx, slug: string, plan: DemoPlan, now: Date) {
  const tenant = await tx.tenant.upsert({
    where: { slug },
    create: { slug, name: DEMO_TENANT_NAME },
    update: {},
  });
  const tenantId = tenant.id;
  if ((await tx.property.count({ where: { tenantId } })) > 0) return null;

  // Flags an operator already set are kept; only the bridge is switched on.
  for (const flag of DEMO_FLAGS_ON) {
    await tx.tenantFlag.upsert({
      where: { tenantId_flag: { tenantId, flag } },
      create: { tenantId, flag, enabled: true },
      update: { enabled: true },
    });
  }
  await tx.tenantFlag.createMany({
    data: TENANT_FLAGS.filter((f) => !(DEMO_FLAGS_ON as readonly string[]).includes(f)).map((flag) => ({
      tenantId,
      flag,
      enabled: false,
    })),
    skipDuplicates: true,
  });
  await tx.mailbox.createMany({
    data: DEMO_MAILBOXES.map((address) => ({ tenantId, address })),
    skipDuplicates: true,
  });

  const { portfolio } = plan;
  const properties = await tx.property.createManyAndReturn({
    data: portfolio.properties.map((p) => ({ ...p, tenantId })),
    select: { id: true, ref: true },
  });
  const propertyId = new Map(properties.map((p) => [p.ref, p.id]));
  const idOf = (ref: string) => {
    const id = propertyId.get(ref);
    if (id === undefined) throw new Error(`demo: unknown property ${ref}`);
    return id;
  };

  // The trigger dated the new properties' arrears by the database's clock; the demo's history is dated by the
  // seeding clock (a test's fixed one too), so it replaces them.
  await tx.propertyArrearsDay.deleteMany({ where: { tenantId } });
  await tx.propertyArrearsDay.createMany({
    data: plan.arrears.map(({ ref, ...a }) => ({ ...a, tenantId, propertyId: idOf(ref) })),
  });

  await tx.tenancy.createMany({
    data: portfolio.tenancies.map(({ ref, ...t }) => ({
      ...t,
      tenantId,
      propertyId: idOf(ref),
    })),
  });
  const items = await tx.complianceItem.createManyAndReturn({
    data: portfolio.items.map(({ ref, ...i }) => ({
      ...i,
      tenantId,
      propertyId: idOf(ref),
    })),
    select: { id: true, propertyId: true, type: true },
  });
  const itemId = new Map(items.map((i) => [`${i.propertyId}:${i.type}`, i.id]));

  const deals = await tx.deal.createManyAndReturn({
    data: plan.deals.map(({ key: _key, ref, ...d }) => ({
      ...d,
      tenantId,
      propertyId: ref ? idOf(ref) : null,
    })),
    select: { id: true, title: true },
  });
  const dealByTitle = new Map(deals.map((d) => [d.title, d.id]));
  const dealId = new Map(plan.deals.map((d) => [d.key, dealByTitle.get(d.title)!]));

  const proposals = await tx.proposal.createManyAndReturn({
    data: plan.proposals.map((p) => {
      const record = p.record;
      // Demo data is checked against the proposal rules it stands for: only approvals create a record, of the kind's type.
      if (record && (p.status !== 'approved' || record.type !== RECORD_TYPE_OF_KIND[p.kind])) {
        throw new Error(`demo: a ${p.status} ${p.kind} proposal cannot have created a ${record.type}`);
      }
      let recordId: number | null = null;
      if (record?.type === 'deal') recordId = dealId.get(record.deal) ?? null;
      if (record?.type === 'compliance_item')
        recordId = itemId.get(`${idOf(p.ref)}:${record.complianceType}`) ?? null;
      return {
        tenantId,
        kind: p.kind,
        status: p.status,
        // The payload is what the proposal endpoint would have stored: the body, checked by its contract.
        payload: PROPOSAL_BODY_OF_KIND[p.kind].parse(
          withoutNulls({
            property_id: idOf(p.ref),
            ...p.body,
            ...(p.reviewNotes ? { review_notes: p.reviewNotes } : {}),
          }),
        ) as Prisma.InputJsonObject,
        reviewNotes: p.reviewNotes,
        propertyId: idOf(p.ref),
        submittedBy: ASSISTANT_ACTOR,
        createdAt: p.createdAt,
        expiresAt: proposalExpiresAt(p.createdAt),
        decidedAt: p.decidedAt,
        decidedBy: p.decidedBy,
        decisionNote: p.decisionNote,
        recordType: record?.type ?? null,
        recordId,
      };
    }),
    select: { id: true, kind: true, createdAt: true },
  });
  const proposalId = (p: DemoPlan['proposals'][number]) =>
    proposals.find((r) => r.kind === p.kind && r.createdAt.getTime() === p.createdAt.getTime())!.id;

  await tx.auditEntry.createMany({
    data: plan.proposals.flatMap((p) => {
      const id = proposalId(p);
      return proposalAuditTrail({ ...p, submittedBy: ASSISTANT_ACTOR }).map((step) => ({
        tenantId,
        proposalId: id,
        ...step,
      }));
    }),
  });

  // The financial log an approved proposal created points back at it, and the proposal at the log.
  const sourced = plan.proposals.find((p) => p.status === 'approved' && p.record?.type === 'financial_log');
  if (sourced) {
    const sourceProposalId = proposalId(sourced);
    const log = await tx.financialLog.create({
      data: {
        tenantId,
        propertyId: idOf(APPROVED_REPAIR.ref),
        date: plan.calendar.date(-APPROVED_REPAIR.daysAgo),
        direction: APPROVED_REPAIR.direction,
        category: APPROVED_REPAIR.category,
        netPence: APPROVED_REPAIR.netPence,
        vatPence: APPROVED_REPAIR.vatPence,
        grossPence: APPROVED_REPAIR.netPence + APPROVED_REPAIR.vatPence,
        payeeOrPayer: APPROVED_REPAIR.payeeOrPayer,
        reference: APPROVED_REPAIR.reference,
        sourceProposalId,
        createdAt: sourced.decidedAt ?? undefined,
      },
      select: { id: true },
    });
    await tx.proposal.update({
      where: { id: sourceProposalId },
      data: { recordId: log.id },
    });
  }

  await tx.financialLog.createMany({
    data: plan.finance.map(({ ref, ...f }) => ({
      ...f,
      tenantId,
      propertyId: idOf(ref),
    })),
  });
  await tx.emailActivity.createMany({
    data: plan.emails.map(({ ref, deal, ...e }) => ({
      ...e,
      tenantId,
      propertyId: ref ? idOf(ref) : null,
      dealId: deal ? (dealId.get(deal) ?? null) : null,
    })),
  });
  await writeKnowledge(tx, tenantId, now);

  return { tenant: pick(tenant) };
}

/** The demo's knowledge corpus (demo-knowledge.ts), dated back from `now`; keys already there are left alone. */
async function writeKnowledge(tx: Tx, tenantId: number, now: Date) {
  const properties = await tx.property.findMany({ where: { tenantId }, select: { id: true, ref: true } });
  const idOf = new Map(properties.map((p) => [p.ref, p.id]));
  await tx.knowledgeDocument.createMany({
    data: DEMO_KNOWLEDGE.map((d) => {
      const propertyId = d.ref === null ? null : idOf.get(d.ref);
      if (propertyId === undefined) throw new Error(`demo: unknown property ${d.ref}`);
      const updatedAt = new Date(now.getTime() - d.daysAgo * 86_400_000);
      return { tenantId, key: d.key, propertyId, kind: d.kind, title: d.title, body: d.body, updatedAt };
    }),
    skipDuplicates: true,
  });
}

function planCounts(plan: DemoPlan): DemoCounts {
  const decided = plan.proposals.filter((p) => p.status !== 'pending_review').length;
  const sourcedLogs = plan.proposals.some(
    (p) => p.status === 'approved' && p.record?.type === 'financial_log',
  )
    ? 1
    : 0;
  return {
    properties: plan.portfolio.properties.length,
    tenancies: plan.portfolio.tenancies.length,
    compliance_items: plan.portfolio.items.length,
    deals: plan.deals.length,
    emails: plan.emails.length,
    financial_logs: plan.finance.length + sourcedLogs,
    proposals: plan.proposals.length,
    audit_entries: plan.proposals.length + decided,
    mailboxes: DEMO_MAILBOXES.length,
    knowledge_documents: DEMO_KNOWLEDGE.length,
  };
}

async function countRows(db: Db, tenantId: number): Promise<DemoCounts> {
  const where = { tenantId };
  const [
    properties,
    tenancies,
    compliance_items,
    deals,
    emails,
    financial_logs,
    proposals,
    audit_entries,
    mailboxes,
    knowledge_documents,
  ] = await Promise.all([
    db.property.count({ where }),
    db.tenancy.count({ where }),
    db.complianceItem.count({ where }),
    db.deal.count({ where }),
    db.emailActivity.count({ where }),
    db.financialLog.count({ where }),
    db.proposal.count({ where }),
    db.auditEntry.count({ where }),
    db.mailbox.count({ where }),
    db.knowledgeDocument.count({ where }),
  ]);
  return {
    properties,
    tenancies,
    compliance_items,
    deals,
    emails,
    financial_logs,
    proposals,
    audit_entries,
    mailboxes,
    knowledge_documents,
  };
}

/** A body without its null members (the demo's plans write null for "not known"; a proposal body omits them). */
function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [
        k,
        v && typeof v === 'object' && !Array.isArray(v) ? withoutNulls(v as Record<string, unknown>) : v,
      ]),
  );
}
