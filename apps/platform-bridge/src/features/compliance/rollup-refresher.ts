import type { Logger } from 'pino';
import type { Db } from '../../lib/db.ts';
import { type PeriodicTask, startPeriodicTask } from '@pa/http-kit';
import { createTenantsRepository } from '../tenants/tenants-repository.ts';
import type { ComplianceRollup } from './compliance-rollup.ts';

/** How often the refresher looks whether the London date has changed. */
const CHECK_EVERY_MS = 60_000;

// Compliance is judged on the London calendar date, so every rollup goes stale at London midnight. Left to the
// first portfolio read of the day, bringing a large tenant up to date happens inside that request (about 2 s at
// 10,000 properties, 16-25 s at 100,000). This brings every tenant up to date at start and within a minute of
// each London midnight instead; reads that come meanwhile wait for the same run (refreshStale is shared).
export function startRollupRefresher(deps: {
  db: Db;
  rollup: ComplianceRollup;
  logger: Logger;
  checkEveryMs?: number;
}): PeriodicTask {
  const { rollup, logger } = deps;
  const tenantsRepo = createTenantsRepository(deps.db);
  let doneFor: string | undefined;

  // Refreshes every tenant once per London date; a failed run is tried again at the next check, and reads still
  // refresh what they find stale meanwhile.
  return startPeriodicTask({
    everyMs: deps.checkEveryMs ?? CHECK_EVERY_MS,
    onError: (err) => logger.error({ err }, 'refreshing compliance rollups failed'),
    run: async () => {
      const day = rollup.today();
      if (day === doneFor) return;
      const tenants = await tenantsRepo.list();
      for (const tenant of tenants) {
        const started = Date.now();
        const properties = await rollup.refreshStale(tenant.id);
        if (properties > 0) {
          logger.info(
            { tenant: tenant.slug, day, properties, ms: Date.now() - started },
            'compliance rollups brought up to the new London day',
          );
        }
      }
      doneFor = day;
    },
  });
}
