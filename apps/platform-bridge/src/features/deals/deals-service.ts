import type { DealsResponse } from '@pa/contracts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import { toApiDeal } from './deal-mapper.ts';
import type { DealsRepository } from './deals-repository.ts';

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
