import { fileURLToPath } from 'node:url';
import { buildGatewayOpenApi, gatewayRoutes, SUMMARY_CONFIG_BASE, WORKERS_BASE } from '@pa/contracts';
import {
  evaluateConditionalsAtOrigin,
  jsonBody,
  notFoundHandler,
  problemHandler,
  quietLog,
  registerRoute,
  requestId,
  requestLogger,
  servedQuietly,
} from '@pa/http-kit';
import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Config, WEB_DIR } from './config.ts';
import { createGatewayAccess } from './features/access/access.ts';
import type { SmokeTestClient } from './features/binding/binding-service.ts';
import { createChannels } from './features/channels/channels.ts';
import { createTelegramWebhookRouter } from './features/channels/telegram/telegram-webhook-router.ts';
import { createWhatsAppWebhookRouter } from './features/channels/whatsapp/whatsapp-webhook-router.ts';
import { createChatRouter } from './features/chat/chat-router.ts';
import { createEventNotifier } from './features/platform-events/event-notifier.ts';
import { createPlatformEventsRepository } from './features/platform-events/platform-events-repository.ts';
import {
  createPlatformEventsIngress,
  createWorkerEventsRouter,
} from './features/platform-events/platform-events-router.ts';
import { createOpenAICompatRouter } from './features/chat/openai-compat-router.ts';
import { createGatewayChat } from './features/chat/gateway-chat.ts';
import { createSummaryConfigRepository } from './features/daily-summary/summary-config-repository.ts';
import { createSummaryConfigRouter } from './features/daily-summary/summary-config-router.ts';
import { createSummaryConfigService } from './features/daily-summary/summary-config-service.ts';
import type { SummaryQueue } from './features/daily-summary/summary-queue.ts';
import { createSummaryRunsRouter } from './features/daily-summary/summary-runs-router.ts';
import { createSummaryRunsService } from './features/daily-summary/summary-runs-service.ts';
import { createSummaryRunsRepository } from './features/daily-summary/summary-runs-repository.ts';
import { createChatRateLimit, createStreamLimit } from './features/protection/chat-rate-limit.ts';
import { createSessionHistory } from './features/sessions/session-history.ts';
import { createSessionHistoryRouter } from './features/sessions/session-history-router.ts';
import type { ProviderRegistry } from './features/providers/provider-registry.ts';
import { providerErrorKind } from './features/providers/provider.ts';
import type { PlatformBridge } from './clients/platform-bridge-client.ts';
import { createSetupAttemptLimit } from './features/protection/setup-attempt-limit.ts';
import { createKeyCipher } from './features/binding/key-cipher.ts';
import { createMailboxesRouter } from './features/email/mailboxes-router.ts';
import { createMailboxesService } from './features/email/mailboxes-service.ts';
import { createAssistantRouter } from './features/workers/assistant-router.ts';
import { createWebContextRouter } from './features/workers/web-context-router.ts';
import type { Db, StatementRunner } from './lib/db.ts';

export interface AppDeps {
  config: Config;
  db: Db;
  /** the chat turn's hot statements: statementRunner(db, pool), prepared on PostgreSQL's pool */
  statements: StatementRunner;
  logger: Logger;
  providers: ProviderRegistry;
  /** null when Redis is unreachable: rate limits then live in this process's memory */
  redis: Redis | null;
  /** binding's smoke test of a candidate key (a client with a hard 5 s deadline) */
  smokeTest: SmokeTestClient;
  /** the bridge client the workers' tools read through */
  platform: PlatformBridge;
  /** 32 bytes: encrypts stored platform keys (GATEWAY_SECRET_KEY) */
  secretKey: Buffer;
  /** the daily summary's queue and job schedulers; null (or absent) while ASSISTANT_DAILY_SUMMARY_ENABLED is off */
  summaryQueue?: SummaryQueue | null;
}

// Browser builds served from node_modules, so the page needs no CDN and the CSP can stay 'self'. The packages'
// ESM entry points are exactly their browser modules.
const VENDOR: Record<string, string> = {
  '/vendor/marked.esm.js': fileURLToPath(import.meta.resolve('marked')),
  '/vendor/purify.es.mjs': fileURLToPath(import.meta.resolve('dompurify')),
};

// The gateway's Express app, built from its dependencies; main.ts and tests make it listen.
export function createApp(deps: AppDeps): Express {
  const { config, db, logger, providers, redis } = deps;
  const { workers, workspaces, defaultWorker, binding, chat, summaryScheduling } = createGatewayChat(deps);
  // failed binds, channel connections and mailbox logins, per IP and device: each calls out with typed secrets
  const setupLimit = createSetupAttemptLimit({
    failuresPerWindow: config.SETUP_FAILURES_PER_10_MIN,
    redis,
    prefix: `${config.REDIS_PREFIX}rl:`,
  });
  const history = createSessionHistory(deps.statements);

  const channels = createChannels({ config, db, redis, logger, secretKey: deps.secretKey, chat, workers });
  const access = createGatewayAccess({ config, db, statements: deps.statements, redis, logger, workspaces });

  const app = express();
  app.disable('x-powered-by');
  // If-None-Match gives 304 whatever the request's Cache-Control (fetch adds no-cache to conditional requests).
  evaluateConditionalsAtOrigin(app);
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('query parser', 'simple');
  app.use(requestId);
  app.use(requestLogger(logger));
  // DNS rebinding: only ALLOWED_HOSTS are served
  app.use(access.hostGuard);
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          connectSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          objectSrc: ["'none'"],
          frameAncestors: config.EMBED_ALLOWED_ORIGINS,
        },
      },
      // framing is governed by frame-ancestors above (EMBED_ALLOWED_ORIGINS)
      frameguard: false,
    }),
  );
  app.use(
    cors({
      origin: config.CORS_ORIGIN.includes('*') ? '*' : config.CORS_ORIGIN,
      // never credentials for `*`; listed origins may send the session cookie (the access check wants their Origin)
      credentials: !config.CORS_ORIGIN.includes('*'),
      exposedHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy'],
    }),
  );
  // who is calling, from the route table's access rules (docs/access.md); before every router
  app.use(access.middleware);

  // One per-IP budget and one open-stream count across every chat route, the OpenAI-compatible one included.
  const chatRoutes = {
    chat,
    providers,
    rateLimit: createChatRateLimit({
      perMinute: config.CHAT_RATE_LIMIT_PER_MIN,
      redis,
      prefix: `${config.REDIS_PREFIX}rl:chat:`,
    }),
    streamLimit: createStreamLimit(config.MAX_STREAMS_PER_IP),
    pingMs: config.SSE_PING_MS,
  };
  // The chat's own routes first: the busiest, and none of the routers up to the static files concerns them
  // (they parse their JSON bodies themselves).
  if (config.WEB_ENABLED) app.use(createChatRouter(chatRoutes));
  // Meta's webhook signs the raw body: its router reads the bytes itself, so it comes before the JSON parser.
  app.use(
    createWhatsAppWebhookRouter({
      channels: channels.repository,
      secrets: channels.secrets,
      conversation: channels.conversation,
      connector: channels.whatsapp,
      logger,
    }),
  );
  // The platform's signed events: also verified over the raw bytes, so before the JSON parser too.
  const platformEvents = createPlatformEventsRepository(db);
  app.use(
    createPlatformEventsIngress({
      enabled: config.PLATFORM_EVENT_WEBHOOKS,
      secret: config.PLATFORM_WEBHOOK_SECRET,
      events: platformEvents,
      notify: createEventNotifier({
        channels: channels.repository,
        secrets: channels.secrets,
        connectors: channels.connectors,
        logger,
      }),
      logger,
    }),
  );
  // the JSON bodies of the routes below (the chat router, above, parses its own)
  app.use(jsonBody);
  // pairing codes and devices
  app.use(access.router);

  registerRoute(app, gatewayRoutes.health, (_input, _req, res) => {
    res.json({ status: 'ok' });
  });
  registerRoute(app, gatewayRoutes.ready, async (_input, _req, res) => {
    const database = await db.$queryRaw`SELECT 1`.then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    );
    const checks: Record<string, 'ok' | 'unavailable'> = { database };
    // Redis is optional for chatting: reported, but only the database decides readiness.
    if (redis) checks.redis = redis.status === 'ready' ? 'ok' : 'unavailable';
    res
      .status(database === 'ok' ? 200 : 503)
      .json({ status: database === 'ok' ? 'ok' : 'unavailable', checks });
  });
  const openapi = buildGatewayOpenApi();
  registerRoute(app, gatewayRoutes.openapi, (_input, _req, res) => {
    res.json(openapi);
  });

  if (config.WEB_ENABLED) {
    app.use(createSessionHistoryRouter({ history }));
    app.use(
      createWebContextRouter({
        authMode: config.GATEWAY_AUTH,
        workers,
        workersEnabled: config.AI_WORKERS_ENABLED,
        dailySummary: config.ASSISTANT_DAILY_SUMMARY_ENABLED,
        platformEvents: config.PLATFORM_EVENT_WEBHOOKS,
        email: config.EMAIL_INGESTION_ENABLED,
        defaultWorker,
      }),
    );
    app.use(createOpenAICompatRouter(chatRoutes));
    // the page and its files: logged at debug when served (LOG_LEVEL=debug shows them), failures at info
    for (const [route, file] of Object.entries(VENDOR)) {
      app.get(route, quietLog, (_req, res) => {
        res.type('text/javascript').sendFile(file);
      });
    }
    app.use(servedQuietly(express.static(WEB_DIR, { index: 'index.html', maxAge: 0 })));
  }

  const summaryConfigs = createSummaryConfigRepository(db);
  app.use(
    SUMMARY_CONFIG_BASE,
    createSummaryConfigRouter({
      workersEnabled: config.AI_WORKERS_ENABLED,
      summaryEnabled: config.ASSISTANT_DAILY_SUMMARY_ENABLED,
      workspaces,
      summary: deps.summaryQueue
        ? createSummaryConfigService({
            db,
            workers,
            configs: summaryConfigs,
            queue: deps.summaryQueue,
            logger,
          })
        : null,
    }),
  );
  app.use(
    '/api/assistant',
    createAssistantRouter({
      workersEnabled: config.AI_WORKERS_ENABLED,
      bridgeEnabled: config.PLATFORM_BRIDGE_ENABLED,
      workers,
      workspaces,
      binding,
      channels: channels.service,
      summary: summaryScheduling,
      setupLimit,
    }),
  );
  // the daily summary's runs and run-now, behind the assistant router's gate (which has run for these paths)
  app.use(
    WORKERS_BASE,
    createSummaryRunsRouter({
      summaryEnabled: config.ASSISTANT_DAILY_SUMMARY_ENABLED,
      runs: createSummaryRunsService({
        workers,
        runs: createSummaryRunsRepository(db),
        configs: summaryConfigs,
        queue: deps.summaryQueue ?? null,
        logger,
      }),
    }),
  );
  // the workers' platform event feeds, behind the assistant router's gate (which has run for these paths)
  app.use(WORKERS_BASE, createWorkerEventsRouter({ events: platformEvents, workers }));
  // the worker's own mailboxes (EMAIL_INGESTION_ENABLED), behind the same gate
  app.use(
    WORKERS_BASE,
    createMailboxesRouter({
      enabled: config.EMAIL_INGESTION_ENABLED,
      setupLimit,
      mailboxes: createMailboxesService({
        db,
        workers,
        binding,
        platform: deps.platform,
        cipher: createKeyCipher(deps.secretKey),
        loginTimeoutMs: config.IMAP_TIMEOUT_MS,
      }),
    }),
  );
  // Telegram's and Meta's webhooks: not behind the workspace guard (the platform knows only the channel id; the
  // webhook secret authenticates it), and served with WEB_ENABLED=false too.
  app.use(
    createTelegramWebhookRouter({
      channels: channels.repository,
      conversation: channels.conversation,
      logger,
    }),
  );

  app.use(notFoundHandler);
  app.use(problemHandler(logger, { translate: providerErrorKind }));
  return app;
}
