import path from 'node:path';
import { openAndMigrate } from '@pa/db-tools';
import {
  loadConfig as loadGatewayConfig,
  MIGRATIONS_DIR as GATEWAY_MIGRATIONS,
  REPO_ROOT,
} from '../../apps/agent-gateway/src/config.ts';
import {
  type Config as PlatformConfig,
  loadConfig as loadPlatformConfig,
  MIGRATIONS_DIR as PLATFORM_MIGRATIONS,
} from '../../apps/platform-bridge/src/config.ts';
import { seedDemo } from '../../apps/platform-bridge/src/demo/demo-seed.ts';
import { createTenantsRepository } from '../../apps/platform-bridge/src/features/tenants/tenants-repository.ts';
import { systemClock } from '../../apps/platform-bridge/src/lib/clock.ts';
import { createPrismaClient, type Db as PlatformDb } from '../../apps/platform-bridge/src/lib/db.ts';
import {
  createPrismaClient as createGatewayPrismaClient,
  type Db as GatewayDb,
} from '../../apps/agent-gateway/src/lib/db.ts';
import { StepFailure } from './progress.ts';

// Before the apps start, `npm start` applies each database's migrations itself (each one named as it is applied,
// "n/N") and provisions the demo's platform data, so that these minutes are not silent and a failure is said plainly
// before any app runs. The apps still migrate at their own start (finding nothing to do) as in production.

type Note = (line: string) => void;

function configOf<T>(app: string, load: () => T): T {
  try {
    return load();
  } catch (err) {
    throw new StepFailure(
      `${app} settings`,
      err instanceof Error ? err.message : String(err),
      'Fix the variable named above (docs/configuration.md lists them all), then run npm start again.',
    );
  }
}

function failure(what: string, url: string | undefined, err: unknown): StepFailure {
  const message = err instanceof Error ? err.message : String(err);
  const hint = url
    ? 'Check that PostgreSQL runs and the URL is right, or unset the variable to use the embedded database.'
    : /in use|locked|owner/i.test(message)
      ? 'Another `npm start` (or an app) is using this data directory: stop it first, or set a different data directory.'
      : 'The embedded database lives in the data directory; its files may be damaged. Move the directory away to start afresh.';
  return new StepFailure(what, message, hint);
}

/**
 * The platform's database migrated; with the demo on and no tenant yet, the demo tenant seeded (one transaction);
 * then `demo(db, config)` on it when given.
 */
export async function preparePlatformDatabase<T>(
  env: NodeJS.ProcessEnv,
  note: Note,
  demo?: (db: PlatformDb, config: PlatformConfig) => Promise<T>,
): Promise<{ applied: number; seeded: null | { properties: number; complianceItems: number }; demo?: T }> {
  const config = configOf('platform-bridge', () => loadPlatformConfig(env));
  const { opened, applied } = await migrated('platform', config.PLATFORM_DATABASE_URL, {
    dataDir: config.PLATFORM_DATA_DIR,
    migrationsDir: PLATFORM_MIGRATIONS,
    note,
  });
  const db = createPrismaClient(opened.adapter);
  try {
    let seeded = null;
    if (config.DEMO && (await createTenantsRepository(db).count()) === 0) {
      note('seeding the demo tenant demo-lettings (one transaction: an interrupted seed leaves nothing)');
      const { counts } = await seedDemo({ db, clock: systemClock }, {});
      seeded = { properties: counts.properties, complianceItems: counts.compliance_items };
    }
    return { applied, seeded, demo: demo ? await demo(db, config) : undefined };
  } finally {
    await db.$disconnect();
    await opened.close();
  }
}

/** The gateway's database migrated (before its CLI and the app open it); with `demo`, then `demo(db)` on it. */
export async function prepareGatewayDatabase<T>(
  env: NodeJS.ProcessEnv,
  note: Note,
  demo?: (db: GatewayDb) => Promise<T>,
): Promise<{ applied: number; demo?: T }> {
  const config = configOf('agent-gateway', () => loadGatewayConfig(env));
  const { opened, applied } = await migrated('gateway', config.GATEWAY_DATABASE_URL, {
    dataDir: config.GATEWAY_DATA_DIR,
    migrationsDir: GATEWAY_MIGRATIONS,
    note,
  });
  const db = createGatewayPrismaClient(opened.adapter);
  try {
    return { applied, demo: demo ? await demo(db) : undefined };
  } finally {
    await db.$disconnect();
    await opened.close();
  }
}

/** An app's database opened (not served to the CLI) with its migrations applied, and how many it has in all. */
async function migrated(
  name: 'platform' | 'gateway',
  url: string | undefined,
  opts: { dataDir: string; migrationsDir: string; note: Note },
): Promise<{ opened: Awaited<ReturnType<typeof openAndMigrate>>; applied: number }> {
  let opened;
  try {
    opened = await openAndMigrate({
      name,
      url,
      dataDir: path.resolve(REPO_ROOT, opts.dataDir, name),
      migrationsDir: opts.migrationsDir,
      log: opts.note,
      serveSocket: false,
    });
  } catch (err) {
    throw failure(`${name} database`, url, err);
  }
  const [row] = await opened.sql.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  return { opened, applied: row?.n ?? 0 };
}
