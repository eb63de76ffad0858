import {
  DEFAULT_SUMMARY_SCHEDULE,
  DEFAULT_SUMMARY_TIMEZONE,
  type SummaryConfig,
  type SummaryConfigRequest,
} from '@pa/contracts';
import { Unprocessable, ValidationFailed } from '@pa/http-kit';
import type { Logger } from 'pino';
import { workerNotFound, type WorkersRepository } from '../workspace/workers-repository.ts';
import { toSummaryConfig } from './daily-summary-mapper.ts';
import { normaliseSchedule, scheduleProblem } from './next-run.ts';
import type { SummaryConfigRepository } from './summary-config-repository.ts';
import type { SummaryQueue } from './summary-queue.ts';

// A worker's daily-summary configuration: validated, saved, and turned into the worker's job scheduler.
export function createSummaryConfigService(deps: {
  workers: WorkersRepository;
  configs: SummaryConfigRepository;
  queue: SummaryQueue;
  logger: Logger;
  now?: () => Date;
}) {
  const { workers, configs, queue, logger } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /** The saved configuration, or the defaults (disabled) for a worker never configured. */
    async get(workspaceId: string, workerId: string): Promise<SummaryConfig> {
      const worker = await workers.require(workspaceId, workerId);
      const row = await configs.find(workspaceId, workerId);
      return toSummaryConfig(
        workerId,
        row ?? {
          enabled: false,
          deliveryChannel: 'web',
          schedule: DEFAULT_SUMMARY_SCHEDULE,
          timezone: DEFAULT_SUMMARY_TIMEZONE,
          // the defaults have held since the worker was made
          updatedAt: worker.createdAt,
        },
        worker.binding !== null,
        now,
      );
    },

    async set(workspaceId: string, workerId: string, request: SummaryConfigRequest): Promise<SummaryConfig> {
      const worker = await workers.require(workspaceId, workerId);
      const schedule = normaliseSchedule(request.summarySchedule);
      const problem = scheduleProblem(schedule);
      if (problem) throw new ValidationFailed([{ pointer: '#/summarySchedule', detail: problem }]);
      const bound = worker.binding !== null;
      if (request.enabled && !bound) {
        throw new Unprocessable(
          'worker-not-bound',
          'The daily summary reads the platform: bind the worker to a platform tenant before turning it on.',
        );
      }
      // Only when turning it on: a summary can always be turned off, whatever became of its channel.
      if (
        request.enabled &&
        request.deliveryChannel !== 'web' &&
        !(await configs.hasConnectedChannel(workerId, request.deliveryChannel))
      ) {
        throw new Unprocessable(
          'channel-not-connected',
          `The worker has no connected ${request.deliveryChannel} channel: connect one and pair a chat, or deliver on the web.`,
        );
      }
      const data = {
        enabled: request.enabled,
        deliveryChannel: request.deliveryChannel,
        schedule,
        timezone: request.timezone,
      };
      // The row and the scheduler change together: the row is written in a transaction that commits only once
      // Redis has taken the scheduler change, so a refused change (503) leaves both as they were. If the commit
      // itself failed after Redis had changed, Redis would be ahead of the database until the next reconciliation
      // puts it back (the database is the source of truth). The worker's row lock makes two changes of the same
      // worker (two tabs, two instances) wait for each other, so the last saved is the last scheduled.
      const row = await configs.saveLocked(workspaceId, workerId, data, async () => {
        if (data.enabled) await queue.schedule({ workerId, schedule, timezone: data.timezone });
        else await queue.unschedule(workerId);
      });
      if (!row) throw workerNotFound(workerId);
      logger.info(
        {
          worker_id: workerId,
          enabled: row.enabled,
          channel: row.deliveryChannel,
          schedule,
          tz: row.timezone,
        },
        'daily summary configured',
      );
      return toSummaryConfig(workerId, row, bound, now);
    },
  };
}
export type SummaryConfigService = ReturnType<typeof createSummaryConfigService>;
