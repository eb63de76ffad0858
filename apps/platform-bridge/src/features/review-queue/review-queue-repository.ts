import type { Db, Prisma, Tx } from '../../lib/db.ts';
import { currentTenancy } from '../compliance/current-tenancy.ts';
import type { AuditStep, ProposalStatus } from '../proposals/proposal-rules.ts';
import type { QueuePosition } from './review-cursor.ts';

export interface QueuePage {
  status: ProposalStatus | 'all';
  kind: string | 'all';
  /** pending: by expiry, oldest first; otherwise by submission, newest first */
  order: 'expiry_asc' | 'created_desc';
  after: QueuePosition | null;
  take: number;
}

export interface Decision {
  status: Exclude<ProposalStatus, 'pending_review'>;
  decidedAt: Date;
  decidedBy: string;
  decisionNote: string | null;
  payload?: Prisma.InputJsonObject;
  /** the property the (edited) payload names */
  propertyId?: number | null;
  recordType?: string;
  recordId?: number;
}

export interface AmountStats {
  propertyId: number;
  category: string;
  count: number;
  median: number;
}

// The review queue's reads and the proposal's decision. Every query names the tenant first; the writes take the
// caller's transaction so that a decision, its audit entry and the record it creates commit together.
export function createReviewQueueRepository(db: Db) {
  return {
    /**
     * Runs `fn` in one transaction. Racing decisions queue on the proposal's row lock while holding a connection,
     * so they may wait longer than Prisma's default 2 s for one.
     */
    inTransaction: <T>(fn: (tx: Tx) => Promise<T>) =>
      db.$transaction(fn, { maxWait: 15_000, timeout: 20_000 }),

    listPage(tenantId: number, page: QueuePage, tx: Tx | Db = db) {
      const byExpiry = page.order === 'expiry_asc';
      const after = page.after;
      const keyset: Prisma.ProposalWhereInput | undefined = after
        ? byExpiry
          ? { OR: [{ expiresAt: { gt: after.at } }, { expiresAt: after.at, id: { gt: after.id } }] }
          : { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] }
        : undefined;
      return tx.proposal.findMany({
        where: {
          tenantId,
          ...(page.status === 'all' ? {} : { status: page.status }),
          ...(page.kind === 'all' ? {} : { kind: page.kind }),
          ...keyset,
        },
        orderBy: byExpiry ? [{ expiresAt: 'asc' }, { id: 'asc' }] : [{ createdAt: 'desc' }, { id: 'desc' }],
        take: page.take,
      });
    },

    find: (tenantId: number, id: number, tx: Tx | Db = db) =>
      tx.proposal.findFirst({ where: { tenantId, id } }),

    /**
     * Locks the proposal row until the transaction ends and returns its state: of two decisions racing, the
     * second waits here and then sees the first one's outcome.
     */
    async lock(tenantId: number, id: number, tx: Tx) {
      const rows = await tx.$queryRaw<Array<{ status: ProposalStatus; expires_at: Date; created_at: Date }>>`
        SELECT status, expires_at, created_at FROM proposals
         WHERE tenant_id = ${tenantId} AND id = ${id}
           FOR UPDATE`;
      return rows[0];
    },

    /** Records a decision on a proposal still pending; false when it no longer is. */
    async decide(tenantId: number, id: number, d: Decision, tx: Tx): Promise<boolean> {
      const { count } = await tx.proposal.updateMany({
        where: { tenantId, id, status: 'pending_review' },
        data: d,
      });
      return count === 1;
    },

    addAudit: (tenantId: number, proposalId: number, step: AuditStep, tx: Tx | Db = db) =>
      tx.auditEntry.create({ data: { tenantId, proposalId, ...step } }),

    auditOf: (tenantId: number, proposalId: number, tx: Tx | Db = db) =>
      tx.auditEntry.findMany({
        where: { tenantId, proposalId },
        orderBy: [{ at: 'asc' }, { id: 'asc' }],
      }),

    /** The properties with their current tenancy and compliance items (the facts the rules judge). */
    properties: (tenantId: number, ids: number[], tx: Tx | Db = db) =>
      tx.property.findMany({
        where: { tenantId, id: { in: ids } },
        include: { tenancies: currentTenancy, complianceItems: true },
      }),

    propertyExists: async (tenantId: number, id: number, tx: Tx | Db = db) =>
      (await tx.property.count({ where: { tenantId, id } })) === 1,

    /** Open deals whose title, lower-cased with its spaces collapsed, is one of `titles` (normalised alike). */
    openDealsTitled: (tenantId: number, titles: string[], tx: Tx | Db = db) =>
      titles.length === 0
        ? Promise.resolve([])
        : tx.$queryRaw<Array<{ id: number; title: string; stage: string; key: string }>>`
            SELECT id, title, stage, lower(btrim(regexp_replace(title, '[[:space:]]+', ' ', 'g'))) AS key
              FROM deals
             WHERE tenant_id = ${tenantId} AND status = 'open'
               AND lower(btrim(regexp_replace(title, '[[:space:]]+', ' ', 'g'))) = ANY(${titles}::text[])
             ORDER BY id`,

    /**
     * For each (property, category) among `propertyIds`: how many logs fall in (since, until] and their median
     * net amount.
     */
    amountStats: (tenantId: number, propertyIds: number[], since: string, until: string, tx: Tx | Db = db) =>
      propertyIds.length === 0
        ? Promise.resolve([])
        : tx.$queryRaw<AmountStats[]>`
            SELECT property_id AS "propertyId", category, count(*)::int AS count,
                   (percentile_cont(0.5) WITHIN GROUP (ORDER BY net_pence))::float8 AS median
              FROM financial_logs
             WHERE tenant_id = ${tenantId} AND property_id = ANY(${propertyIds}::int[])
               AND date > ${since}::date AND date <= ${until}::date
             GROUP BY property_id, category`,
  };
}
export type ReviewQueueRepository = ReturnType<typeof createReviewQueueRepository>;
