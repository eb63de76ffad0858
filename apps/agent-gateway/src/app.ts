import { fileURLToPath } from 'node:url';
import { buildGatewayOpenApi } from '@pa/contracts';
import { AppError, notFoundHandler, problemHandler, requestId, requestLogger } from '@pa/http-kit';
import cors from 'cors';
import express, { type Express, Router } from 'express';
import helmet from 'helmet';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Config, WEB_DIR } from './config.ts';
import { createBindingRouter } from './features/binding/binding-router.ts';
import {
  type BindingService,
  createBindingService,
  type SmokeTestClient,
} from './features/binding/binding-service.ts';
import { createKeyCipher } from './features/binding/key-cipher.ts';
import { createChatRouter } from './features/chat/chat-router.ts';
import { createOpenAICompatRouter } from './features/chat/openai-compat-router.ts';
import { createChatService } from './features/chat/chat-service.ts';
import { workerChatHooks } from './features/chat/worker-hooks.ts';
import { createChatRateLimit, createStreamLimit } from './features/protection/chat-rate-limit.ts';
import type { ProviderRegistry } from './features/providers/provider-registry.ts';
import type { PlatformBridge } from './clients/platform-bridge-client.ts';
import { createSessionRepository } from './features/sessions/session-repository.ts';
import { resolveDefaultWorker } from './features/workers/default-worker.ts';
import { createWorkersRepository, type WorkersRepository } from './features/workers/workers-repository.ts';
import { createWorkersRouter } from './features/workers/workers-router.ts';
import { createWorkersService, toApiWorker } from './features/workers/workers-service.ts';
import { requireWorkspace } from './features/workers/workspace-guard.ts';
import { createWorkspacesRepository } from './features/workers/workspaces-repository.ts';
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
}

// Browser builds served from node_modules, so the page needs no CDN and the CSP can stay 'self'. The packages'
// ESM entry points are exactly their browser modules.
const VENDOR: Record<string, string> = {
  '/vendor/marked.esm.js': fileURLToPath(import.meta.resolve('marked')),
  '/vendor/purify.es.mjs': fileURLToPath(import.meta.resolve('dompurify')),
};

// /api/assistant: workers and their platform binding, scoped to the workspace named by X-Workspace-Id.
function createAssistantRouter(deps: AppDeps, workers: WorkersRepository, binding: BindingService): Router {
  const { config } = deps;
  const router = Router();
  router.use((_req, _res, next) => {
    if (!config.AI_WORKERS_ENABLED) {
      throw new AppError(
        404,
        'workers-disabled',
        'Not found',
        'Assistant workers are off (AI_WORKERS_ENABLED).',
      );
    }
    next();
  });
  router.use(requireWorkspace(createWorkspacesRepository(deps.db)));
  router.use('/workers', createWorkersRouter({ workers: createWorkersService({ workers }) }));
  router.use(
    '/workers',
    createBindingRouter({
      binding,
      bridgeEnabled: config.PLATFORM_BRIDGE_ENABLED,
    }),
  );
  return router;
}

// The gateway's Express app, built from its dependencies; main.ts and tests make it listen.
export function createApp(deps: AppDeps): Express {
  const { config, db, logger, providers, redis } = deps;
  const sessions = createSessionRepository(db, deps.statements);
  const workers = createWorkersRepository(db);
  const binding = createBindingService({
    db,
    workers,
    bridge: deps.smokeTest,
    cipher: createKeyCipher(deps.secretKey),
    logger,
  });
  const chat = createChatService({
    sessions,
    providers,
    logger,
    ...workerChatHooks({ config, workers, binding, platform: deps.platform }),
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('query parser', 'simple');
  app.use(requestId);
  app.use(requestLogger(logger));
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
      exposedHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy'],
    }),
  );
  app.use(express.json({ limit: '64kb' }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
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
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });

  if (config.WEB_ENABLED) {
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
    app.use(createChatRouter(chatRoutes));
    // What the page needs to show the settings tab: the workspace and worker the web chat talks to.
    app.get('/api/web/context', async (_req, res) => {
      const worker = config.AI_WORKERS_ENABLED
        ? await resolveDefaultWorker(workers, config.WEB_WORKER_ID)
        : null;
      res.json({ workspaceId: worker?.workspaceId ?? null, worker: worker ? toApiWorker(worker) : null });
    });
    app.use(createOpenAICompatRouter(chatRoutes));
    for (const [route, file] of Object.entries(VENDOR)) {
      app.get(route, (_req, res) => {
        res.type('text/javascript').sendFile(file);
      });
    }
    app.use(express.static(WEB_DIR, { index: 'index.html', maxAge: 0 }));
  }

  app.use('/api/assistant', createAssistantRouter(deps, workers, binding));

  app.use(notFoundHandler);
  app.use(problemHandler(logger));
  return app;
}
