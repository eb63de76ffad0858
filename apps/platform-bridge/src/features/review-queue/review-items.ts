import type { ProposalKind, ReviewItem } from '@pa/contracts';
import type { ComplianceItem, Proposal } from '../../generated/prisma/client.ts';
import { type Clock, londonDate } from '../../lib/clock.ts';
import { toRulesProperty } from '../compliance/compliance-mapper.ts';
import { type KindedBody, storedBody } from '../proposals/proposal-body.ts';
import {
  complianceFieldsAfter,
  complianceFieldsOf,
  dealFields,
  diffFields,
  financialLogFields,
} from './proposal-effects.ts';
import { toReviewItem } from './review-queue-mapper.ts';
import type { ReviewQueueRepository } from './review-queue-repository.ts';
import { amountWindow, normaliseTitle, reviewWarnings } from './review-warnings.ts';

function diffOf(p: KindedBody, current: ComplianceItem | null): ReviewItem['diff'] {
  switch (p.kind) {
    case 'deal':
      return diffFields(null, dealFields(p.body));
    case 'financial_log':
      return diffFields(null, financialLogFields(p.body));
    case 'compliance_update':
      return diffFields(current && complianceFieldsOf(current), complianceFieldsAfter(p.body, current));
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
        return toReviewItem(row, p, property, { diff, warnings });
      });
    },
  };
}
