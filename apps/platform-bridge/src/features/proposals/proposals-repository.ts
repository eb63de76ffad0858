import type { Db, Tx } from '../../lib/db.ts';
import type { DecidedStatus, ProposalStatus } from './proposal-rules.ts';

// Proposals and their audit entries once submitted (reads, withdrawal, expiry), and the sweep of old Idempotency-Key
// records; the submission itself is submission-repository.ts. Every query names the tenant first, except the
// sweep's, which work through every tenant's due rows at once.

export interface NewAuditEntry {
  proposalId: number;
  at: Date;
  actor: string;
  action: string;
  fromStatus: ProposalStatus | null;
  toStatus: ProposalStatus;
  note: string | null;
}

export interface Decision {
  status: DecidedStatus;
  decidedAt: Date;
  decidedBy: string;
  decisionNote: string | null;
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
     * statement; answers their ids. SKIP LOCKED leaves rows another sweep or a decision holds, so none is expired twice.
     */
    expireDue: async (
      now: Date,
      note: string,
      actor: string,
      batch: number,
      tx: Tx | Db = db,
    ): Promise<number[]> => {
      const rows = await tx.$queryRaw<{ proposal_id: number }[]>`
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
        RETURNING proposal_id`;
      return rows.map((r) => r.proposal_id);
    },

    /** Deletes up to `batch` Idempotency-Key records created before `before`, of any tenant. */
    deleteIdempotencyKeysBefore: (before: Date, batch: number, tx: Tx | Db = db): Promise<number> =>
      tx.$executeRaw`
        DELETE FROM idempotency_keys
         WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE created_at < ${before} LIMIT ${batch})`,
  };
}
export type ProposalsRepository = ReturnType<typeof createProposalsRepository>;
