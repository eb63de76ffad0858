import type { Clock } from '../../lib/clock.ts';
import { londonDate } from '../../lib/clock.ts';
import type { Db, Tx } from '../../lib/db.ts';
import { refreshTenantRollups, writeRollups } from './rollup-statement.ts';

// Keeps property_compliance_rollups true for today's London date. Call `refreshProperties` in the same
// transaction that changes a property's items or tenancy; `refreshStale` brings a whole tenant up to date
// (rollup-refresher.ts calls it just after each London midnight; a read that still finds stale rows calls it).
// Both are one set-based statement (rollup-statement.ts).
export function createComplianceRollup(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  // One refresh of a tenant's stale rollups at a time: a request that finds them stale while the daily
  // refresher (or another request) is at it waits for that run instead of repeating it.
  const staleRuns = new Map<number, Promise<number>>();

  return {
    today: () => londonDate(clock.now()),
    /** in the caller's transaction `tx` if given, else in one of its own */
    refreshProperties: (tenantId: number, ids: number[], tx?: Tx) =>
      writeRollups(db, tenantId, londonDate(clock.now()), ids, tx),
    refreshStale(tenantId: number): Promise<number> {
      let run = staleRuns.get(tenantId);
      if (!run) {
        run = refreshTenantRollups(db, tenantId, londonDate(clock.now())).finally(() =>
          staleRuns.delete(tenantId),
        );
        staleRuns.set(tenantId, run);
      }
      return run;
    },
  };
}
export type ComplianceRollup = ReturnType<typeof createComplianceRollup>;
