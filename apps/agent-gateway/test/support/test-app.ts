import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openAppDatabase } from '@pa/db-tools';
import { createTestDatabase } from '@pa/db-tools/testing';
import { createLogger, listen } from '@pa/http-kit';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createApp } from '../../src/app.ts';
import { createPlatformClients } from '../../src/clients/platform-clients.ts';
import { type Config, loadConfig, MIGRATIONS_DIR } from '../../src/config.ts';
import {
  type ProviderRegistry,
  providersFromConfig,
} from '../../src/features/providers/provider-registry.ts';
import { createPrismaClient, type Db, statementRunner } from '../../src/lib/db.ts';
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
  /** the database URL, to start another instance on the same database */
  databaseUrl: string;
  close(): Promise<void>;
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
    /** a port of its own instead of a free one (when the configuration must name the gateway's own address) */
    port?: number;
    /** where the app logs (default: nowhere) */
    logger?: Logger;
  } = {},
): Promise<TestGateway> {
  const owned = opts.databaseUrl
    ? null
    : await createTestDatabase({ prefix: 'gateway_test', migrationsDir: MIGRATIONS_DIR });
  const databaseUrl = opts.databaseUrl ?? owned!.url;
  const config = loadConfig({
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: uniquePrefix(),
    LOG_LEVEL: 'silent',
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
  const opened = await openAppDatabase({ name: 'gateway', url: databaseUrl, poolMax: 4 });
  const db = createPrismaClient(opened.adapter);
  const providers = providersFromConfig(config);
  const { platform, smokeTest } = createPlatformClients(config);
  const app = createApp({
    config,
    db,
    statements: statementRunner(db, opened.pool),
    logger: opts.logger ?? createLogger('agent-gateway', 'silent'),
    providers,
    redis,
    smokeTest,
    platform,
    secretKey: randomBytes(32),
  });
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
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (redis) {
        const keys = await redis.keys(`${config.REDIS_PREFIX}*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      }
      await db.$disconnect();
      await opened.close();
      await owned?.drop();
    },
  };
}
