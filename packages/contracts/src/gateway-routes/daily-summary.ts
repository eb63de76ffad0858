import {
  RunNowResponse,
  SummaryConfig,
  SummaryConfigRequest,
  SummaryRunsQuery,
  SummaryRunsResponse,
} from '../daily-summary.ts';
import type { RouteSpec } from '../routes.ts';
import { WorkerIdParams } from '../workers.ts';
import {
  jsonBody,
  outage,
  SUMMARY_CONFIG_BASE,
  workerGate,
  WORKERS_BASE,
  workspaceHeader,
} from './shared.ts';

// A worker's daily summary: its configuration, its runs and a run on demand.

// the daily summary's routes answer 404 `summary-disabled` while ASSISTANT_DAILY_SUMMARY_ENABLED is off
const summaryGate = [...workerGate, 'summary-disabled'] as const;

export const dailySummaryRoutes = {
  getSummaryConfig: {
    method: 'get',
    path: `${SUMMARY_CONFIG_BASE}/:workerId`,
    access: 'chat',
    summary: 'The worker’s daily-summary configuration, with the next run',
    description:
      'A worker that was never configured answers the defaults, disabled (`0 8 * * *`, `Europe/London`, `web`).',
    tags: ['daily-summary'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'The configuration', schema: SummaryConfig } },
    problems: {
      400: ['validation-failed'],
      404: [...summaryGate, 'worker-not-found'],
      ...outage,
    },
  },
  setSummaryConfig: {
    method: 'post',
    path: `${SUMMARY_CONFIG_BASE}/:workerId`,
    access: 'workers:write',
    summary: 'Turns the worker’s daily summary on or off, with its schedule, time zone and delivery channel',
    description: [
      'The schedule is a five-field cron expression read in `timezone` (a clock change neither skips nor doubles a',
      'day); a bad one is 400 with the pointer `/summarySchedule`. Enabling needs a bound worker (422',
      '`worker-not-bound`) and, for `telegram` or `whatsapp`, a connected channel of that type (422',
      '`channel-not-connected`). The schedule lives in Redis as one BullMQ job scheduler per enabled worker, so',
      'without Redis the change is refused (503 `redis-unavailable`) rather than saved and not run.',
    ].join(' '),
    tags: ['daily-summary'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    body: SummaryConfigRequest,
    responses: { 200: { description: 'Saved', schema: SummaryConfig } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      404: [...summaryGate, 'worker-not-found'],
      ...jsonBody,
      422: ['worker-not-bound', 'channel-not-connected'],
      503: ['redis-unavailable', 'database-unavailable'],
    },
  },
  listSummaryRuns: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId/summary/runs`,
    access: 'chat',
    // the settings page polls it while it follows a run started by "Send now"
    logQuietly: true,
    summary: 'The worker’s daily-summary runs, newest first, with their briefing',
    tags: ['daily-summary'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    query: SummaryRunsQuery,
    responses: { 200: { description: 'Runs', schema: SummaryRunsResponse } },
    problems: { 400: ['validation-failed'], 404: [...summaryGate, 'worker-not-found'], ...outage },
  },
  runSummaryNow: {
    method: 'post',
    path: `${WORKERS_BASE}/:workerId/summary/run-now`,
    access: 'workers:write',
    summary: 'Queues a daily-summary run now, whatever the schedule',
    description:
      'Answers at once with the run’s id; the run is processed by the queue’s worker like a scheduled one and delivered on the configured channel (`web` when never configured). Follow it with `GET .../summary/runs`.',
    tags: ['daily-summary'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 202: { description: 'Queued', schema: RunNowResponse } },
    problems: {
      400: ['validation-failed'],
      404: [...summaryGate, 'worker-not-found'],
      422: ['worker-not-bound'],
      503: ['redis-unavailable', 'database-unavailable'],
    },
  },
} as const satisfies Record<string, RouteSpec>;
