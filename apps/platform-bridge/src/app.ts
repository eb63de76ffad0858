import { randomBytes } from 'node:crypto';
import { ADMIN_BASE, BRIDGE_BASE, bridgeRoutes, buildBridgeOpenApi } from '@pa/contracts';
import path from 'node:path';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createAdminRouter } from './features/admin-router.ts';
import { createApiKeyRepository } from './features/auth/api-key-repository.ts';
import { createAuthenticator } from './features/auth/authenticate.ts';
import { createBridgeRouter } from './features/bridge-router.ts';
import { type ComplianceRollup, createComplianceRollup } from './features/compliance/compliance-rollup.ts';
import { createPortfolioComplianceRepository } from './features/compliance/portfolio-compliance-repository.ts';
import { createPortfolioComplianceService } from './features/compliance/portfolio-compliance-service.ts';
import { createTenantCopiesRepository } from './features/compliance/tenant-copies-repository.ts';
import { createTenantCopiesService } from './features/compliance/tenant-copies-service.ts';
import { createDealsRepository } from './features/deals/deals-repository.ts';
import { createDealsService } from './features/deals/deals-service.ts';
import { createEmailActivityRepository } from './features/email-activity/email-activity-repository.ts';
import { createEmailActivityService } from './features/email-activity/email-activity-service.ts';
import { createKnowledgeChangesRepository } from './features/knowledge/knowledge-changes-repository.ts';
import { createKnowledgeChangesService } from './features/knowledge/knowledge-changes-service.ts';
import { createKnowledgeSearchRepository } from './features/knowledge/knowledge-search-repository.ts';
import { createKnowledgeSearchService } from './features/knowledge/knowledge-search-service.ts';
import { createMcpAuditRepository } from './features/mcp/mcp-audit-repository.ts';
import { createMcpAuditWriter, type McpAuditWriter } from './features/mcp/mcp-audit-writer.ts';
import { createMcpPropertyLookup } from './features/mcp/mcp-property-lookup.ts';
import { createProtectedResourceRouter } from './features/mcp/protected-resource-router.ts';
import { createPortfolioRepository } from './features/portfolio/portfolio-repository.ts';
import { createPortfolioService } from './features/portfolio/portfolio-service.ts';
import { createPropertiesService } from './features/properties/properties-service.ts';
import { createPropertyRepository } from './features/properties/property-repository.ts';
import { createProposalEvents } from './features/proposals/proposal-events.ts';
import { PROPOSAL_PENDING_LIMIT, PROPOSAL_TTL_DAYS } from './features/proposals/proposal-rules.ts';
import { createProposalsRepository } from './features/proposals/proposals-repository.ts';
import { createProposalsService } from './features/proposals/proposals-service.ts';
import { createSubmissionRepository } from './features/proposals/submission-repository.ts';
import { createRecordWriter } from './features/review-queue/record-writer.ts';
import { createRemoteAccessPage } from './features/review-queue/remote-access-page.ts';
import { createReviewQueuePage } from './features/review-queue/review-queue-page.ts';
import { createReviewQueueRepository } from './features/review-queue/review-queue-repository.ts';
import { createReviewQueueService } from './features/review-queue/review-queue-service.ts';
import { createSettingsSharedFiles } from './features/review-queue/settings-page.ts';
import { createRemoteAccessService } from './features/remote-access/remote-access-service.ts';
import { createTenantAdminService } from './features/tenants/tenant-admin-service.ts';
import type { AddressPolicy } from './features/webhooks/endpoint-address.ts';
import { createWebhookAdminService } from './features/webhooks/webhook-admin-service.ts';
import { REPO_ROOT } from './config.ts';
import { type BridgeMetrics, METRICS_OFF } from './lib/metrics/bridge-metrics.ts';
import { METRICS_PATH } from '@pa/telemetry';
import { type Clock, systemClock } from './lib/clock.ts';
import {
  type Db,
  type StatementRunner,
  statementRunner,
  type StatementTransaction,
  statementTransaction,
} from './lib/db.ts';
import {
  checkWithin,
  evaluateConditionalsAtOrigin,
  notFoundHandler,
  problemHandler,
  queryOnce,
  quietLog,
  registerRoute,
  requestId,
  requestLogger,
} from '@pa/http-kit';

export interface AppDeps {
  db: Db;
  logger: Logger;
  /**
   * The hot statements (authentication, the portfolio page): statementRunner(db, pool) prepared on PostgreSQL's
   * pool; by default through Prisma's raw queries.
   */
  statements?: StatementRunner;
  /** The hot write path (a proposal's submission): statementTransaction(db, pool); by default Prisma's. */
  transactions?: StatementTransaction;
  clock?: Clock;
  rateLimitPerMin?: number;
  /** shares the rate-limit counters between instances (main.ts connects it when REDIS_URL is set) */
  redis?: Redis | null;
  /** the Redis key prefix of this app's counters; default `bridge:` */
  redisPrefix?: string;
  trustProxy?: number;
  /** shared with main.ts's daily refresher, so that reads wait for its run rather than repeat it */
  rollup?: ComplianceRollup;
  /** PROPOSAL_TTL_DAYS: how long a proposal waits for review */
  proposalTtlDays?: number;
  /** PROPOSAL_PENDING_LIMIT: how many proposals may wait for review per tenant */
  proposalPendingLimit?: number;
  /** MCP_ALLOWED_ORIGINS: browser origins that may call the MCP endpoint (default none) */
  mcpAllowedOrigins?: readonly string[];
  /** PLATFORM_PUBLIC_URL: the platform's public origin; default each request's own */
  publicBaseUrl?: string;
  /** MCP_DOCUMENTATION_URL: the guide the MCP metadata names; default /docs/mcp here */
  mcpDocumentationUrl?: string;
  /** the MCP tool calls' audit (main.ts flushes it at shutdown); default one of this app's own */
  mcpAudit?: McpAuditWriter;
  /**
   * How the admin API adds signed-event endpoints: the key their secrets are encrypted with (the senders' key) and
   * the SSRF policy, as main.ts gives them to the senders. Left out (tests that send nothing, benches): a key of
   * this app alone and the strict policy, so endpoints can be added but no other process could sign for them.
   */
  webhooks?: { secretKey: Buffer; policy: AddressPolicy };
  /** Prometheus metrics (METRICS_ENABLED; lib/metrics), shared with serve.ts's webhook sender; default off */
  metrics?: BridgeMetrics;
}

// The Express app built from its dependencies; it never listens by itself (main.ts and tests do).
export function createApp(deps: AppDeps): Express {
  const { db, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const statements = deps.statements ?? statementRunner(db);
  const metrics = deps.metrics ?? METRICS_OFF;

  const properties = createPropertyRepository(db);
  const proposals = createProposalsRepository(db);
  const rollup = deps.rollup ?? createComplianceRollup({ db, clock });
  const authenticator = createAuthenticator({ keys: createApiKeyRepository(db, statements), clock, logger });
  // the per-key budget of both APIs
  const budget = {
    rateLimitPerMin: deps.rateLimitPerMin ?? 600,
    redis: deps.redis ?? null,
    redisPrefix: deps.redisPrefix ?? 'bridge:',
  };

  const app = express();
  app.disable('x-powered-by');
  // If-None-Match gives 304 whatever the request's Cache-Control (fetch adds no-cache to conditional requests).
  evaluateConditionalsAtOrigin(app);
  app.set('trust proxy', deps.trustProxy ?? 0);
  app.set('query parser', 'simple');
  app.use(requestId);
  app.use(queryOnce);
  // METRICS_ENABLED: every request counted by route (lib/metrics), from here on
  if (metrics.http) app.use(metrics.http);
  app.use(requestLogger(logger, (req) => ({ tenant: req.auth?.tenantSlug })));
  app.use(helmet());
  // Prometheus' scrape, with METRICS_TOKEN (404 without one)
  if (metrics.endpoint) app.get(METRICS_PATH, quietLog, metrics.endpoint);

  app.use(
    BRIDGE_BASE,
    createBridgeRouter({
      authenticator,
      portfolio: createPortfolioService({
        portfolio: createPortfolioRepository(db, statements),
        rollup,
        clock,
      }),
      properties: createPropertiesService({ properties, clock }),
      compliance: createPortfolioComplianceService({
        repository: createPortfolioComplianceRepository(db, statements),
        rollup,
        clock,
      }),
      copies: createTenantCopiesService({ repository: createTenantCopiesRepository(db, statements), clock }),
      deals: createDealsService({ deals: createDealsRepository(db) }),
      email: createEmailActivityService({ email: createEmailActivityRepository(db), clock }),
      proposals: createProposalsService({
        db,
        proposals,
        submissions: createSubmissionRepository(deps.transactions ?? statementTransaction(db)),
        clock,
        ttlDays: deps.proposalTtlDays ?? PROPOSAL_TTL_DAYS,
        pendingLimit: deps.proposalPendingLimit ?? PROPOSAL_PENDING_LIMIT,
      }),
      knowledge: createKnowledgeChangesService({ changes: createKnowledgeChangesRepository(db), clock }),
      knowledgeSearch: createKnowledgeSearchService({ search: createKnowledgeSearchRepository(db) }),
      mcp: {
        lookup: createMcpPropertyLookup(db),
        audit: metrics.countingToolCalls(
          deps.mcpAudit ??
            createMcpAuditWriter({ repository: createMcpAuditRepository(db, statements), clock, logger }),
        ),
        clock,
        logger,
        allowedOrigins: deps.mcpAllowedOrigins ?? [],
        publicBaseUrl: deps.publicBaseUrl,
      },
      ...budget,
    }),
  );

  // after the bridge's routes, which are by far the busiest: their requests need not pass these
  registerRoute(app, bridgeRoutes.health, (_input, _req, res) => {
    res.json({ status: 'ok' });
  });
  registerRoute(app, bridgeRoutes.ready, async (_input, _req, res) => {
    const ok = (await checkWithin(() => db.$queryRaw`SELECT 1`)) === 'ok';
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ok' : 'unavailable', checks: { database: ok ? 'ok' : 'unavailable' } });
  });
  app.use(
    createProtectedResourceRouter({
      publicBaseUrl: deps.publicBaseUrl,
      documentationUrl: deps.mcpDocumentationUrl,
      guideFile: path.join(REPO_ROOT, 'docs/mcp.md'),
    }),
  );
  const openapi = buildBridgeOpenApi();
  registerRoute(app, bridgeRoutes.openapi, (_input, _req, res) => {
    res.json(openapi);
  });

  app.use(
    ADMIN_BASE,
    createAdminRouter({
      reviewQueue: createReviewQueueService({
        queue: createReviewQueueRepository(db),
        // the app's own rollup, so that an approved compliance update refreshes the rollups it serves
        records: createRecordWriter({ rollup }),
        events: createProposalEvents({ proposals, clock }),
        clock,
      }),
      remoteAccess: createRemoteAccessService({
        tenants: createTenantAdminService({ db }),
        webhooks: createWebhookAdminService({
          db,
          secretKey: deps.webhooks?.secretKey ?? randomBytes(32),
          policy: deps.webhooks?.policy ?? { allowHttpLoopback: false },
          clock,
        }),
      }),
      authenticator,
      ...budget,
    }),
  );
  app.use(createReviewQueuePage());
  app.use(createRemoteAccessPage());
  app.use(createSettingsSharedFiles());

  app.use(notFoundHandler);
  app.use(problemHandler(logger));
  return app;
}
