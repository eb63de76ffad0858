import type { AuditChannel } from '@pa/contracts';
import type { Db, Tx } from '../../lib/db.ts';
import type { DecidedStatus, ProposalKind, ProposalRecordType, ProposalStatus } from './proposal-rules.ts';

// Proposals and their audit entries once submitted (reads, withdrawal, expiry, the events of decisions), and the
// sweep of old Idempotency-Key records; the submission itself is submission-repository.ts. Every query names the
// tenant first, except the sweep's, which work through every tenant's due rows at once (and answer each row's
// tenant, so that what follows names it again).

export interface NewAuditEntry {
  proposalId: number;
  at: Date;
  actor: string;
  action: string;
  fromStatus: ProposalStatus | null;
  toStatus: ProposalStatus;
  note: string | null;
  /** how the actor reached the platform; default rest */
  channel?: AuditChannel;
}

export interface Decision {
  status: DecidedStatus;
  decidedAt: Date;
  decidedBy: string;
  decisionNote: string | null;
}

/** A proposal named with its tenant, as the events of decisions are looked up. */
export interface TenantProposal {
  tenantId: number;
  id: number;
}

/** A decided proposal as its event tells it, for a tenant whose `platform_event_webhooks` flag is on. */
export interface DecidedRow {
  tenant_id: number;
  tenant_slug: string;
  id: number;
  kind: ProposalKind;
  status: Exclude<DecidedStatus, 'withdrawn'>;
  payload: Record<string, unknown>;
  decided_at: Date | null;
  decision_note: string | null;
  record_type: ProposalRecordType | null;
  record_id: number | null;
  property_ref: string | null;
}

export function createProposalsRepository(db: Db) {
  return {
    keyLabel: async (tenantId: number, keyId: number, tx: Tx | Db = db): Promise<string | null> =>
      (await tx.apiKey.findFirst({ where: { tenantId, id: keyId }, select: { label: true } }))?.label ?? null,

    addAuditEntry: (tenantId: number, entry: NewAuditEntry, tx: Tx | Db = db) =>
      tx.auditEntry.create({ data: { tenantId, ...entry } }),

    /** One page, newest first, of ids below `beforeId` (0: from the newest). */
    listPage: (
      tenantId: number,
      page: { status: ProposalStatus | 'all'; beforeId: number; take: number },
      tx: Tx | Db = db,
    ) =>
      tx.proposal.findMany({
        where: {
          tenantId,
          ...(page.beforeId > 0 ? { id: { lt: page.beforeId } } : {}),
          ...(page.status === 'all' ? {} : { status: page.status }),
        },
        orderBy: { id: 'desc' },
        take: page.take,
      }),

    find: (tenantId: number, id: number, tx: Tx | Db = db) =>
      tx.proposal.findFirst({ where: { tenantId, id } }),

    /**
     * Decides a proposal that is still pending, in one conditional update: of two racing decisions (or a decision
     * and the expiry sweep) exactly one matches. Undefined when it was not pending (or is not the tenant's).
     */
    decideIfPending: async (tenantId: number, id: number, d: Decision, tx: Tx | Db = db) =>
      (
        await tx.proposal.updateManyAndReturn({
          where: { tenantId, id, status: 'pending_review' },
          data: d,
        })
      )[0],

    /**
     * Expires up to `batch` proposals of any tenant whose review time is over, with their audit entries, in one
     * statement; answers them with their tenants. SKIP LOCKED leaves rows another sweep or a decision holds, so
     * none is expired twice.
     */
    expireDue: async (
      now: Date,
      note: string,
      actor: string,
      batch: number,
      tx: Tx | Db = db,
    ): Promise<TenantProposal[]> => {
      const rows = await tx.$queryRaw<{ tenant_id: number; proposal_id: number }[]>`
        WITH due AS (
          SELECT id FROM proposals
           WHERE status = 'pending_review' AND expires_at <= ${now}
           ORDER BY expires_at
           LIMIT ${batch}
             FOR UPDATE SKIP LOCKED
        ), expired AS (
          UPDATE proposals p
             SET status = 'expired', decided_at = ${now}, decided_by = ${actor}, decision_note = ${note}
            FROM due
           WHERE p.id = due.id
          RETURNING p.id, p.tenant_id
        )
        INSERT INTO audit_entries (tenant_id, proposal_id, at, actor, action, from_status, to_status, note)
        SELECT tenant_id, id, ${now}, ${actor}, 'expired', 'pending_review', 'expired', ${note} FROM expired
        RETURNING tenant_id, proposal_id`;
      return rows.map((r) => ({ tenantId: r.tenant_id, id: r.proposal_id }));
    },

    /**
     * The proposals of `decided` that are approved, rejected or expired, by id, with what their events tell;
     * none of a tenant whose `platform_event_webhooks` flag is off. Each is looked up under its own tenant.
     */
    decidedForEvents: (decided: readonly TenantProposal[], tx: Tx | Db = db): Promise<DecidedRow[]> =>
      tx.$queryRaw<DecidedRow[]>`
        SELECT p.tenant_id, t.slug AS tenant_slug, p.id, p.kind, p.status, p.payload, p.decided_at, p.decision_note,
               p.record_type, p.record_id, pr.ref AS property_ref
          FROM proposals p
          JOIN tenants t ON t.id = p.tenant_id
          JOIN tenant_flags f ON f.tenant_id = p.tenant_id AND f.flag = 'platform_event_webhooks' AND f.enabled
          LEFT JOIN properties pr ON pr.id = p.property_id AND pr.tenant_id = p.tenant_id
         WHERE (p.tenant_id, p.id) IN (
                 SELECT * FROM unnest(${decided.map((d) => d.tenantId)}::int[], ${decided.map((d) => d.id)}::int[]))
           AND p.status IN ('approved', 'rejected', 'expired')
         ORDER BY p.id`,

    /** Deletes up to `batch` Idempotency-Key records created before `before`, of any tenant. */
    deleteIdempotencyKeysBefore: (before: Date, batch: number, tx: Tx | Db = db): Promise<number> =>
      tx.$executeRaw`
        DELETE FROM idempotency_keys
         WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE created_at < ${before} LIMIT ${batch})`,
  };
}
export type ProposalsRepository = ReturnType<typeof createProposalsRepository>;
