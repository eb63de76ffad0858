import type { OwedCopyStatus, TenantCopiesResponse, TenantCopyOwed } from '@pa/contracts';
import type { Clock } from '../../lib/clock.ts';
import { londonDate, toDateString } from '../../lib/clock.ts';
import { toApiComplianceItem, toRulesItem, toRulesProperty } from './compliance-mapper.ts';
import { evaluateItem, tenantCopy } from './compliance-rules.ts';
import type { TenantCopiesRepository } from './tenant-copies-repository.ts';
import { decodeCopyCursor, encodeCopyCursor } from './tenant-copy-cursor.ts';

// GET /compliance/tenant-copies: the statement (tenant-copies-repository.ts) chooses the page of items whose
// tenant copy is owed; each item is then shown exactly as the per-property read shows it (compliance-mapper.ts),
// its statuses judged by compliance-rules.ts.
export function createTenantCopiesService(deps: { repository: TenantCopiesRepository; clock: Clock }) {
  const { repository, clock } = deps;

  return {
    async list(
      tenantId: number,
      query: { status: OwedCopyStatus[]; limit: number; cursor?: string | undefined },
    ): Promise<TenantCopiesResponse> {
      const after = decodeCopyCursor(query.cursor);
      const now = clock.now();
      const today = londonDate(now);
      // one extra row tells whether another page exists
      const found = await repository.owed(tenantId, today, query.status, after, query.limit + 1);
      const page = found.slice(0, query.limit);
      const rows = page.length
        ? await repository.findWithProperty(
            tenantId,
            page.map((r) => r.id),
          )
        : [];
      const byId = new Map(rows.map((r) => [r.id, r]));

      const wanted = new Set<string>(query.status);
      const items: TenantCopyOwed[] = [];
      for (const { id } of page) {
        const row = byId.get(id);
        if (!row) continue; // deleted since the statement ran
        const rules = toRulesProperty(row.property);
        const rulesItem = toRulesItem(row);
        const copy = tenantCopy(
          { ...rulesItem, servedToTenantAt: toDateString(row.servedToTenantAt) },
          rules,
          today,
        );
        // an item served (or changed) since the statement ran has nothing left to show
        if (!copy.status || !wanted.has(copy.status)) continue;
        const { status, daysUntilDue } = evaluateItem(rulesItem, rules, today);
        items.push({
          property_id: row.propertyId,
          ref: row.property.ref,
          item: toApiComplianceItem(row, status, daysUntilDue, rules, today),
        });
      }

      // The cursor follows the statement's rows, not the items shown, so a dropped one is not read again.
      const last = page[page.length - 1];
      return {
        as_of: now.toISOString(),
        status: query.status,
        items,
        next_cursor:
          found.length > query.limit && last
            ? encodeCopyCursor({ propertyId: last.property_id, itemId: last.id })
            : null,
      };
    },
  };
}
export type TenantCopiesService = ReturnType<typeof createTenantCopiesService>;
