import type { Clock } from '../../lib/clock.ts';
import { fromDateString, londonDate } from '../../lib/clock.ts';
import type { Db } from '../../lib/db.ts';
import type { PropertyRepository } from '../properties/property-repository.ts';
import { toRulesItem, toRulesProperty } from './compliance-mapper.ts';
import { evaluateProperty } from './compliance-rules.ts';

const BATCH = 1000;

// Keeps property_compliance_rollups true for today's London date. Call `refreshProperties` in the same
// transaction that changes a property's items or tenancy; `refreshStale` brings a whole tenant up to date
// (rollup-refresher.ts calls it just after each London midnight; a read that still finds stale rows calls it).
export function createComplianceRollup(deps: { db: Db; properties: PropertyRepository; clock: Clock }) {
  const { db, properties, clock } = deps;

  async function refresh(tenantId: number, scope: { ids?: number[]; staleBefore?: Date }): Promise<number> {
    const today = londonDate(clock.now());
    let afterId = 0;
    let total = 0;
    for (;;) {
      const batch = await properties.forEvaluation(tenantId, scope, BATCH, afterId);
      if (batch.length === 0) break;
      const rows = batch.map((p) => {
        const e = evaluateProperty(toRulesProperty(p), p.complianceItems.map(toRulesItem), today);
        return { id: p.id, status: e.status, ...e.counts };
      });
      await db.$executeRaw`
        INSERT INTO property_compliance_rollups
               (property_id, tenant_id, status, valid, expiring_soon, expired, missing, evaluated_on)
        SELECT u.id, ${tenantId}, u.status, u.valid, u.expiring_soon, u.expired, u.missing, ${fromDateString(today)}::date
          FROM unnest(${rows.map((r) => r.id)}::int[], ${rows.map((r) => r.status)}::text[],
                      ${rows.map((r) => r.valid)}::int[], ${rows.map((r) => r.expiring_soon)}::int[],
                      ${rows.map((r) => r.expired)}::int[], ${rows.map((r) => r.missing)}::int[])
               AS u(id, status, valid, expiring_soon, expired, missing)
        ON CONFLICT (property_id) DO UPDATE
           SET status = EXCLUDED.status, valid = EXCLUDED.valid, expiring_soon = EXCLUDED.expiring_soon,
               expired = EXCLUDED.expired, missing = EXCLUDED.missing, evaluated_on = EXCLUDED.evaluated_on`;
      total += rows.length;
      afterId = batch[batch.length - 1]!.id;
      if (batch.length < BATCH) break;
    }
    return total;
  }

  // One refresh of a tenant's stale rollups at a time: a request that finds them stale while the daily
  // refresher (or another request) is at it waits for that run instead of repeating it.
  const staleRuns = new Map<number, Promise<number>>();

  return {
    today: () => londonDate(clock.now()),
    refreshProperties: (tenantId: number, ids: number[]) => refresh(tenantId, { ids }),
    refreshStale(tenantId: number): Promise<number> {
      let run = staleRuns.get(tenantId);
      if (!run) {
        run = refresh(tenantId, { staleBefore: fromDateString(londonDate(clock.now())) }).finally(() =>
          staleRuns.delete(tenantId),
        );
        staleRuns.set(tenantId, run);
      }
      return run;
    },
  };
}
export type ComplianceRollup = ReturnType<typeof createComplianceRollup>;
