import type { Db, Prisma, Tx } from '../../lib/db.ts';
import type { DecidedStatus, ProposalStatus } from './proposal-rules.ts';

// Proposals, their audit entries and the Idempotency-Key records of the proposal endpoints. Every query names the
// tenant first, except the expiry sweep's, which works through every tenant's due proposals at once.

// Two-int advisory locks of this namespace serialise one tenant's quota check (the bigint locks of Idempotency-Keys
// live in a separate key space, so they never meet these).
const QUOTA_LOCK_NAMESPACE = 0x5051; // "PQ"

export interface NewProposal {
  kind: string;
  payload: Prisma.InputJsonValue;
  reviewNotes: string | null;
  propertyId: number | null;
  apiKeyId: number;
  submittedBy: string;
  createdAt: Date;
  expiresAt: Date;
}

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
    /** Takes the key's advisory lock for the rest of the transaction; false when another transaction holds it. */
    tryLockIdempotencyKey: async (_tenantId: number, lockId: bigint, tx: Tx): Promise<boolean> => {
      const [row] = await tx.$queryRaw<
        [{ locked: boolean }]
      >`SELECT pg_try_advisory_xact_lock(${lockId}) AS locked`;
      return row.locked;
    },

    findIdempotencyKey: (tenantId: number, endpoint: string, key: string, tx: Tx | Db = db) =>
      tx.idempotencyKey.findUnique({ where: { tenantId_endpoint_key: { tenantId, endpoint, key } } }),

    /** Stores the answer given to a key, replacing a record past its lifetime that the sweep has not removed yet. */
    saveIdempotencyKey: (
      tenantId: number,
      record: {
        endpoint: string;
        key: string;
        fingerprint: Uint8Array<ArrayBuffer>;
        status: number;
        body: Prisma.InputJsonValue;
        createdAt: Date;
      },
      tx: Tx | Db = db,
    ) => {
      const data = {
        fingerprint: record.fingerprint,
        responseStatus: record.status,
        responseBody: record.body,
        createdAt: record.createdAt,
      };
      return tx.idempotencyKey.upsert({
        where: { tenantId_endpoint_key: { tenantId, endpoint: record.endpoint, key: record.key } },
        create: { tenantId, endpoint: record.endpoint, key: record.key, ...data },
        update: data,
      });
    },

    /** The submitting key's label and whether the property is the tenant's, in one round trip. */
    submitterAndProperty: async (
      tenantId: number,
      keyId: number,
      propertyId: number | null,
      tx: Tx | Db = db,
    ): Promise<{ label: string | null; propertyFound: boolean }> => {
      const [row] = await tx.$queryRaw<[{ label: string | null; property_found: boolean }]>`
        SELECT (SELECT label FROM api_keys WHERE tenant_id = ${tenantId} AND id = ${keyId}) AS label,
               EXISTS (SELECT 1 FROM properties WHERE tenant_id = ${tenantId} AND id = ${propertyId ?? 0})
                 AS property_found`;
      return { label: row.label, propertyFound: row.property_found };
    },

    keyLabel: async (tenantId: number, keyId: number, tx: Tx | Db = db): Promise<string | null> =>
      (await tx.apiKey.findFirst({ where: { tenantId, id: keyId }, select: { label: true } }))?.label ?? null,

    create: (tenantId: number, p: NewProposal, tx: Tx | Db = db) =>
      tx.proposal.create({ data: { tenantId, status: 'pending_review', ...p } }),

    addAuditEntry: (tenantId: number, entry: NewAuditEntry, tx: Tx | Db = db) =>
      tx.auditEntry.create({ data: { tenantId, ...entry } }),

    /**
     * How many of the tenant's proposals wait for review, counted under the tenant's quota lock (held to the end
     * of the transaction) so that concurrent submissions count one after the other. Counts at most `upTo`.
     */
    lockAndCountPending: async (tenantId: number, upTo: number, tx: Tx): Promise<number> => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${QUOTA_LOCK_NAMESPACE}::int, ${tenantId}::int)`;
      const [row] = await tx.$queryRaw<[{ n: number }]>`
        SELECT count(*)::int AS n FROM (
          SELECT 1 FROM proposals WHERE tenant_id = ${tenantId} AND status = 'pending_review' LIMIT ${upTo}
        ) pending`;
      return row.n;
    },

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
     * statement. SKIP LOCKED leaves rows another sweep or a decision holds, so none is expired twice.
     */
    expireDue: async (
      now: Date,
      note: string,
      actor: string,
      batch: number,
      tx: Tx | Db = db,
    ): Promise<number> => {
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
      return rows.length;
    },

    /** Deletes up to `batch` Idempotency-Key records created before `before`, of any tenant. */
    deleteIdempotencyKeysBefore: (before: Date, batch: number, tx: Tx | Db = db): Promise<number> =>
      tx.$executeRaw`
        DELETE FROM idempotency_keys
         WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE created_at < ${before} LIMIT ${batch})`,
  };
}
export type ProposalsRepository = ReturnType<typeof createProposalsRepository>;
