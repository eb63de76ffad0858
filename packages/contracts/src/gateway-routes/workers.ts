import type { RouteSpec } from '../routes.ts';
import {
  BindingResponse,
  BindRequest,
  BindResponse,
  CreateWorkerRequest,
  UnbindResponse,
  Worker,
  WorkerIdParams,
  WorkersResponse,
} from '../workers.ts';
import { KnowledgeStatusResponse } from '../knowledge-status.ts';
import { jsonBody, outage, workerGate, WORKERS_BASE, workspaceHeader } from './shared.ts';

// The workspace's assistant workers and their platform binding.

const bindingGate = [...workerGate, 'platform-bridge-disabled', 'worker-not-found'] as const;

export const workerRoutes = {
  createWorker: {
    method: 'post',
    path: WORKERS_BASE,
    access: 'workers:write',
    summary: 'Creates an assistant worker in the workspace',
    tags: ['workers'],
    headers: workspaceHeader,
    body: CreateWorkerRequest,
    responses: {
      201: {
        description: 'The worker',
        schema: Worker,
        headers: { Location: { description: 'the new worker’s URL' } },
      },
    },
    problems: { 400: ['validation-failed', 'malformed-json'], 404: workerGate, ...jsonBody, ...outage },
  },
  listWorkers: {
    method: 'get',
    path: WORKERS_BASE,
    access: 'chat',
    summary: 'The workspace’s workers',
    tags: ['workers'],
    headers: workspaceHeader,
    responses: { 200: { description: 'Workers', schema: WorkersResponse } },
    problems: { 400: ['validation-failed'], 404: workerGate, ...outage },
  },
  getWorker: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId`,
    access: 'chat',
    summary: 'One worker of the workspace',
    tags: ['workers'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'The worker', schema: Worker } },
    problems: { 400: ['validation-failed'], 404: [...workerGate, 'worker-not-found'], ...outage },
  },
  deleteWorker: {
    method: 'delete',
    path: `${WORKERS_BASE}/:workerId`,
    access: 'workers:write',
    summary: 'Deletes a worker of the workspace, with its binding',
    tags: ['workers'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 204: { description: 'Deleted' } },
    problems: { 400: ['validation-failed'], 404: [...workerGate, 'worker-not-found'], ...outage },
  },
  bindWorker: {
    method: 'post',
    path: `${WORKERS_BASE}/:workerId/platform/bind`,
    access: 'workers:write',
    summary: 'Binds the worker to a platform tenant with its remote API key, after a smoke test of the key',
    description:
      'Nothing is saved unless `GET /api/assistant-bridge/portfolio` with the key succeeds and names `tenantSlug`; an existing binding stays untouched on failure.',
    tags: ['binding'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    body: BindRequest,
    responses: { 200: { description: 'Bound', schema: BindResponse } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      404: bindingGate,
      ...jsonBody,
      422: ['skill-pack-required', 'platform-key-rejected', 'platform-bridge-not-enabled', 'tenant-mismatch'],
      502: ['platform-unreachable'],
      ...outage,
    },
  },
  getBinding: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId/platform`,
    access: 'chat',
    summary: 'The worker’s platform binding (never the key)',
    tags: ['binding'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'The binding', schema: BindingResponse } },
    problems: { 400: ['validation-failed'], 404: [...bindingGate, 'worker-not-bound'], ...outage },
  },
  unbindWorker: {
    method: 'delete',
    path: `${WORKERS_BASE}/:workerId/platform/bind`,
    access: 'workers:write',
    summary: 'Removes the worker’s platform binding',
    tags: ['binding'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: {
      200: { description: 'Unbound (`unbound: false` when there was no binding)', schema: UnbindResponse },
    },
    problems: { 400: ['validation-failed'], 404: bindingGate, ...outage },
  },
  getKnowledgeStatus: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId/knowledge`,
    access: 'chat',
    summary: 'How many of the tenant’s knowledge documents the worker holds, and when they were last synced',
    description:
      'The worker’s copy of its tenant’s knowledge corpus (what `platform-search-knowledge` searches): 0 documents and no sync before it is bound.',
    tags: ['binding'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'The sync status', schema: KnowledgeStatusResponse } },
    problems: { 400: ['validation-failed'], 404: bindingGate, ...outage },
  },
} as const satisfies Record<string, RouteSpec>;
