import { fileURLToPath } from 'node:url';
import {
  buildGatewayOpenApi,
  EMBED_API_BASE,
  gatewayRoutes,
  SUMMARY_CONFIG_BASE,
  WORKERS_BASE,
} from '@pa/contracts';
import {
  checkWithin,
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
import { METRICS_PATH } from '@pa/telemetry';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Gateway } from './compose/gateway.ts';
import { WEB_DIR } from './config.ts';
import { createTelegramWebhookRouter } from './features/channels/telegram/telegram-webhook-router.ts';
import { createWhatsAppWebhookRouter } from './features/channels/whatsapp/whatsapp-webhook-router.ts';
import { createChatRouter } from './features/chat/chat-router.ts';
import { createOpenAICompatRouter } from './features/chat/openai-compat-router.ts';
import { createSummaryConfigRouter } from './features/daily-summary/summary-config-router.ts';
import { createSummaryRunsRouter } from './features/daily-summary/summary-runs-router.ts';
import { createMailboxesRouter } from './features/email/mailboxes-router.ts';
import { embedCors, embedRefusalCors } from './features/embed/embed-cors.ts';
import { createEmbedKeysRouter } from './features/embed/embed-keys-router.ts';
import { createEmbedPageRouter } from './features/embed/embed-page.ts';
import { createEmbedRouter } from './features/embed/embed-router.ts';
import {
  createPlatformEventsIngress,
  createWorkerEventsRouter,
} from './features/platform-events/platform-events-router.ts';
import { providerErrorKind } from './features/providers/provider.ts';
import { createSessionHistoryRouter } from './features/sessions/session-history-router.ts';
import { createWebContextRouter } from './features/workers/web-context-router.ts';
import { createAssistantRouter } from './routes/assistant-router.ts';

// Browser builds served from node_modules, so the page needs no CDN and the CSP can stay 'self'. The packages'
// ESM entry points are exactly their browser modules.
const VENDOR: Record<string, string> = {
  '/vendor/marked.esm.js': fileURLToPath(import.meta.resolve('marked')),
  '/vendor/purify.es.mjs': fileURLToPath(import.meta.resolve('dompurify')),
};

// The gateway's Express app: its routes over the parts the composition root built (compose/gateway.ts);
// main.ts and tests make it listen.
export function createApp(gateway: Gateway): Express {
  const { config, db, logger, providers, redis } = gateway.deps;
  const { workers, workspaces, defaultWorker, platformEvents } = gateway.repositories;
  const { binding, chat, channels, access, setupLimit, history, sessionEdits, metrics } = gateway;

  const app = express();
  app.disable('x-powered-by');
  // If-None-Match gives 304 whatever the request's Cache-Control (fetch adds no-cache to conditional requests).
  evaluateConditionalsAtOrigin(app);
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('query parser', 'simple');
  app.use(requestId);
  // METRICS_ENABLED: every request counted by route (lib/metrics), from here on
  if (metrics.http) app.use(metrics.http);
  app.use(requestLogger(logger));
  // Prometheus' scrape with METRICS_TOKEN (404 without one): before the host guard, like the health probes, since
  // a scraper calls the gateway by a container's name; the token is what guards it
  if (metrics.endpoint) app.get(METRICS_PATH, quietLog, metrics.endpoint);
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
  const corsOrigins = cors({
    origin: config.CORS_ORIGIN.includes('*') ? '*' : config.CORS_ORIGIN,
    // never credentials for `*`; listed origins may send the session cookie (the access check wants their Origin)
    credentials: !config.CORS_ORIGIN.includes('*'),
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy'],
  });
  // the embedded chat's API answers the origins of its embed keys instead of CORS_ORIGIN (docs/embedding.md)
  // (Express routes paths case-insensitively: so does this)
  const embedApi = (path: string) => {
    const p = path.toLowerCase();
    return p === EMBED_API_BASE || p.startsWith(`${EMBED_API_BASE}/`);
  };
  // first, before any key lookup (a preflight's included): the embed API's budget per client IP, whose 429 a host
  // page on a key's origin can still read (embedRefusalCors)
  if (config.WEB_ENABLED) {
    const embedKeys = gateway.embedKeys;
    app.use(EMBED_API_BASE, gateway.embedIpLimit, embedRefusalCors({ embedKeys }), embedCors({ embedKeys }));
  }
  app.use((req, res, next) => (embedApi(req.path) ? next() : corsOrigins(req, res, next)));
  // who is calling, from the route table's access rules (docs/access.md); before every router
  app.use(access.middleware);

  // One per-IP budget and one open-stream count across every chat route, the OpenAI-compatible one included.
  const chatRoutes = {
    chat,
    providers,
    ...gateway.chatLimits,
    pingMs: config.SSE_PING_MS,
    streams: metrics.enabled ? metrics : undefined,
  };
  // The chat's own routes first: the busiest, and none of the routers up to the static files concerns them
  // (they parse their JSON bodies themselves).
  if (config.WEB_ENABLED) {
    app.use(createChatRouter(chatRoutes));
    // the embedded chat's API: its own key, origin and visitor checks and budgets (features/embed)
    app.use(
      createEmbedRouter({
        embedKeys: gateway.embedKeys,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        chat,
        sessions: gateway.repositories.sessions,
        history,
        budgets: gateway.embedBudgets,
        ...gateway.chatLimits,
        pingMs: config.SSE_PING_MS,
        streams: chatRoutes.streams,
      }),
    );
  }
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
  app.use(
    createPlatformEventsIngress({
      enabled: config.PLATFORM_EVENT_WEBHOOKS,
      secret: config.PLATFORM_WEBHOOK_SECRET,
      events: platformEvents,
      notify: gateway.notifyEvent,
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
    const database = await checkWithin(() => db.$queryRaw`SELECT 1`);
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
    app.use(createSessionHistoryRouter({ history, edits: sessionEdits }));
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
    // the embed loader and the chat in embed mode, with each key's frame-ancestors (before the static files)
    app.use(createEmbedPageRouter({ embedKeys: gateway.embedKeys, webDir: WEB_DIR }));
    // the page and its files: logged at debug when served (LOG_LEVEL=debug shows them), failures at info
    for (const [route, file] of Object.entries(VENDOR)) {
      app.get(route, quietLog, (_req, res) => {
        res.type('text/javascript').sendFile(file);
      });
    }
    app.use(servedQuietly(express.static(WEB_DIR, { index: 'index.html', maxAge: 0 })));
  }

  app.use(
    SUMMARY_CONFIG_BASE,
    createSummaryConfigRouter({
      workersEnabled: config.AI_WORKERS_ENABLED,
      summaryEnabled: config.ASSISTANT_DAILY_SUMMARY_ENABLED,
      workspaces,
      summary: gateway.summaryConfig,
    }),
  );
  app.use(
    '/api/assistant',
    createAssistantRouter({
      workersEnabled: config.AI_WORKERS_ENABLED,
      bridgeEnabled: config.PLATFORM_BRIDGE_ENABLED,
      workers: gateway.workersService,
      workspaces,
      binding,
      channels: channels.service,
      setupLimit,
      knowledge: gateway.knowledge,
    }),
  );
  // the daily summary's runs and run-now, behind the assistant router's gate (which has run for these paths)
  app.use(
    WORKERS_BASE,
    createSummaryRunsRouter({
      summaryEnabled: config.ASSISTANT_DAILY_SUMMARY_ENABLED,
      runs: gateway.summaryRuns,
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
      mailboxes: gateway.mailboxes,
    }),
  );
  // the worker's embed keys (admin scope), behind the same gate
  app.use(
    WORKERS_BASE,
    createEmbedKeysRouter({ embedKeys: gateway.embedKeys, publicBaseUrl: config.PUBLIC_BASE_URL }),
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
