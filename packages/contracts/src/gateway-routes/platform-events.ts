import { PlatformEvent, PlatformEventReceipt, WorkerEventsQuery, WorkerEventsResponse } from '../events.ts';
import type { RouteSpec } from '../routes.ts';
import { WorkerIdParams } from '../workers.ts';
import { jsonBody, outage, workerGate, WORKERS_BASE, workspaceHeader } from './shared.ts';

// The platform's signed events, and each worker's feed of them.

export const platformEventRoutes = {
  platformEvents: {
    method: 'post',
    path: '/api/platform/events',
    access: 'signed',
    summary:
      'The platform’s signed events (Standard Webhooks), told to every worker bound to the event’s tenant',
    description: [
      'Served with `PLATFORM_EVENT_WEBHOOKS=true` (else 404). The raw body is verified with `standardwebhooks`',
      'against `PLATFORM_WEBHOOK_SECRET`: a missing or bad signature, or a `webhook-timestamp` more than 5 minutes',
      'off, is 401. A `webhook-id` already taken in (kept 7 days) answers 200 with `duplicate: true` and no second',
      'effect. Each worker bound to `data.tenant_slug` stores the event in its feed and its connected channels are',
      'told in words.',
    ].join(' '),
    tags: ['events'],
    headers: [
      { name: 'webhook-id', required: true, description: 'the delivery’s id; the same for every retry' },
      { name: 'webhook-timestamp', required: true, description: 'Unix seconds' },
      {
        name: 'webhook-signature',
        required: true,
        description: '`v1,<base64 HMAC-SHA256>` (space-separated)',
      },
    ],
    body: PlatformEvent,
    responses: { 200: { description: 'Taken in', schema: PlatformEventReceipt } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      401: ['webhook-signature-invalid'],
      404: ['not-found'],
      ...jsonBody,
      ...outage,
    },
  },
  listWorkerEvents: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId/events`,
    access: 'chat',
    // the chat page's feed reads it every 5 s
    logQuietly: true,
    summary: 'The platform events told to the worker, newest first',
    tags: ['events'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    query: WorkerEventsQuery,
    responses: { 200: { description: 'Events', schema: WorkerEventsResponse } },
    problems: { 400: ['validation-failed'], 404: [...workerGate, 'worker-not-found'], ...outage },
  },
} as const satisfies Record<string, RouteSpec>;
