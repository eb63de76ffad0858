import type { AppDeps } from '../../app.ts';
import { createBindingService } from '../binding/binding-service.ts';
import { createKeyCipher } from '../binding/key-cipher.ts';
import { summarySchedulingOf } from '../daily-summary/summary-scheduling.ts';
import { ownEmailReaders } from '../email/worker-email-activity.ts';
import { createSessionRepository } from '../sessions/session-repository.ts';
import { createDefaultWorker } from '../workers/default-worker.ts';
import { createWorkersRepository } from '../workers/workers-repository.ts';
import { createWorkspacesRepository } from '../workers/workspaces-repository.ts';
import { createChatService } from './chat-service.ts';
import { workerChatHooks } from './worker-hooks.ts';

// The chat service with the workers' tools and memory, built once per process the same way: by the app (web chat,
// webhooks) and by the worker process (pollers), so that a turn from any channel is the same turn.
export function createGatewayChat(deps: AppDeps) {
  const { config, db, logger, providers } = deps;
  const sessions = createSessionRepository(db, deps.statements);
  const workers = createWorkersRepository(db);
  const workspaces = createWorkspacesRepository(db);
  const defaultWorker = createDefaultWorker({ db, configuredId: config.WEB_WORKER_ID });
  // binding and unbinding restore and remove the worker's daily-summary scheduler
  const summaryScheduling = summarySchedulingOf(deps);
  const binding = createBindingService({
    db,
    workers,
    bridge: deps.smokeTest,
    cipher: createKeyCipher(deps.secretKey),
    logger,
    summary: summaryScheduling,
  });
  const chat = createChatService({
    sessions,
    providers,
    logger,
    ...workerChatHooks({
      config,
      workers,
      workspaces,
      defaultWorker,
      binding,
      platform: deps.platform,
      ownEmail: ownEmailReaders(config.EMAIL_INGESTION_ENABLED, db),
    }),
  });
  return { sessions, workers, workspaces, defaultWorker, binding, chat, summaryScheduling };
}
