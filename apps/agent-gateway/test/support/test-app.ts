import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openAndMigrate, openAppDatabase } from '@pa/db-tools';
import { createEmbeddedTestDir, createTestDatabase } from '@pa/db-tools/testing';
import { createLogger, listen } from '@pa/http-kit';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createApp } from '../../src/app.ts';
import type { AppDeps } from '../../src/compose/app-deps.ts';
import { composeGateway } from '../../src/compose/gateway.ts';
import { createPlatformClients } from '../../src/clients/platform-clients.ts';
import { summaryQueueFromConfig } from '../../src/features/daily-summary/summary-queue.ts';
import { type Config, loadConfig, MIGRATIONS_DIR } from '../../src/config.ts';
import {
  type ProviderRegistry,
  providersFromConfig,
} from '../../src/features/providers/provider-registry.ts';
import { createPrismaClient, type Db, statementRunner } from '../../src/lib/db.ts';
import { createGatewayMetrics, type GatewayMetrics } from '../../src/lib/metrics/gateway-metrics.ts';
import { connectRedis } from '../../src/lib/redis.ts';

export interface TestGateway {
  app: Express;
  /** http://127.0.0.1:<port>, the app listening on a free port */
  baseUrl: string;
  server: Server;
  db: Db;
  config: Config;
  redis: Redis | null;
  providers: ProviderRegistry;
  /** the database URL, to start another instance on the same database ('' on the embedded one) */
  databaseUrl: string;
  backend: GatewayBackendName;
  /** what the app was built from: the worker process (startWorkerProcess) runs on the same */
  deps: AppDeps & { metrics: GatewayMetrics };
  close(): Promise<void>;
}

/** The two databases the gateway runs on: PostgreSQL, and the embedded PGlite of `npm start` without a URL. */
export type GatewayBackendName = 'postgres' | 'embedded';

/** For `describe.each`: each backend's name and the `backend` option of startTestGateway. */
export const GATEWAY_BACKENDS = [
  ['PostgreSQL', 'postgres'],
  ['embedded PGlite', 'embedded'],
] as const satisfies ReadonlyArray<readonly [string, GatewayBackendName]>;

/** The embedded database of the test's own, migrated, opened as main.ts opens it without a URL. */
async function openEmbeddedTestDatabase() {
  const dir = await createEmbeddedTestDir({ prefix: 'gateway-test', migrationsDir: MIGRATIONS_DIR });
  const opened = await openAndMigrate({
    name: 'gateway',
    url: undefined,
    dataDir: dir.dataDir,
    migrationsDir: MIGRATIONS_DIR,
    log: () => {},
  });
  return { opened, remove: dir.remove };
}

const uniquePrefix = () => `test:${process.pid}:${Math.random().toString(36).slice(2, 10)}:`;

/**
 * The gateway on a real PostgreSQL database (its own, unless `databaseUrl` shares one) and the real Redis
 * (REDIS_URL, default 127.0.0.1:6379) under a unique key prefix, listening on 127.0.0.1 port 0.
 * `env` sets configuration exactly as the process environment would.
 */
export async function startTestGateway(
  opts: {
    env?: Record<string, string>;
    databaseUrl?: string;
    redis?: 'required' | 'none';
    /** GATEWAY_SECRET_KEY's bytes: another instance on the same database needs the same to read its secrets */
    secretKey?: Buffer;
    /** REDIS_PREFIX: instances that must share locks and counters share it */
    redisPrefix?: string;
    /** a port of its own instead of a free one (when the configuration must name the gateway's own address) */
    port?: number;
    /** where the app logs (default: nowhere) */
    logger?: Logger;
    /** the embedded database (of its own) instead of PostgreSQL */
    backend?: GatewayBackendName;
  } = {},
): Promise<TestGateway> {
  const backend = opts.backend ?? 'postgres';
  const embedded = backend === 'embedded' ? await openEmbeddedTestDatabase() : null;
  const owned =
    opts.databaseUrl || embedded
      ? null
      : await createTestDatabase({ prefix: 'gateway_test', migrationsDir: MIGRATIONS_DIR });
  const databaseUrl = embedded ? '' : (opts.databaseUrl ?? owned!.url);
  // the summary queue's keys under a prefix of this gateway's own unless the test shares one (and cleans it)
  const ownQueuePrefix = opts.env?.SUMMARY_QUEUE_PREFIX ? null : `test-bull-${uniquePrefix().slice(5, -1)}`;
  const config = loadConfig({
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: opts.redisPrefix ?? uniquePrefix(),
    LOG_LEVEL: 'silent',
    ...(ownQueuePrefix ? { SUMMARY_QUEUE_PREFIX: ownQueuePrefix } : {}),
    ...opts.env,
  });
  let redis: Redis | null = null;
  if (opts.redis !== 'none') {
    redis = await connectRedis(config.REDIS_URL);
    if (!redis && opts.redis === 'required') {
      throw new Error(
        `Redis is not reachable at ${config.REDIS_URL}. Start it: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`,
      );
    }
  }
  // as main.ts opens it: one pool for Prisma and the named statements
  const opened =
    embedded?.opened ?? (await openAppDatabase({ name: 'gateway', url: databaseUrl, poolMax: 4 }));
  const db = createPrismaClient(opened.adapter);
  const providers = providersFromConfig(config);
  const logger = opts.logger ?? createLogger('agent-gateway', 'silent');
  const summaryQueue = summaryQueueFromConfig(config, logger);
  // as open-runtime.ts makes them (METRICS_ENABLED): before the bridge clients, which report to them
  const metrics = createGatewayMetrics(config, { db, pool: opened.pool, queues: [summaryQueue] });
  const { platform, smokeTest } = createPlatformClients(config, metrics.bridgeCall);
  const deps: AppDeps & { metrics: GatewayMetrics } = {
    config,
    db,
    statements: statementRunner(db, opened.pool),
    logger,
    providers,
    redis,
    smokeTest,
    platform,
    secretKey: opts.secretKey ?? randomBytes(32),
    summaryQueue,
    metrics,
  };
  const app = createApp(composeGateway(deps));
  const server = await listen(app, opts.port ?? 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    server,
    db,
    config,
    redis,
    providers,
    databaseUrl,
    backend,
    deps,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (summaryQueue) {
        if (ownQueuePrefix && summaryQueue.ready()) await summaryQueue.queue.obliterate({ force: true });
        await summaryQueue.close();
      }
      if (redis) {
        const keys = await redis.keys(`${config.REDIS_PREFIX}*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      }
      await db.$disconnect();
      await opened.close();
      await owned?.drop();
      embedded?.remove();
    },
  };
}
