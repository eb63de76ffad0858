import type { ProposalKind, ProposalStatus, ReviewItem } from '@pa/contracts';
import type { ComplianceItem, Proposal } from '../../generated/prisma/client.ts';
import { type Clock, londonDate } from '../../lib/clock.ts';
import { toRulesProperty } from '../compliance/compliance-mapper.ts';
import { toAddress } from '../properties/property-mapper.ts';
import { type KindedBody, storedBody } from './proposal-body.ts';
import {
  complianceFieldsAfter,
  complianceFieldsOf,
  dealFields,
  diffFields,
  financialLogFields,
} from './proposal-effects.ts';
import { proposalSummary } from './proposal-summary.ts';
import type { ReviewQueueRepository } from './review-queue-repository.ts';
import { amountWindow, normaliseTitle, reviewWarnings } from './review-warnings.ts';

function diffOf(p: KindedBody, current: ComplianceItem | null): ReviewItem['diff'] {
  switch (p.kind) {
    case 'deal':
      return diffFields(null, dealFields(p.body));
    case 'financial_log':
      return diffFields(null, financialLogFields(p.body));
    case 'compliance_update':
      return diffFields(current && complianceFieldsOf(current), complianceFieldsAfter(p.body));
  }
}

// A page of proposals as the reviewer sees them (ReviewItem). The facts the diff and the warnings need (the
// properties with their items and tenancy, open deals of the same titles, recent amounts) are loaded for the whole
// page in three queries, whatever its size.
export function createReviewItems(deps: { queue: ReviewQueueRepository; clock: Clock }) {
  const { queue, clock } = deps;

  return {
    async of(tenantId: number, rows: Proposal[]): Promise<ReviewItem[]> {
      const today = londonDate(clock.now());
      const parsed = rows.map((row) => ({ row, p: storedBody(row.kind as ProposalKind, row.payload) }));
      const pending = parsed.filter(({ row }) => row.status === 'pending_review');

      const propertyIds = [...new Set(rows.flatMap((r) => (r.propertyId === null ? [] : [r.propertyId])))];
      const titles = pending.flatMap(({ p }) => (p.kind === 'deal' ? [normaliseTitle(p.body.title)] : []));
      const logProperties = pending.flatMap(({ p }) =>
        p.kind === 'financial_log' ? [p.body.property_id] : [],
      );
      const [since, until] = amountWindow(today);
      const [properties, sameTitle, amounts] = await Promise.all([
        queue.properties(tenantId, propertyIds),
        queue.openDealsTitled(tenantId, [...new Set(titles)]),
        queue.amountStats(tenantId, [...new Set(logProperties)], since, until),
      ]);
      const propertyById = new Map(properties.map((p) => [p.id, p]));

      return parsed.map(({ row, p }) => {
        const property = row.propertyId === null ? undefined : propertyById.get(row.propertyId);
        let diff: ReviewItem['diff'] = [];
        let warnings: ReviewItem['warnings'] = [];
        // What approval would change is only worked out while it can still happen.
        if (row.status === 'pending_review') {
          const current =
            p.kind === 'compliance_update'
              ? (property?.complianceItems.find((i) => i.type === p.body.compliance_type) ?? null)
              : null;
          diff = diffOf(p, current);
          warnings = reviewWarnings(p, {
            today,
            propertyMissing: row.propertyId !== null && !property,
            compliance: property && { property: toRulesProperty(property), current },
            sameTitleDeals:
              p.kind === 'deal' ? sameTitle.filter((d) => d.key === normaliseTitle(p.body.title)) : [],
            amounts:
              p.kind === 'financial_log'
                ? amounts.find((a) => a.propertyId === p.body.property_id && a.category === p.body.category)
                : undefined,
          });
        }
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
          diff,
          warnings,
          record:
            row.recordType && row.recordId !== null
              ? { type: row.recordType as NonNullable<ReviewItem['record']>['type'], id: row.recordId }
              : null,
        };
      });
    },
  };
}
