import type { Proposal as ApiProposal } from '@pa/contracts';
import type { Proposal } from '../../generated/prisma/client.ts';

/** A stored proposal as the bridge answers it (GET /proposals, GET and DELETE /proposals/{id}). */
export function toApiProposal(p: Proposal): ApiProposal {
  return {
    proposal_id: p.id,
    kind: p.kind as ApiProposal['kind'],
    status: p.status as ApiProposal['status'],
    created_at: p.createdAt.toISOString(),
    expires_at: p.expiresAt.toISOString(),
    decided_at: p.decidedAt?.toISOString() ?? null,
    decision_note: p.decisionNote,
    payload: p.payload as ApiProposal['payload'],
    record:
      p.recordType && p.recordId
        ? { type: p.recordType as NonNullable<ApiProposal['record']>['type'], id: p.recordId }
        : null,
  };
}

export const proposalLocation = (basePath: string, id: number) => `${basePath}/proposals/${id}`;
