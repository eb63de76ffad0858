import type { Logger } from 'pino';
import type { Db } from '../../lib/db.ts';
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
}) {
  const { rollup, logger } = deps;
  const tenantsRepo = createTenantsRepository(deps.db);
  let doneFor: string | undefined;
  let running: Promise<void> | undefined;

  /** Refreshes every tenant once per London date; resolves when this date's run is over. */
  function tick(): Promise<void> {
    const day = rollup.today();
    if (day === doneFor) return Promise.resolve();
    running ??= (async () => {
      try {
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
      } catch (err) {
        // tried again at the next check; reads still refresh what they find stale
        logger.error({ err }, 'refreshing compliance rollups failed');
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  void tick();
  const timer = setInterval(() => void tick(), deps.checkEveryMs ?? CHECK_EVERY_MS);
  timer.unref();
  return {
    tick,
    /** Stops checking and waits for a run in progress. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
