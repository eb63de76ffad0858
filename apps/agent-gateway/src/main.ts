import type { Server } from 'node:http';
import path from 'node:path';
import { openAndMigrate } from '@pa/db-tools';
import { createLogger, listen, loadOrExit, stopOnSignals } from '@pa/http-kit';
import { createApp } from './app.ts';
import { createPlatformClients } from './clients/platform-clients.ts';
import { configWarnings, loadConfig, MIGRATIONS_DIR, REPO_ROOT, withStartEnv } from './config.ts';
import { createChannelsRepository } from './features/channels/channels-repository.ts';
import { startChannelUpdateSweeper } from './features/channels/channel-update-sweeper.ts';
import { providersFromConfig } from './features/providers/provider-registry.ts';
import { createSessionRepository } from './features/sessions/session-repository.ts';
import { startOpenTurnSweeper } from './features/sessions/open-turn-sweeper.ts';
import { startSessionSweeper } from './features/sessions/session-sweeper.ts';
import { createPrismaClient, statementRunner } from './lib/db.ts';
import { connectRedis, redactRedisUrl } from './lib/redis.ts';
import { resolveSecretKey } from './lib/secret-key.ts';

// Reads config, opens the database (applying migrations) and Redis if reachable, listens, and shuts down
// cleanly on SIGINT/SIGTERM.
async function main(): Promise<void> {
  const config = loadOrExit(() => loadConfig(withStartEnv()));
  const logger = createLogger('agent-gateway', config.LOG_LEVEL);
  for (const warning of configWarnings(config)) logger.warn(warning);

  const opened = await openAndMigrate({
    name: 'gateway',
    url: config.GATEWAY_DATABASE_URL,
    dataDir: path.resolve(REPO_ROOT, config.GATEWAY_DATA_DIR, 'gateway'),
    migrationsDir: MIGRATIONS_DIR,
    log: (msg) => logger.info(msg),
  });
  const db = createPrismaClient(opened.adapter);

  const redis = await connectRedis(config.REDIS_URL, { logger });
  if (!redis) {
    logger.warn(
      { redis: redactRedisUrl(config.REDIS_URL) },
      'Redis is unreachable: chat still works, rate limits are kept in this process only',
    );
  }

  const secret = resolveSecretKey(config.GATEWAY_SECRET_KEY, config.GATEWAY_DATA_DIR);
  if (secret.generated) {
    logger.warn(
      'GATEWAY_SECRET_KEY is not set: stored platform keys are encrypted with a key kept in the data directory',
    );
  }
  const providers = providersFromConfig(config);
  const { platform, smokeTest } = createPlatformClients(config);
  const app = createApp({
    config,
    db,
    statements: statementRunner(db, opened.pool),
    logger,
    providers,
    redis,
    smokeTest,
    platform,
    secretKey: secret.key,
  });
  const server: Server = await listen(app, config.port, config.HOST);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // turns a stopped (killed) process left without a reply are closed as interrupted
  const openTurns = startOpenTurnSweeper({ db, logger });
  const stopSweeper = startSessionSweeper({
    sessions: createSessionRepository(db),
    ttlDays: config.SESSION_TTL_DAYS,
    logger,
  });
  const stopUpdateSweeper = startChannelUpdateSweeper({ channels: createChannelsRepository(db), logger });

  logger.info(
    {
      url: `http://${config.HOST}:${port}`,
      database: opened.describe,
      redis: redis ? 'connected' : 'unavailable',
      providers: providers.names(),
      default_provider: providers.defaultName,
      web: config.WEB_ENABLED,
      flags: {
        AI_WORKERS_ENABLED: config.AI_WORKERS_ENABLED,
        PLATFORM_BRIDGE_ENABLED: config.PLATFORM_BRIDGE_ENABLED,
        PLATFORM_BRIDGE_WRITES: config.PLATFORM_BRIDGE_WRITES,
      },
      platform: config.PLATFORM_BASE_URL,
      telegram: config.TELEGRAM_API_BASE_URL,
      public_url: config.PUBLIC_BASE_URL ?? null,
    },
    config.WEB_ENABLED
      ? `agent-gateway listening on http://${config.HOST}:${port} (chat UI at /)`
      : `agent-gateway listening on http://${config.HOST}:${port} (WEB_ENABLED=false: no web UI or web chat routes)`,
  );

  // Open event streams would keep the server from closing: they get 5 s, then they are cut.
  stopOnSignals({
    server,
    logger,
    graceMs: 5_000,
    cleanup: async () => {
      stopSweeper();
      stopUpdateSweeper();
      openTurns.stop();
      redis?.disconnect();
      await db.$disconnect();
      await opened.close();
    },
  });
}

main().catch((err: unknown) => {
  console.error('agent-gateway failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
