import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { openAndMigrate } from '@pa/db-tools';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createPlatformClients } from '../clients/platform-clients.ts';
import { type Config, MIGRATIONS_DIR, REPO_ROOT } from '../config.ts';
import { summaryQueueFromConfig } from '../features/daily-summary/summary-queue.ts';
import { providersFromConfig } from '../features/providers/provider-registry.ts';
import { createPrismaClient, statementRunner } from '../lib/db.ts';
import { createGatewayMetrics } from '../lib/metrics/gateway-metrics.ts';
import { connectRedis, redactRedisUrl } from '../lib/redis.ts';
import { resolveSecretKey } from '../lib/secret-key.ts';
import type { AppDeps } from './app-deps.ts';

export interface Runtime extends AppDeps {
  /** where the database is, for the start line */
  databaseDescription: string;
  /** closes the summary queue, Redis, the Prisma client and the database (the embedded one too) */
  close(): Promise<void>;
}

// What the gateway (main.ts) and the worker process (worker.ts) both need, opened the same way: the database
// with its migrations applied, Redis if reachable, the secret key, the providers and the bridge clients.
export async function openRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const opened = await openAndMigrate({
    name: 'gateway',
    url: config.GATEWAY_DATABASE_URL,
    dataDir: path.resolve(REPO_ROOT, config.GATEWAY_DATA_DIR, 'gateway'),
    migrationsDir: MIGRATIONS_DIR,
    log: (msg) => logger.info(msg),
  });
  const db = createPrismaClient(opened.adapter);

  const redis: Redis | null = await connectRedis(config.REDIS_URL, { logger });
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
  // The summary's queue has a Redis connection of its own that keeps reconnecting: opened even while Redis is
  // down, so that the schedules can be changed (and are reconciled) as soon as it is back.
  const summaryQueue = summaryQueueFromConfig(config, logger);
  if (summaryQueue && !(await summaryQueue.whenReady(1_500))) {
    logger.warn(
      'Redis is unreachable: daily summary configuration changes are refused (503) until it is back, when the schedulers are reconciled',
    );
  }
  // this process's metrics (METRICS_ENABLED): before the bridge clients, which report their calls to them
  const metrics = createGatewayMetrics(config, { db, pool: opened.pool, queues: [summaryQueue] });
  const { platform, smokeTest } = createPlatformClients(config, metrics.bridgeCall);
  return {
    config,
    db,
    statements: statementRunner(db, opened.pool),
    logger,
    providers: providersFromConfig(config),
    redis,
    smokeTest,
    platform,
    secretKey: secret.key,
    summaryQueue,
    metrics,
    instanceId: randomUUID(),
    databaseDescription: opened.describe,
    async close() {
      await summaryQueue?.close();
      redis?.disconnect();
      await db.$disconnect();
      await opened.close();
    },
  };
}
