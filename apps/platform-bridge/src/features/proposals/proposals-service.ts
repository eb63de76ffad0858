import {
  type AuditChannel,
  type ComplianceUpdateProposalBody,
  type DealProposalBody,
  type FinancialLogProposalBody,
  PROPOSAL_PATH_OF_KIND,
  type Proposal as ApiProposal,
  ProposalCreated,
  type ProposalsResponse,
} from '@pa/contracts';
import { Conflict, NotFound, RateLimited, Unprocessable } from '@pa/http-kit';
import type { Clock } from '../../lib/clock.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import type { Db } from '../../lib/db.ts';
import { bodyFingerprint, idempotencyLockId } from '../../lib/idempotency-key.ts';
import { renewalExpiry } from '../compliance/compliance-rules.ts';
import { toApiProposal } from './proposal-mapper.ts';
import {
  IDEMPOTENCY_TTL_HOURS,
  keyActor,
  type ProposalKind,
  type ProposalStatus,
  proposalExpiresAt,
} from './proposal-rules.ts';
import type { ProposalsRepository } from './proposals-repository.ts';
import type { SubmissionRepository } from './submission-repository.ts';

export type ProposalBody = DealProposalBody | ComplianceUpdateProposalBody | FinancialLogProposalBody;

export interface Submission {
  tenantId: number;
  keyId: number;
  kind: ProposalKind;
  /** the Idempotency-Key, unquoted */
  idempotencyKey: string;
  /** the body as received: what the fingerprint is taken of */
  received: unknown;
  /** the body as its contract parsed it, defaults filled in */
  body: ProposalBody;
  /** how the key reached the platform (the audit entry says it); default rest */
  channel?: AuditChannel;
}

export interface SubmitAnswer {
  status: number;
  body: ProposalCreated;
  /** true when this is the stored answer of an earlier request with the same key and body */
  replayed: boolean;
}

// Waiting for a connection under load is normal; the transaction itself is a handful of short statements.
const TX_OPTIONS = { maxWait: 10_000, timeout: 10_000 } as const;
/** A hint only: the quota frees up when an admin decides, the assistant withdraws, or proposals expire. */
const QUOTA_RETRY_AFTER_SECONDS = 3600;

/**
 * The payload a proposal stores: the parsed body, with a compliance update's expiry filled from its type's cycle,
 * or for a gas check done early from the deadline of the record it replaces (`currentExpiry`).
 */
function payloadOf(kind: ProposalKind, body: ProposalBody, currentExpiry: string | null): ProposalBody {
  if (kind !== 'compliance_update') return body;
  const update = body as ComplianceUpdateProposalBody;
  if (update.expiry_date !== undefined) return update;
  const expiry = renewalExpiry(update.compliance_type, update.issue_date, currentExpiry);
  return expiry === null ? update : { ...update, expiry_date: expiry };
}

export function createProposalsService(deps: {
  db: Db;
  proposals: ProposalsRepository;
  submissions: SubmissionRepository;
  clock: Clock;
  ttlDays: number;
  pendingLimit: number;
}) {
  const { db, proposals, submissions, clock, ttlDays, pendingLimit } = deps;

  async function findOrThrow(tenantId: number, id: number) {
    const p = await proposals.find(tenantId, id);
    if (!p) throw new NotFound('proposal-not-found', `There is no proposal ${id}.`);
    return p;
  }

  return {
    /**
     * Submits a proposal in one transaction: the Idempotency-Key's advisory lock (held: 409), its stored answer
     * (replayed, or 422 for another body), the property, the proposal, its audit entry, the key's record, and
     * last the tenant's quota under its lock, so that the lock is held only for the count and the commit. Nothing
     * that fails is stored, so a corrected body may be sent again with the same key.
     */
    async submit(s: Submission): Promise<SubmitAnswer> {
      const endpoint = PROPOSAL_PATH_OF_KIND[s.kind];
      const fingerprint = bodyFingerprint(s.received);
      return submissions.transaction(async (run) => {
        const lockId = idempotencyLockId(s.tenantId, endpoint, s.idempotencyKey);
        if (!(await submissions.tryLockKey(lockId, run))) {
          throw new Conflict(
            'idempotency-key-in-flight',
            'A request with this Idempotency-Key is still being processed; retry once it has finished.',
          );
        }
        const now = clock.now();
        const propertyId = s.body.property_id;
        const complianceType =
          s.kind === 'compliance_update' ? (s.body as ComplianceUpdateProposalBody).compliance_type : null;
        const found = await submissions.lookup(
          s.tenantId,
          { endpoint, key: s.idempotencyKey, keyId: s.keyId, propertyId, complianceType },
          run,
        );
        const payload = payloadOf(s.kind, s.body, found.currentExpiry);
        const stored = found.stored;
        if (stored && stored.createdAt.getTime() > now.getTime() - IDEMPOTENCY_TTL_HOURS * 3_600_000) {
          if (!stored.fingerprint.equals(fingerprint)) {
            throw new Unprocessable(
              'idempotency-key-reused',
              'This Idempotency-Key was used with a different body; send a fresh key for a new proposal.',
            );
          }
          // jsonb keeps keys in its own order: parsing puts them back in the contract's, so that the replay is
          // byte for byte the first answer
          return { status: stored.status, body: ProposalCreated.parse(stored.body), replayed: true };
        }
        if (propertyId !== null && !found.propertyFound) {
          throw new Unprocessable('unknown-property', `There is no property ${propertyId}.`);
        }

        const submittedBy = keyActor({ id: s.keyId, label: found.label });
        const expiresAt = proposalExpiresAt(now, ttlDays);
        const answer = {
          status: 'pending_review',
          kind: s.kind,
          created_at: now.toISOString(),
          expires_at: expiresAt.toISOString(),
        } as const;
        const id = await submissions.insert(
          s.tenantId,
          {
            kind: s.kind,
            payload,
            reviewNotes: payload.review_notes ?? null,
            propertyId,
            apiKeyId: s.keyId,
            submittedBy,
            createdAt: now,
            expiresAt,
            endpoint,
            key: s.idempotencyKey,
            fingerprint,
            status: 201,
            body: answer,
            channel: s.channel ?? 'rest',
          },
          run,
        );
        // this proposal included: more than the limit means the tenant was already at it
        if ((await submissions.lockAndCountPending(s.tenantId, pendingLimit + 1, run)) > pendingLimit) {
          throw new RateLimited(
            'proposal-quota-exceeded',
            `${pendingLimit} proposals already wait for review; more can be submitted once some are decided, withdrawn or expired.`,
            QUOTA_RETRY_AFTER_SECONDS,
          );
        }
        return { status: 201, body: { proposal_id: id, ...answer }, replayed: false };
      });
    },

    async list(
      tenantId: number,
      query: { status: ProposalStatus | 'all'; limit: number; cursor?: string | undefined },
    ): Promise<ProposalsResponse> {
      const beforeId = decodeCursor('pr', query.cursor);
      const rows = await proposals.listPage(tenantId, {
        status: query.status,
        beforeId,
        take: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return {
        proposals: page.map(toApiProposal),
        next_cursor: rows.length > query.limit && last ? encodeCursor('pr', last.id) : null,
      };
    },

    async get(tenantId: number, id: number): Promise<ApiProposal> {
      return toApiProposal(await findOrThrow(tenantId, id));
    },

    /** Withdraws a pending proposal for the key that asks; any other state is final (409 with it). */
    async withdraw(
      tenantId: number,
      keyId: number,
      id: number,
      channel: AuditChannel = 'rest',
    ): Promise<ApiProposal> {
      return db.$transaction(async (tx) => {
        const now = clock.now();
        const actor = keyActor({ id: keyId, label: await proposals.keyLabel(tenantId, keyId, tx) });
        const withdrawn = await proposals.decideIfPending(
          tenantId,
          id,
          { status: 'withdrawn', decidedAt: now, decidedBy: actor, decisionNote: null },
          tx,
        );
        if (!withdrawn) {
          const current = await proposals.find(tenantId, id, tx);
          if (!current) throw new NotFound('proposal-not-found', `There is no proposal ${id}.`);
          throw new Conflict(
            'proposal-not-pending',
            `Proposal ${id} is ${current.status}; only a proposal waiting for review can be withdrawn.`,
            { current_status: current.status },
          );
        }
        await proposals.addAuditEntry(
          tenantId,
          {
            proposalId: id,
            at: now,
            actor,
            action: 'withdrawn',
            fromStatus: 'pending_review',
            toStatus: 'withdrawn',
            note: null,
            channel,
          },
          tx,
        );
        return toApiProposal(withdrawn);
      }, TX_OPTIONS);
    },
  };
}
export type ProposalsService = ReturnType<typeof createProposalsService>;
