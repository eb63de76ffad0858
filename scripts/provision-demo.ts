import { execFile } from 'node:child_process';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

// The demo's agent-platform side, provisioned the way an operator would: a workspace and a "Property Manager"
// worker from the gateway's CLI before the gateway starts, so that the gateway starts with that worker as its
// configured default (WEB_WORKER_ID); then, once both apps answer, a remote key from the platform's CLI and the
// binding through the gateway's real HTTP API (so the smoke test runs).
//
// The demo worker's id is kept in the gateway's data directory (demo-worker-id), so that later starts configure
// the same worker. A gateway that already has workers of its own is left alone: no demo worker is made.

const run = promisify(execFile);
const DEMO_TENANT = 'demo-lettings';
const DEMO_WORKSPACE_NAME = 'Demo workspace';

export interface DemoWorker {
  workerId: string;
  workspaceId: string;
  /** not bound yet (just made, or an earlier binding failed): bind once the gateway answers */
  bound: boolean;
}

async function cli(
  opts: { root: string; env: NodeJS.ProcessEnv },
  script: 'platform' | 'gateway',
  args: string[],
): Promise<Record<string, unknown>> {
  const entry =
    script === 'platform' ? 'apps/platform-bridge/src/cli/main.ts' : 'apps/agent-gateway/src/cli/main.ts';
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', path.join(opts.root, entry), ...args, '--json'],
    { cwd: opts.root, env: opts.env },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${String(body.code ?? '')}: ${String(body.detail ?? '')}`);
  return body;
}

/**
 * Before the gateway starts: the demo worker to configure as WEB_WORKER_ID, made now if the gateway has no workers
 * at all. Null when the gateway has workers but none is the demo's (the operator's own setup wins).
 */
export async function prepareDemoWorker(opts: {
  root: string;
  env: NodeJS.ProcessEnv;
  dataDir: string;
}): Promise<DemoWorker | null> {
  const file = path.join(opts.dataDir, 'demo-worker-id');
  const remembered = await readFile(file, 'utf8').then(
    (s) => s.trim(),
    () => undefined,
  );
  const { workers } = (await cli(opts, 'gateway', ['workers', 'list'])) as {
    workers: Array<{ id: string; workspaceId: string; boundTo: string | null }>;
  };
  const existing = workers.find((w) => w.id === remembered);
  if (existing)
    return { workerId: existing.id, workspaceId: existing.workspaceId, bound: !!existing.boundTo };
  if (workers.length > 0) return null;

  const workspace = await cli(opts, 'gateway', ['workspaces', 'create', '--name', DEMO_WORKSPACE_NAME]);
  const worker = await cli(opts, 'gateway', [
    'workers',
    'create',
    '--workspace',
    String(workspace.id),
    '--name',
    'Property Manager',
    '--template',
    'property-manager',
  ]);
  await mkdir(opts.dataDir, { recursive: true });
  await writeFile(file, `${String(worker.id)}\n`);
  return { workerId: String(worker.id), workspaceId: String(workspace.id), bound: false };
}

/** The remote key the demo worker is bound with (`bridge:read` and `bridge:propose`), made with the platform's CLI. */
export async function createDemoKey(opts: { root: string; env: NodeJS.ProcessEnv }): Promise<string> {
  const key = await cli(opts, 'platform', [
    'keys',
    'create',
    '--tenant',
    DEMO_TENANT,
    '--scopes',
    'bridge:read,bridge:propose',
    '--label',
    'demo agent gateway',
  ]);
  return String(key.key);
}

/** Once both apps answer: the worker bound over HTTP with a key from createDemoKey. */
export async function bindDemoWorker(opts: {
  env: NodeJS.ProcessEnv;
  gatewayUrl: string;
  worker: DemoWorker;
  apiKey: string;
}): Promise<string> {
  const { workerId, workspaceId } = opts.worker;
  const bound = await json(
    await fetch(`${opts.gatewayUrl}/api/assistant/workers/${workerId}/platform/bind`, {
      method: 'POST',
      headers: { ...operatorHeaders(opts.env), 'X-Workspace-Id': workspaceId },
      body: JSON.stringify({ tenantSlug: DEMO_TENANT, apiKey: opts.apiKey }),
    }),
  );
  const smoke = bound.smokeTest as { propertiesTotal: number };
  const lines = [
    `demo: worker "Property Manager" (${workerId}) in workspace ${workspaceId} bound to ${DEMO_TENANT} (${smoke.propertiesTotal} properties)`,
  ];
  if (opts.env.ASSISTANT_DAILY_SUMMARY_ENABLED === 'true') lines.push(await enableDemoSummary(opts));
  return lines.join('\n');
}

/** The demo's daily briefing: on the web (shown in the Settings tab), at 08:00 London time. */
async function enableDemoSummary(opts: {
  gatewayUrl: string;
  worker: DemoWorker;
  env: NodeJS.ProcessEnv;
}): Promise<string> {
  const { workerId, workspaceId } = opts.worker;
  try {
    const saved = await json(
      await fetch(`${opts.gatewayUrl}/api/assistant/email/summary/config/${workerId}`, {
        method: 'POST',
        headers: { ...operatorHeaders(opts.env), 'X-Workspace-Id': workspaceId },
        body: JSON.stringify({
          enabled: true,
          deliveryChannel: 'web',
          summarySchedule: '0 8 * * *',
          timezone: 'Europe/London',
        }),
      }),
    );
    return `demo: daily briefing on, 08:00 London time on the web (next ${String(saved.nextRunAt)})`;
  } catch (err) {
    // without Redis the schedule cannot be kept: the demo runs on, and the Settings tab can turn it on later
    return `demo: daily briefing not turned on (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** JSON, as the operator: with GATEWAY_AUTH=token the gateway's API wants GATEWAY_ADMIN_TOKEN. */
function operatorHeaders(env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    ...(env.GATEWAY_ADMIN_TOKEN ? { Authorization: `Bearer ${env.GATEWAY_ADMIN_TOKEN}` } : {}),
  };
}

/**
 * The demo's signed events (SPEC §2.7, §3.9): the demo tenant's `platform_event_webhooks` flag on and one endpoint
 * at the gateway's ingress, registered with the platform's CLI as an operator would. The endpoint's secret is
 * shown once, so it is kept (mode 0600) in the data directory and handed to the gateway as
 * PLATFORM_WEBHOOK_SECRET at every start; an endpoint registered before whose secret is lost is replaced.
 */
export async function wireDemoEvents(opts: {
  root: string;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  gatewayUrl: string;
}): Promise<string> {
  const url = `${opts.gatewayUrl}/api/platform/events`;
  const file = path.join(opts.dataDir, 'demo-webhook-secret');
  await cli(opts, 'platform', [
    'flags',
    'set',
    '--tenant',
    DEMO_TENANT,
    '--flag',
    'platform_event_webhooks',
    '--on',
  ]);
  const listed = (await cli(opts, 'platform', ['webhooks', 'list', '--tenant', DEMO_TENANT])) as {
    endpoints?: Array<{ id: number; url: string; enabled: boolean }>;
  };
  const existing = listed.endpoints?.find((e) => e.url === url);
  const kept = await readFile(file, 'utf8').then(
    (s) => s.trim(),
    () => null,
  );
  if (existing?.enabled && kept) return kept;
  if (existing) await cli(opts, 'platform', ['webhooks', 'remove', '--id', String(existing.id)]);
  const added = await cli(opts, 'platform', ['webhooks', 'add', '--tenant', DEMO_TENANT, '--url', url]);
  const secret = String(added.secret);
  await mkdir(opts.dataDir, { recursive: true });
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
