import type {
  AttentionStatus,
  PortfolioComplianceResponse,
  PropertyComplianceAttention,
} from '@pa/contracts';
import type { Clock } from '../../lib/clock.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import type { ComplianceRollup } from './compliance-rollup.ts';
import { toApiComplianceItem, toRulesItem, toRulesProperty } from './compliance-mapper.ts';
import { evaluateProperty } from './compliance-rules.ts';
import type { PortfolioComplianceRepository } from './portfolio-compliance-repository.ts';

export function createPortfolioComplianceService(deps: {
  repository: PortfolioComplianceRepository;
  rollup: ComplianceRollup;
  clock: Clock;
}) {
  const { repository, rollup, clock } = deps;

  return {
    async list(
      tenantId: number,
      query: { status: AttentionStatus[]; limit: number; cursor?: string | undefined },
    ): Promise<PortfolioComplianceResponse> {
      const afterId = decodeCursor('c', query.cursor);
      const now = clock.now();
      const today = rollup.today();
      // One extra candidate tells whether another page exists. Rollups left from an earlier London day (or
      // properties never evaluated) would choose the wrong properties: refresh them first, as the portfolio does.
      let found = await repository.candidates(tenantId, today, query.status, afterId, query.limit + 1);
      if (found.stale) {
        await rollup.refreshStale(tenantId);
        found = await repository.candidates(tenantId, today, query.status, afterId, query.limit + 1);
      }
      const ids = found.ids.slice(0, query.limit);
      const rows = ids.length ? await repository.findWithCompliance(tenantId, ids) : [];

      const wanted = new Set<string>(query.status);
      const properties: PropertyComplianceAttention[] = [];
      for (const p of rows) {
        // The same evaluation as GET /properties/{id}/compliance (properties-service.ts): the rollup only chose
        // the property; each item's verdict is the rules' own.
        const rules = toRulesProperty(p);
        const evaluation = evaluateProperty(rules, p.complianceItems.map(toRulesItem), today);
        const items = evaluation.items
          .filter((e) => wanted.has(e.status))
          .map((e) => toApiComplianceItem(e.item.row, e.status, e.daysUntilDue, rules, today));
        const missing = wanted.has('missing') ? evaluation.missing : [];
        // A property changed since its rollup was chosen may have nothing left to show.
        if (evaluation.status === 'valid' || (items.length === 0 && missing.length === 0)) continue;
        properties.push({ property_id: p.id, ref: p.ref, status: evaluation.status, items, missing });
      }

      // The cursor follows the candidates, not the properties shown, so a dropped one is not read again.
      const last = ids[ids.length - 1];
      return {
        as_of: now.toISOString(),
        status: query.status,
        properties,
        next_cursor: found.ids.length > query.limit && last !== undefined ? encodeCursor('c', last) : null,
      };
    },
  };
}
export type PortfolioComplianceService = ReturnType<typeof createPortfolioComplianceService>;
