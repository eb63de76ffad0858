import type { Server } from 'node:http';
import path from 'node:path';
import { openAndMigrate } from '@pa/db-tools';
import { createApp } from './app.ts';
import { loadConfig, MIGRATIONS_DIR, REPO_ROOT } from './config.ts';
import { createComplianceRollup } from './features/compliance/compliance-rollup.ts';
import { createMcpAuditRepository } from './features/mcp/mcp-audit-repository.ts';
import { createMcpAuditWriter } from './features/mcp/mcp-audit-writer.ts';
import { startRollupRefresher } from './features/compliance/rollup-refresher.ts';
import { startProposalExpiry } from './features/proposals/proposal-expiry.ts';
import { startOutboxRetention } from './features/webhooks/outbox-retention.ts';
import { startPlatformWebhookDelivery } from './features/webhooks/start-delivery.ts';
import { resolvePlatformSecretKey } from './features/webhooks/webhook-secret.ts';
import { seedDemo } from './demo/demo-seed.ts';
import { createTenantAdminService } from './features/tenants/tenant-admin-service.ts';
import { createTenantsRepository } from './features/tenants/tenants-repository.ts';
import { systemClock } from './lib/clock.ts';
import { createPrismaClient, statementRunner, statementTransaction } from './lib/db.ts';
import { connectRedis, createLogger, listen, loadOrExit, redactRedisUrl, stopOnSignals } from '@pa/http-kit';
import { metricsWarnings, metricsWhere } from '@pa/telemetry';
import { stopTracing } from '@pa/telemetry/tracing';
import { createBridgeMetrics } from './lib/metrics/bridge-metrics.ts';

// The platform-bridge process, started by main.ts once tracing is (or is not) on: reads config, opens the database
// (applying migrations), provisions the demo on first run, listens, and shuts down cleanly on SIGINT/SIGTERM.
export async function serve(): Promise<void> {
  const config = loadOrExit(loadConfig);
  const logger = createLogger('platform-bridge', config.LOG_LEVEL);
  for (const warning of metricsWarnings(config)) logger.warn(warning);

  const opened = await openAndMigrate({
    name: 'platform',
    url: config.PLATFORM_DATABASE_URL,
    dataDir: path.resolve(REPO_ROOT, config.PLATFORM_DATA_DIR, 'platform'),
    migrationsDir: MIGRATIONS_DIR,
    log: (msg) => logger.info(msg),
  });
  const db = createPrismaClient(opened.adapter);

  if (config.DEMO && (await createTenantsRepository(db).count()) === 0) {
    const started = Date.now();
    const result = await seedDemo({ db, clock: systemClock }, {});
    logger.info({ tenant: result.tenant.slug, ms: Date.now() - started }, 'provisioned the demo tenant');
  }

  // Rate-limit counters: shared through Redis when REDIS_URL is set and reachable, else in this process.
  const redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL, { logger }) : null;
  if (!config.REDIS_URL) {
    logger.info('REDIS_URL is not set: rate limits are kept in this process only');
  } else if (!redis) {
    logger.warn(
      { redis: redactRedisUrl(config.REDIS_URL) },
      'Redis is unreachable: rate limits are kept in this process only',
    );
  }

  const secretKey = resolvePlatformSecretKey(
    config.PLATFORM_SECRET_KEY,
    path.resolve(REPO_ROOT, config.PLATFORM_DATA_DIR),
  );
  if (secretKey.generated && process.env.NODE_ENV === 'production') {
    logger.warn(
      'PLATFORM_SECRET_KEY is not set: webhook secrets are encrypted with a key kept in the data directory',
    );
  }
  const webhookPolicy = {
    allowHttpLoopback: config.WEBHOOK_ALLOW_HTTP_LOOPBACK,
    internalHosts: config.WEBHOOK_INTERNAL_HOSTS,
  };

  // METRICS_ENABLED: one registry for the app and the webhook sender (lib/metrics)
  const metrics = createBridgeMetrics({
    enabled: config.METRICS_ENABLED,
    token: config.METRICS_TOKEN,
    db,
    pool: opened.pool,
  });
  const rollup = createComplianceRollup({ db, clock: systemClock });
  const mcpAudit = createMcpAuditWriter({
    repository: createMcpAuditRepository(db, statementRunner(db, opened.pool)),
    clock: systemClock,
    logger,
  });
  const app = createApp({
    db,
    statements: statementRunner(db, opened.pool),
    transactions: statementTransaction(db, opened.pool),
    logger,
    rollup,
    rateLimitPerMin: config.BRIDGE_RATE_LIMIT_PER_MIN,
    redis,
    trustProxy: config.TRUST_PROXY,
    proposalTtlDays: config.PROPOSAL_TTL_DAYS,
    proposalPendingLimit: config.PROPOSAL_PENDING_LIMIT,
    mcpAllowedOrigins: config.MCP_ALLOWED_ORIGINS,
    publicBaseUrl: config.PLATFORM_PUBLIC_URL,
    mcpDocumentationUrl: config.MCP_DOCUMENTATION_URL,
    mcpAudit,
    // the admin API adds endpoints whose secrets the senders below decrypt
    webhooks: { secretKey: secretKey.key, policy: webhookPolicy },
    metrics,
  });
  // Everything the process runs is started before it listens: once it says it listens, it is whole (a failure to
  // start, say an unreadable key file, stops it before any request is taken).
  const refresher = startRollupRefresher({ db, rollup, logger });
  const expiry = startProposalExpiry({ db, clock: systemClock, logger, ttlDays: config.PROPOSAL_TTL_DAYS });
  const webhooks = await startPlatformWebhookDelivery({
    opened,
    url: config.PLATFORM_DATABASE_URL,
    statements: statementRunner(db, opened.pool),
    secretKey: secretKey.key,
    policy: webhookPolicy,
    logger,
    clock: systemClock,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    onAttempt: metrics.webhookDelivery,
  });
  const outboxRetention = startOutboxRetention({ db, clock: systemClock, logger });
  const server: Server = await listen(app, config.PLATFORM_PORT, config.PLATFORM_HOST);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PLATFORM_PORT;
  // METRICS_PORT: /metrics without a token on a listener of its own (METRICS_HOST, loopback by default)
  const metricsListener = await metrics.listen(config.METRICS_HOST, config.METRICS_PORT, (err) =>
    logger.error({ err }, 'metrics scrape failed'),
  );

  const admin = createTenantAdminService({ db });
  const tenants = await admin.listTenants();
  const flags = await Promise.all(
    tenants.slice(0, 10).map(async (t) => {
      const f = await admin.listFlags(t.slug);
      return `${t.slug}: ${
        Object.entries(f)
          .filter(([, on]) => on)
          .map(([name]) => name)
          .join(', ') || 'no flags on'
      }`;
    }),
  );
  logger.info(
    {
      url: `http://${config.PLATFORM_HOST}:${port}`,
      database: opened.describe,
      redis: redis ? 'connected' : config.REDIS_URL ? 'unavailable' : 'not configured',
      tenants: flags,
      metrics: metricsWhere(metricsListener, {
        enabled: config.METRICS_ENABLED,
        token: config.METRICS_TOKEN,
      }),
    },
    `platform-bridge listening on http://${config.PLATFORM_HOST}:${port}`,
  );

  stopOnSignals({
    server,
    logger,
    graceMs: 10_000,
    cleanup: async () => {
      await refresher.stop();
      await expiry.stop();
      await webhooks.stop();
      await outboxRetention.stop();
      await metricsListener?.close();
      await mcpAudit.flush();
      redis?.disconnect();
      await db.$disconnect();
      await opened.close();
      // last: the spans of the shutdown itself are sent too
      await stopTracing();
    },
  });
}
