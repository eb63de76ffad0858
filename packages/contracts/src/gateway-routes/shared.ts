// What several areas of the gateway's route table share: the worker routes' base paths, the workspace header
// they all require, and the problems any JSON or database-backed route may answer.

export const WORKERS_BASE = '/api/assistant/workers';
export const SUMMARY_CONFIG_BASE = '/api/assistant/email/summary/config';

export const workspaceHeader = [
  {
    name: 'X-Workspace-Id',
    required: true,
    description: 'the workspace whose workers are meant; every worker route is scoped by it',
    schema: { type: 'string', format: 'uuid' },
  },
] as const;
// What every worker route may answer before its own handler runs (flag off, header missing, no workspace).
export const workerGate = ['workers-disabled', 'workspace-not-found'] as const;
export const jsonBody = { 413: ['payload-too-large'], 415: ['unsupported-media-type'] } as const;
// what a route that reads or writes the database may answer
export const outage = { 503: ['database-unavailable'] } as const;
