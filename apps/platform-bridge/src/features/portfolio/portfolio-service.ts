import type { PortfolioResponse } from '@pa/contracts';
import type { Clock } from '../../lib/clock.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import type { ComplianceRollup } from '../compliance/compliance-rollup.ts';
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
      const { summary: s, page } = read;
      const last = page[page.length - 1];
      return {
        tenant: { slug: tenant.slug, name: tenant.name },
        as_of: clock.now().toISOString(),
        summary: {
          properties_total: s.properties_total,
          units_total: s.units_total,
          units_occupied: s.units_occupied,
          units_vacant: Math.max(0, s.units_total - s.units_occupied),
          occupancy_rate: s.units_total
            ? Math.round((s.units_occupied / s.units_total) * 10_000) / 10_000
            : 0,
          rent_roll_monthly_pence: s.rent_roll_monthly_pence,
          arrears_pence: s.arrears_pence,
          compliance: {
            valid: s.valid,
            expiring_soon: s.expiring_soon,
            expired: s.expired,
            missing: s.missing,
          },
          open_deals: s.open_deals,
          pipeline_value_pence: s.pipeline_value_pence,
        },
        properties: page,
        next_cursor: read.more && last ? encodeCursor('p', last.id) : null,
      };
    },
  };
}
export type PortfolioService = ReturnType<typeof createPortfolioService>;
