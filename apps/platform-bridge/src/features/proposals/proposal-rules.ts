// What a proposal is, whoever makes one (the assistant through the bridge, the demo seed, tests): its kinds, its
// states and the one move out of review, how long it waits, what an approval creates, and how the review queue
// names who acted. Kept apart from any writer so that they all follow the same rules.

export const PROPOSAL_KINDS = ['deal', 'compliance_update', 'financial_log'] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];

export const PROPOSAL_STATUSES = ['pending_review', 'approved', 'rejected', 'expired', 'withdrawn'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
export type DecidedStatus = Exclude<ProposalStatus, 'pending_review'>;

/** A proposal is decided once, out of review; every decision is final. */
export function canDecide(from: ProposalStatus, to: ProposalStatus): to is DecidedStatus {
  return from === 'pending_review' && to !== 'pending_review';
}

/** How long a proposal waits for review before the expiry sweep closes it (PROPOSAL_TTL_DAYS's default). */
export const PROPOSAL_TTL_DAYS = 14;
/** How many proposals may wait for review per tenant (PROPOSAL_PENDING_LIMIT's default). */
export const PROPOSAL_PENDING_LIMIT = 100;
export const expiredNote = (ttlDays: number) => `Not reviewed within ${ttlDays} days.`;

export function proposalExpiresAt(createdAt: Date, ttlDays: number = PROPOSAL_TTL_DAYS): Date {
  return new Date(createdAt.getTime() + ttlDays * 86_400_000);
}

/** How long an Idempotency-Key record is kept (then swept with the expired proposals). */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** The record an approved proposal of each kind creates (`proposals.record_type`); only approvals create one. */
export const RECORD_TYPE_OF_KIND = {
  deal: 'deal',
  compliance_update: 'compliance_item',
  financial_log: 'financial_log',
} as const satisfies Record<ProposalKind, string>;
export type ProposalRecordType = (typeof RECORD_TYPE_OF_KIND)[ProposalKind];

// Actors as the audit trail records them: the submitting remote key by its label, an admin by email, and the
// expiry sweep as `system`.
export const SYSTEM_ACTOR = 'system';
export const keyActor = (key: { id: number; label: string | null }) => key.label ?? `API key #${key.id}`;
export const adminActor = (email: string) => email;

export interface AuditStep {
  at: Date;
  actor: string;
  action: 'submitted' | DecidedStatus;
  fromStatus: ProposalStatus | null;
  toStatus: ProposalStatus;
  note: string | null;
}

/**
 * The audit entries a proposal's life leaves: its submission into review, then its decision when it has one. A
 * decided proposal without who and when decided it has no decision entry.
 */
export function proposalAuditTrail(p: {
  status: ProposalStatus;
  createdAt: Date;
  submittedBy: string;
  reviewNotes: string | null;
  decidedAt: Date | null;
  decidedBy: string | null;
  decisionNote: string | null;
}): AuditStep[] {
  const submitted: AuditStep = {
    at: p.createdAt,
    actor: p.submittedBy,
    action: 'submitted',
    fromStatus: null,
    toStatus: 'pending_review',
    note: p.reviewNotes,
  };
  if (!canDecide('pending_review', p.status) || !p.decidedAt || !p.decidedBy) return [submitted];
  return [
    submitted,
    {
      at: p.decidedAt,
      actor: p.decidedBy,
      action: p.status,
      fromStatus: 'pending_review',
      toStatus: p.status,
      note: p.decisionNote,
    },
  ];
}
