import {
  DEFAULT_SUMMARY_SCHEDULE,
  DEFAULT_SUMMARY_TIMEZONE,
  type SummaryConfig,
  type SummaryConfigRequest,
} from '@pa/contracts';
import { Unprocessable, ValidationFailed } from '@pa/http-kit';
import type { Logger } from 'pino';
import type { Db } from '../../lib/db.ts';
import { workerNotFound, type WorkersRepository } from '../workers/workers-repository.ts';
import { nextRunAt, normaliseSchedule, scheduleProblem } from './next-run.ts';
import type { SummaryConfigRepository } from './summary-config-repository.ts';
import type { SummaryQueue } from './summary-queue.ts';

type ConfigRow = NonNullable<Awaited<ReturnType<SummaryConfigRepository['find']>>>;

// A worker's daily-summary configuration: validated, saved, and turned into the worker's job scheduler.
export function createSummaryConfigService(deps: {
  db: Db;
  workers: WorkersRepository;
  configs: SummaryConfigRepository;
  queue: SummaryQueue;
  logger: Logger;
  now?: () => Date;
}) {
  const { db, workers, configs, queue, logger } = deps;
  const now = deps.now ?? (() => new Date());

  // nextRunAt is when the scheduler fires next, so it is null whenever there is no scheduler: disabled, or
  // enabled on a worker that has since been unbound (binding it again brings the scheduler back).
  function view(
    workerId: string,
    row: Pick<ConfigRow, 'enabled' | 'deliveryChannel' | 'schedule' | 'timezone' | 'updatedAt'>,
    bound: boolean,
  ): SummaryConfig {
    return {
      workerId,
      enabled: row.enabled,
      deliveryChannel: row.deliveryChannel as SummaryConfig['deliveryChannel'],
      summarySchedule: row.schedule,
      timezone: row.timezone,
      nextRunAt: row.enabled && bound ? nextRunAt(row.schedule, row.timezone, now()).toISOString() : null,
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  return {
    /** The saved configuration, or the defaults (disabled) for a worker never configured. */
    async get(workspaceId: string, workerId: string): Promise<SummaryConfig> {
      const worker = await workers.require(workspaceId, workerId);
      const row = await configs.find(workspaceId, workerId);
      return view(
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
      const row = await db.$transaction(async (tx) => {
        if (!(await configs.lockWorker(workspaceId, workerId, tx))) {
          throw workerNotFound(workerId);
        }
        const saved = await configs.save(workspaceId, workerId, data, tx);
        if (data.enabled) await queue.schedule({ workerId, schedule, timezone: data.timezone });
        else await queue.unschedule(workerId);
        return saved;
      });
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
      return view(workerId, row, bound);
    },
  };
}
export type SummaryConfigService = ReturnType<typeof createSummaryConfigService>;
