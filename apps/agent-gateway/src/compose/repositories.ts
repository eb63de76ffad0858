import { createAccessRepository } from '../features/access/access-repository.ts';
import { createBindingRepository } from '../features/binding/binding-repository.ts';
import { createChannelUpdatesRepository } from '../features/channels/channel-updates-repository.ts';
import { createChannelsRepository } from '../features/channels/channels-repository.ts';
import { createPollingChannels } from '../features/channels/polling/polling-channels.ts';
import { createSummaryConfigRepository } from '../features/daily-summary/summary-config-repository.ts';
import { createSummaryRunsRepository } from '../features/daily-summary/summary-runs-repository.ts';
import { createEmbedKeysRepository } from '../features/embed/embed-keys-repository.ts';
import { createMailboxSyncRepository } from '../features/email/mailbox-sync-repository.ts';
import { createMailboxesRepository } from '../features/email/mailboxes-repository.ts';
import { createKnowledgeRepository } from '../features/knowledge/knowledge-repository.ts';
import { createKnowledgeSyncRepository } from '../features/knowledge/knowledge-sync-repository.ts';
import { createPlatformEventsRepository } from '../features/platform-events/platform-events-repository.ts';
import { createOpenTurnsRepository } from '../features/sessions/open-turns-repository.ts';
import { createSessionRepository } from '../features/sessions/session-repository.ts';
import { createDefaultWorker } from '../features/workspace/default-worker.ts';
import { createOperatorWorkers } from '../features/workspace/operator-workers.ts';
import { createWorkersRepository } from '../features/workspace/workers-repository.ts';
import { createWorkspacesRepository } from '../features/workspace/workspaces-repository.ts';
import type { Db, StatementRunner } from '../lib/db.ts';

// Every repository of the gateway, made once per process over its database: the only place that hands `db` to
// anything. Services receive the repositories they use.
export function createRepositories(
  db: Db,
  statements: StatementRunner,
  opts: { webWorkerId: string | undefined; instanceId?: string | undefined },
) {
  return {
    workspaces: createWorkspacesRepository(db),
    workers: createWorkersRepository(db),
    defaultWorker: createDefaultWorker({ db, configuredId: opts.webWorkerId }),
    operatorWorkers: createOperatorWorkers(db),
    access: createAccessRepository(db, statements),
    bindings: createBindingRepository(db),
    sessions: createSessionRepository(db, statements, opts.instanceId ?? null),
    openTurns: createOpenTurnsRepository(db),
    channels: createChannelsRepository(db),
    channelUpdates: createChannelUpdatesRepository(db),
    pollingChannels: createPollingChannels(db),
    platformEvents: createPlatformEventsRepository(db),
    summaryConfigs: createSummaryConfigRepository(db),
    summaryRuns: createSummaryRunsRepository(db),
    mailboxes: createMailboxesRepository(db),
    mailboxSync: createMailboxSyncRepository(db),
    knowledge: createKnowledgeRepository(db, statements),
    knowledgeSync: createKnowledgeSyncRepository(db),
    embedKeys: createEmbedKeysRepository(db),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;
