import { REVIEW_QUEUE_PAGE } from '@pa/contracts';
import { FeatureDisabled, NotFound } from '@pa/http-kit';
import type { PlatformBridge } from '../../clients/bridge/platform-bridge-client.ts';
import type { Config } from '../../config.ts';
import type { BindingService } from '../binding/binding-service.ts';
import type { OwnEmailReader } from '../email/worker-email-activity.ts';
import { EMPTY_TOOLBOX, type Toolbox } from '../tools/toolbox.ts';
import type { KnowledgeSearch } from '../tools/knowledge-tool.ts';
import { createPlatformToolbox } from '../tools/platform-tools.ts';
import type { DefaultWorker } from '../workspace/default-worker.ts';
import type { WorkersRepository } from '../workspace/workers-repository.ts';
import type { WorkspacesRepository } from '../workspace/workspaces-repository.ts';
import { existingWorkspace } from '../workspace/workspace-guard.ts';
import type { PreparedTurn } from './chat-service.ts';

/** Who a chat turn asks for: a worker and the workspace to find it in (`X-Workspace-Id`, the CLI's --workspace). */
export interface WorkerRequest {
  workerId?: string | undefined;
  workspaceId?: string | undefined;
  /** the workspace is known to exist (a paired device's own): not looked up again on every turn */
  workspaceKnown?: boolean | undefined;
}

// How a chat turn reaches an assistant worker, for the web app and the CLI alike. A chat belongs to one
// workspace: the one the request names, else the default worker's (the web chat's workspace). A named worker is
// looked up in that workspace only, so another workspace's worker is as unknown as a made-up id (404); without a
// named worker the default one answers, or the named workspace's first worker. The worker's platform tools come
// with it when it is bound, and its proposal tools too when PLATFORM_BRIDGE_WRITES is on.
export function workerChatHooks(deps: {
  config: Pick<Config, 'AI_WORKERS_ENABLED' | 'PLATFORM_BRIDGE_ENABLED' | 'PLATFORM_BRIDGE_WRITES'>;
  workers: WorkersRepository;
  workspaces: WorkspacesRepository;
  defaultWorker: DefaultWorker;
  binding: BindingService;
  platform: PlatformBridge;
  /** the worker's own mailboxes' reader (EMAIL_INGESTION_ENABLED), merged into its email tool */
  ownEmail?: ((workerId: string) => OwnEmailReader) | undefined;
  /** the workers' synced knowledge corpora (features/knowledge): platform-search-knowledge searches its own */
  knowledge?:
    | {
        search(
          workerId: string,
          q: Parameters<KnowledgeSearch['search']>[0],
        ): ReturnType<KnowledgeSearch['search']>;
      }
    | undefined;
}) {
  const { config, workers, workspaces, defaultWorker, binding, platform, ownEmail, knowledge } = deps;
  return {
    resolveWorker: async (request: WorkerRequest): Promise<string | null> => {
      if (!config.AI_WORKERS_ENABLED) {
        if (request.workerId)
          throw new FeatureDisabled('workers-disabled', 'Assistant workers are off (AI_WORKERS_ENABLED).');
        return null;
      }
      const named =
        request.workspaceId === undefined
          ? undefined
          : request.workspaceKnown
            ? request.workspaceId
            : await existingWorkspace(workspaces, request.workspaceId);
      if (request.workerId) {
        const workspaceId = named ?? (await defaultWorker.resolve())?.workspaceId;
        const worker = workspaceId ? await workers.find(workspaceId, request.workerId) : null;
        if (!worker) throw new NotFound('worker-not-found', `No worker ${request.workerId}.`);
        return worker.id;
      }
      const fallback = await defaultWorker.resolve();
      if (!named || fallback?.workspaceId === named) return fallback?.id ?? null;
      return (await workers.first(named))?.id ?? null;
    },
    toolbox: async (turn: PreparedTurn): Promise<Toolbox> => {
      if (!config.PLATFORM_BRIDGE_ENABLED || !turn.workerId) return EMPTY_TOOLBOX;
      const workerId = turn.workerId;
      const credentials = await binding.credentials(workerId);
      if (!credentials) return EMPTY_TOOLBOX;
      return createPlatformToolbox(credentials.watch(platform.forKey(credentials.apiKey)), {
        // a read-only turn (an embed key without allowProposals) has no proposal tools at all
        writes: config.PLATFORM_BRIDGE_WRITES && !turn.readOnly,
        reviewQueueUrl: `${platform.baseUrl}${REVIEW_QUEUE_PAGE}`,
        ownEmail: ownEmail?.(turn.workerId),
        knowledge: knowledge && { search: (q) => knowledge.search(workerId, q) },
      });
    },
  };
}
