import type { Deal as ApiDeal, DealsResponse } from '@pa/contracts';
import type { Deal } from '../../generated/prisma/client.ts';
import { toDateString } from '../../lib/clock.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import type { DealsRepository } from './deals-repository.ts';

export function toApiDeal(d: Deal): ApiDeal {
  return {
    id: d.id,
    title: d.title,
    deal_type: d.dealType as ApiDeal['deal_type'],
    stage: d.stage,
    status: d.status as ApiDeal['status'],
    value_pence: d.valuePence,
    property_id: d.propertyId,
    counterparty: d.counterparty,
    expected_close_date: toDateString(d.expectedCloseDate),
    next_action: d.nextAction,
    next_action_due: toDateString(d.nextActionDue),
    source: d.source as ApiDeal['source'],
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

export function createDealsService(deps: { deals: DealsRepository }) {
  const { deals } = deps;
  return {
    async listDeals(
      tenantId: number,
      query: { status: 'open' | 'won' | 'lost' | 'all'; limit: number; cursor?: string | undefined },
    ): Promise<DealsResponse> {
      const afterId = decodeCursor('d', query.cursor);
      const rows = await deals.listPage(tenantId, { status: query.status, afterId, take: query.limit + 1 });
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return {
        deals: page.map(toApiDeal),
        next_cursor: rows.length > query.limit && last ? encodeCursor('d', last.id) : null,
      };
    },
  };
}
export type DealsService = ReturnType<typeof createDealsService>;
