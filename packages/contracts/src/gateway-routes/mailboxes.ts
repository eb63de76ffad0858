import { MailboxParams, WorkerMailbox, WorkerMailboxesResponse, WorkerMailboxRequest } from '../mailboxes.ts';
import type { RouteSpec } from '../routes.ts';
import { WorkerIdParams } from '../workers.ts';
import { jsonBody, outage, workerGate, WORKERS_BASE, workspaceHeader } from './shared.ts';

// The mailboxes a worker reads itself.

export const mailboxRoutes = {
  addWorkerMailbox: {
    method: 'post',
    path: `${WORKERS_BASE}/:workerId/mailboxes`,
    access: 'workers:write',
    summary: 'Connects a mailbox the worker reads itself (IMAP), never one the platform polls',
    description: [
      'Served with `EMAIL_INGESTION_ENABLED=true` (else 404 `email-ingestion-disabled`). The same mailbox must never',
      'be connected in both products: before anything is saved the gateway asks the bridge’s `/mailboxes` of the',
      'worker’s tenant and refuses an address the platform polls with 409 `mailbox-owned-by-platform` (compared',
      'case-insensitively, `+tags` ignored); the bridge unreachable → 502 `platform-unreachable` and nothing saved; a',
      'worker not bound → 422 `worker-not-bound`. The server must be a public one: a host that is or resolves to a',
      'loopback, private, link-local (cloud metadata) or other special address → 422 `mailbox-host-refused` and',
      'nothing is connected to (the operator may allow named hosts of its own network with `IMAP_INTERNAL_HOSTS`);',
      'the connection goes to the address that was checked. Then the IMAP login is tried (422',
      '`mailbox-login-failed`: the username or password refused, or one answer, "no IMAP server answered at that',
      'server and port", whether the port is closed, silent or not IMAP). Failed attempts count against the limits',
      'per client IP, per device and per workspace (429 `rate-limited`). The',
      'password is stored encrypted (AES-256-GCM) and never returned. An address held by another worker → 409',
      '`mailbox-already-connected`.',
    ].join(' '),
    tags: ['email'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    body: WorkerMailboxRequest,
    responses: { 201: { description: 'Connected', schema: WorkerMailbox } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      404: [...workerGate, 'email-ingestion-disabled', 'worker-not-found'],
      409: ['mailbox-owned-by-platform', 'mailbox-already-connected'],
      ...jsonBody,
      422: ['worker-not-bound', 'mailbox-host-refused', 'mailbox-login-failed'],
      429: ['rate-limited'],
      502: ['platform-unreachable'],
      ...outage,
    },
  },
  listWorkerMailboxes: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId/mailboxes`,
    access: 'chat',
    // the settings page polls it until a new mailbox's first sync
    logQuietly: true,
    summary:
      'The worker’s own mailboxes with their last sync, messages stored and last error (never a password)',
    tags: ['email'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'Mailboxes', schema: WorkerMailboxesResponse } },
    problems: {
      400: ['validation-failed'],
      404: [...workerGate, 'email-ingestion-disabled', 'worker-not-found'],
      ...outage,
    },
  },
  deleteWorkerMailbox: {
    method: 'delete',
    path: `${WORKERS_BASE}/:workerId/mailboxes/:mailboxId`,
    access: 'workers:write',
    summary: 'Disconnects a mailbox and deletes the messages kept from it',
    tags: ['email'],
    headers: workspaceHeader,
    params: MailboxParams,
    responses: { 204: { description: 'Disconnected' } },
    problems: {
      400: ['validation-failed'],
      404: [...workerGate, 'email-ingestion-disabled', 'worker-not-found', 'mailbox-not-found'],
      ...outage,
    },
  },
} as const satisfies Record<string, RouteSpec>;
