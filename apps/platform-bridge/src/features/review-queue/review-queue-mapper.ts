import type { AuditChannel, AuditResponse, ProposalStatus, ReviewItem } from '@pa/contracts';
import type { AuditEntry, Property, Proposal } from '../../generated/prisma/client.ts';
import { toAddress } from '../properties/property-mapper.ts';
import type { KindedBody } from '../proposals/proposal-body.ts';
import { proposalSummary } from '../proposals/proposal-summary.ts';

/**
 * A proposal as the reviewer sees it in the admin API's review queue: its stored row, its body parsed by its
 * kind, its property (undefined: none, or no longer there), and what approval would change and the warnings
 * about it.
 */
export function toReviewItem(
  row: Proposal,
  p: KindedBody,
  property: Property | undefined,
  review: Pick<ReviewItem, 'diff' | 'warnings'>,
): ReviewItem {
  return {
    proposal_id: row.id,
    kind: p.kind,
    status: row.status as ProposalStatus,
    summary: proposalSummary(p, property?.ref ?? null),
    payload: p.body,
    review_notes: row.reviewNotes,
    submitted_by: row.submittedBy,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    decided_at: row.decidedAt?.toISOString() ?? null,
    decided_by: row.decidedBy,
    decision_note: row.decisionNote,
    property: property ? { id: property.id, ref: property.ref, address: toAddress(property) } : null,
    diff: review.diff,
    warnings: review.warnings,
    record:
      row.recordType && row.recordId !== null
        ? { type: row.recordType as NonNullable<ReviewItem['record']>['type'], id: row.recordId }
        : null,
  };
}

/** An entry of a proposal's audit trail, as the admin API answers it (GET /proposals/{id}/audit). */
export function toApiAuditEntry(e: AuditEntry): AuditResponse['entries'][number] {
  return {
    at: e.at.toISOString(),
    actor: e.actor,
    action: e.action as AuditResponse['entries'][number]['action'],
    from_status: e.fromStatus as ProposalStatus | null,
    to_status: e.toStatus as ProposalStatus,
    note: e.note,
    // only the contract's channels are written (the column's default and the submissions' own)
    channel: e.channel as AuditChannel,
  };
}
