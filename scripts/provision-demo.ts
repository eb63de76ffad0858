import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

// The demo's agent-platform side, provisioned the way an operator would: a remote key from the platform's CLI,
// a workspace from the gateway's CLI, then a "Property Manager" worker and its binding through the gateway's
// real HTTP API (so the smoke test runs). Skipped when the gateway already has a worker.

const run = promisify(execFile);
const DEMO_TENANT = 'demo-lettings';
const DEMO_WORKSPACE_NAME = 'Demo workspace';

async function cli(
  root: string,
  script: 'platform' | 'gateway',
  args: string[],
): Promise<Record<string, unknown>> {
  const entry =
    script === 'platform' ? 'apps/platform-bridge/src/cli/main.ts' : 'apps/agent-gateway/src/cli/main.ts';
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', path.join(root, entry), ...args, '--json'],
    {
      cwd: root,
      env: process.env,
    },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${String(body.code ?? '')}: ${String(body.detail ?? '')}`);
  return body;
}

export async function provisionDemo(opts: { root: string; gatewayUrl: string }): Promise<string> {
  const context = await json(await fetch(`${opts.gatewayUrl}/api/web/context`));
  if (context.worker) return 'the gateway already has a worker; demo provisioning skipped';

  const key = await cli(opts.root, 'platform', [
    'keys',
    'create',
    '--tenant',
    DEMO_TENANT,
    '--scopes',
    'bridge:read,bridge:propose',
    '--label',
    'demo agent gateway',
  ]);
  const workspace = await cli(opts.root, 'gateway', ['workspaces', 'create', '--name', DEMO_WORKSPACE_NAME]);
  const headers = { 'Content-Type': 'application/json', 'X-Workspace-Id': String(workspace.id) };
  const worker = await json(
    await fetch(`${opts.gatewayUrl}/api/assistant/workers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Property Manager', template: 'property-manager' }),
    }),
  );
  const bound = await json(
    await fetch(`${opts.gatewayUrl}/api/assistant/workers/${String(worker.id)}/platform/bind`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ tenantSlug: DEMO_TENANT, apiKey: key.key }),
    }),
  );
  const smoke = bound.smokeTest as { propertiesTotal: number };
  return `demo: worker "Property Manager" (${String(worker.id)}) in workspace ${String(workspace.id)} bound to ${DEMO_TENANT} (${smoke.propertiesTotal} properties)`;
}
