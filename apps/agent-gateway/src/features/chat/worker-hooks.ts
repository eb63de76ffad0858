import { FeatureDisabled, NotFound } from '@pa/http-kit';
import type { PlatformBridge } from '../../clients/platform-bridge-client.ts';
import type { Config } from '../../config.ts';
import type { BindingService } from '../binding/binding-service.ts';
import { EMPTY_TOOLBOX, type Toolbox } from '../providers/provider.ts';
import { createPlatformToolbox } from '../tools/platform-tools.ts';
import { resolveDefaultWorker } from '../workers/default-worker.ts';
import type { WorkersRepository } from '../workers/workers-repository.ts';
import type { PreparedTurn } from './chat-service.ts';

// How a chat turn reaches an assistant worker, for the web app and the CLI alike: the named worker (404 when
// unknown) or the default one, and that worker's platform tools when it is bound.
export function workerChatHooks(deps: {
  config: Pick<Config, 'AI_WORKERS_ENABLED' | 'PLATFORM_BRIDGE_ENABLED' | 'WEB_WORKER_ID'>;
  workers: WorkersRepository;
  binding: BindingService;
  platform: PlatformBridge;
}) {
  const { config, workers, binding, platform } = deps;
  return {
    resolveWorker: async (workerId: string | undefined): Promise<string | null> => {
      if (!config.AI_WORKERS_ENABLED) {
        if (workerId)
          throw new FeatureDisabled('workers-disabled', 'Assistant workers are off (AI_WORKERS_ENABLED).');
        return null;
      }
      if (workerId) {
        if (!(await workers.findAnywhere(workerId)))
          throw new NotFound('worker-not-found', `No worker ${workerId}.`);
        return workerId;
      }
      return (await resolveDefaultWorker(workers, config.WEB_WORKER_ID))?.id ?? null;
    },
    toolbox: async (turn: PreparedTurn): Promise<Toolbox> => {
      if (!config.PLATFORM_BRIDGE_ENABLED || !turn.workerId) return EMPTY_TOOLBOX;
      const credentials = await binding.credentials(turn.workerId);
      return credentials ? createPlatformToolbox(platform.forKey(credentials.apiKey)) : EMPTY_TOOLBOX;
    },
  };
}
