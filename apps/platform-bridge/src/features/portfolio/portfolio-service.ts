import type { PortfolioResponse } from '@pa/contracts';
import type { Clock } from '../../lib/clock.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import type { ComplianceRollup } from '../compliance/compliance-rollup.ts';
import { toApiSummary } from './portfolio-mapper.ts';
import type { PortfolioRepository } from './portfolio-repository.ts';

export function createPortfolioService(deps: {
  portfolio: PortfolioRepository;
  rollup: ComplianceRollup;
  clock: Clock;
}) {
  const { portfolio, rollup, clock } = deps;

  return {
    async getPortfolio(
      tenant: { id: number; slug: string; name: string },
      query: { limit: number; cursor?: string | undefined },
    ): Promise<PortfolioResponse> {
      const afterId = decodeCursor('p', query.cursor);
      const day = rollup.today();
      // The summary is maintained by triggers, so this is one statement whatever the portfolio's size; only
      // rollups left from an earlier London day (or properties never evaluated) make a read refresh them first
      // (refreshStale is shared).
      let read = await portfolio.read(tenant.id, day, afterId, query.limit);
      if (read.summary.stale !== 0) {
        await rollup.refreshStale(tenant.id);
        read = await portfolio.read(tenant.id, day, afterId, query.limit);
      }
      const { summary, page } = read;
      const last = page[page.length - 1];
      return {
        tenant: { slug: tenant.slug, name: tenant.name },
        as_of: clock.now().toISOString(),
        summary: toApiSummary(summary),
        properties: page,
        next_cursor: read.more && last ? encodeCursor('p', last.id) : null,
      };
    },
  };
}
export type PortfolioService = ReturnType<typeof createPortfolioService>;
