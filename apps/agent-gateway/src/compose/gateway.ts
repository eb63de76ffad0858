import { createGatewayAccess } from '../features/access/access.ts';
import { createBindingService } from '../features/binding/binding-service.ts';
import { createKeyCipher } from '../features/binding/key-cipher.ts';
import { createChannelSecrets } from '../features/channels/channel-secrets.ts';
import { createChannelConnectors, createChannels } from '../features/channels/channels.ts';
import { telegramUpdateHandler } from '../features/channels/polling/update-handler.ts';
import { createChatService } from '../features/chat/chat-service.ts';
import { workerChatHooks } from '../features/chat/worker-hooks.ts';
import { summaryBridgeAccess } from '../features/daily-summary/summary-bridge-access.ts';
import { writeSummaryBriefing } from '../features/daily-summary/summary-briefing.ts';
import { createSummaryConfigService } from '../features/daily-summary/summary-config-service.ts';
import { createSummaryDelivery } from '../features/daily-summary/summary-delivery.ts';
import type { SummaryProcessorDeps } from '../features/daily-summary/summary-processor.ts';
import { createSummaryRunsService } from '../features/daily-summary/summary-runs-service.ts';
import {
  createSummaryScheduling,
  startSummaryReconciler,
} from '../features/daily-summary/summary-scheduling.ts';
import { createEmbedBudgets, createEmbedIpLimit } from '../features/embed/embed-budgets.ts';
import { createEmbedKeysService } from '../features/embed/embed-keys-service.ts';
import type { MailboxSyncDeps } from '../features/email/mailbox-sync.ts';
import { createMailboxesService } from '../features/email/mailboxes-service.ts';
import { ownEmailReaders } from '../features/email/worker-email-activity.ts';
import { createKnowledgeService } from '../features/knowledge/knowledge-service.ts';
import { createKnowledgeSyncer } from '../features/knowledge/knowledge-syncer.ts';
import { createEventNotifier } from '../features/platform-events/event-notifier.ts';
import { createChatRateLimit, createStreamLimit } from '../features/protection/chat-rate-limit.ts';
import { createSetupAttemptLimit } from '../features/protection/setup-attempt-limit.ts';
import { type InstanceLease, startInstanceLease } from '../features/sessions/instance-lease.ts';
import { createSessionEdits } from '../features/sessions/session-edits.ts';
import { createSessionHistory } from '../features/sessions/session-history.ts';
import { createWorkersService } from '../features/workers/workers-service.ts';
import { METRICS_OFF } from '../lib/metrics/gateway-metrics.ts';
import type { AppDeps } from './app-deps.ts';
import { createRepositories } from './repositories.ts';

export interface ComposeOptions {
  /** how long a claim on a channel update taken in lasts (tests shorten it) */
  updateClaimMs?: number;
}

// The gateway's composition root: every repository and service built once, from what the process opened (the
// database, Redis, the secret key, the providers, the bridge clients, the config). The app (app.ts), the worker
// process (worker-process.ts) and the CLI take their parts from here, so a turn from any channel goes through the
// same chat service, tools and memory, and a stored key is opened by the one cipher.
export function composeGateway(deps: AppDeps, opts: ComposeOptions = {}) {
  const { config, logger, redis, providers, platform } = deps;
  const summaryQueue = deps.summaryQueue ?? null;
  // made with the runtime (open-runtime.ts): the bridge clients report to them too
  const metrics = deps.metrics ?? METRICS_OFF;
  const repositories = createRepositories(deps.db, deps.statements, {
    webWorkerId: config.WEB_WORKER_ID,
    instanceId: deps.instanceId,
  });
  const { workers, workspaces, defaultWorker } = repositories;
  const cipher = createKeyCipher(deps.secretKey);

  // binding and unbinding restore and remove the worker's daily-summary scheduler (null while the summary is off)
  const summaryScheduling = summaryQueue
    ? createSummaryScheduling({ queue: summaryQueue, configs: repositories.summaryConfigs, logger })
    : null;
  const binding = createBindingService({
    bindings: repositories.bindings,
    workers,
    bridge: deps.smokeTest,
    cipher,
    logger,
    summary: summaryScheduling,
    knowledge: repositories.knowledgeSync,
  });
  // the workers' copies of their tenants' knowledge corpus: synced at once on `knowledge.changed` by this process,
  // on a schedule by the worker process (worker-process.ts)
  const knowledgeSyncer = createKnowledgeSyncer({
    store: repositories.knowledgeSync,
    credentials: binding.credentials,
    bridge: platform,
    logger,
  });
  const ownEmail = ownEmailReaders(config.EMAIL_INGESTION_ENABLED, repositories.mailboxes);
  const chatHooks = workerChatHooks({
    config,
    workers,
    workspaces,
    defaultWorker,
    binding,
    platform,
    ownEmail,
    // platform-search-knowledge reads the worker's synced copy (features/knowledge)
    knowledge: repositories.knowledge,
  });
  const chat = createChatService({
    sessions: repositories.sessions,
    providers,
    logger,
    metrics,
    ...chatHooks,
  });

  const connectors = createChannelConnectors(config, logger);
  const channelSecrets = createChannelSecrets(cipher);
  const channels = createChannels({
    config,
    repository: repositories.channels,
    updates: repositories.channelUpdates,
    secrets: channelSecrets,
    connectors,
    redis,
    logger,
    chat,
    workers,
    updateClaimMs: opts.updateClaimMs,
  });
  const notifyEvent = createEventNotifier({
    channels: repositories.channels,
    secrets: channelSecrets,
    connectors,
    logger,
    knowledge: knowledgeSyncer,
  });

  const access = createGatewayAccess({ config, access: repositories.access, redis, logger, workspaces });
  // failed binds, channel connections and mailbox logins, per IP, workspace and device: each calls out with typed secrets
  const setupLimit = createSetupAttemptLimit({
    failuresPerWindow: config.SETUP_FAILURES_PER_10_MIN,
    failuresPerWorkspace: config.SETUP_FAILURES_PER_WORKSPACE_10_MIN,
    redis,
    prefix: `${config.REDIS_PREFIX}rl:`,
  });
  // One per-IP budget and one open-stream count across every chat route, the OpenAI-compatible one included.
  const chatLimits = {
    rateLimit: createChatRateLimit({
      perMinute: config.CHAT_RATE_LIMIT_PER_MIN,
      redis,
      prefix: `${config.REDIS_PREFIX}rl:chat:`,
    }),
    streamLimit: createStreamLimit(config.MAX_STREAMS_PER_IP),
  };
  // the embed keys' own budgets (per visitor, per IP and key, per workspace per UTC day), before the chat's
  const embedBudgets = createEmbedBudgets({ redis, prefix: `${config.REDIS_PREFIX}rl:embed:` });
  // and before all of them, before any key lookup: every /api/embed call per client IP
  const embedIpLimit = createEmbedIpLimit({
    perMinute: config.EMBED_RATE_LIMIT_PER_MIN,
    redis,
    prefix: `${config.REDIS_PREFIX}rl:embed-ip:`,
  });

  const imap = { timeoutMs: config.IMAP_TIMEOUT_MS, internalHosts: config.IMAP_INTERNAL_HOSTS };
  const mailboxes = createMailboxesService({
    mailboxes: repositories.mailboxes,
    workers,
    binding,
    platform,
    cipher,
    imap,
  });
  // the worker process's email sync: the rule's bridge read goes through the worker's own binding
  const mailboxSync: MailboxSyncDeps = {
    mailboxes: repositories.mailboxSync,
    cipher,
    platformPolled: mailboxes.platformPolled,
    imap,
    logger,
  };

  const summaryProcessor: SummaryProcessorDeps = {
    runs: repositories.summaryRuns,
    config: repositories.summaryConfigs.delivery,
    bridgeFor: summaryBridgeAccess({
      bridgeEnabled: config.PLATFORM_BRIDGE_ENABLED,
      credentials: binding.credentials,
      platform,
      ownEmail,
    }),
    write: writeSummaryBriefing,
    deliver: createSummaryDelivery({ channels: repositories.channels, secrets: channelSecrets, connectors }),
    logger,
  };

  return {
    deps,
    /** Prometheus metrics: the app's middleware and /metrics, the worker process's queue worker, the listener */
    metrics,
    repositories,
    cipher,
    binding,
    chat,
    chatHooks,
    chatLimits,
    embedBudgets,
    embedIpLimit,
    history: createSessionHistory(deps.statements, { ttlDays: config.SESSION_TTL_DAYS }),
    sessionEdits: createSessionEdits({
      statements: deps.statements,
      forgetContext: repositories.sessions.forgetContext,
    }),
    channels,
    /** what the pollers hand their Telegram updates to */
    updateHandler: () => telegramUpdateHandler({ channels, logger }),
    notifyEvent,
    access,
    setupLimit,
    workersService: createWorkersService({ workers, summary: summaryScheduling }),
    summaryScheduling,
    /**
     * This process's lease (before it answers any turn): its turns are closed soon after it dies. Null without an
     * instance id (a composition in a test).
     */
    startInstanceLease: async (): Promise<InstanceLease | null> =>
      deps.instanceId
        ? startInstanceLease({ id: deps.instanceId, openTurns: repositories.openTurns, logger })
        : null,
    /** the daily summary's schedulers made to match the database, now and periodically; null while it is off */
    startSummaryReconciler: () =>
      summaryScheduling && summaryQueue
        ? startSummaryReconciler({ scheduling: summaryScheduling, queue: summaryQueue, logger })
        : null,
    /** null while the daily summary is off (no queue) */
    summaryConfig: summaryQueue
      ? createSummaryConfigService({
          workers,
          configs: repositories.summaryConfigs,
          queue: summaryQueue,
          logger,
        })
      : null,
    summaryRuns: createSummaryRunsService({
      workers,
      runs: repositories.summaryRuns,
      configs: repositories.summaryConfigs,
      queue: summaryQueue,
      logger,
    }),
    summaryProcessor,
    mailboxes,
    mailboxSync,
    /** the worker's knowledge: search and status (the assistant's tool, Settings) */
    knowledge: createKnowledgeService({ repository: repositories.knowledge, syncer: knowledgeSyncer }),
    knowledgeSyncer,
    /** embed keys (docs/embedding.md): the admin routes, the CLI and the embed runtime share one cache */
    embedKeys: createEmbedKeysService({
      embedKeys: repositories.embedKeys,
      cipher,
      onTouchError: (err) => logger.warn({ err }, 'could not record an embed key’s last use'),
    }),
  };
}
export type Gateway = ReturnType<typeof composeGateway>;
