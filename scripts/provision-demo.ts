import { execFile } from 'node:child_process';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

// The demo's wiring once the apps run, done the way an operator would: a remote key and the signed-event endpoint
// from the platform's CLI, the binding and the daily briefing through the gateway's real HTTP API (so the binding's
// smoke test runs). The worker itself is made before the gateway starts (start/demo-worker.ts). Every step is
// idempotent, so that a start interrupted half-way is completed by the next one.

const run = promisify(execFile);
export const DEMO_TENANT = 'demo-lettings';

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
  try {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(opts.root, entry), ...args, '--json'],
      { cwd: opts.root, env: opts.env },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  } catch (err) {
    // the command line as a person would type it, and the last lines it wrote (not Node's whole error)
    const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
    const said = stderr.split('\n').slice(-3).join(' / ') || (err as Error).message;
    throw new Error(`\`npm run ${script} -- ${args.join(' ')}\` failed: ${said}`, { cause: err });
  }
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${String(body.code ?? '')}: ${String(body.detail ?? '')}`);
  return body;
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

/** Once both apps answer: the worker bound over HTTP with a key from createDemoKey; the bridge's property count. */
export async function bindDemoWorker(opts: {
  env: NodeJS.ProcessEnv;
  gatewayUrl: string;
  worker: DemoWorker;
  apiKey: string;
}): Promise<{ propertiesTotal: number }> {
  const { workerId, workspaceId } = opts.worker;
  const bound = await json(
    await fetch(`${opts.gatewayUrl}/api/assistant/workers/${workerId}/platform/bind`, {
      method: 'POST',
      headers: { ...operatorHeaders(opts.env), 'X-Workspace-Id': workspaceId },
      body: JSON.stringify({ tenantSlug: DEMO_TENANT, apiKey: opts.apiKey }),
    }),
  );
  return { propertiesTotal: (bound.smokeTest as { propertiesTotal: number }).propertiesTotal };
}

export interface BriefingState {
  enabled: boolean;
  summarySchedule: string;
  timezone: string;
  deliveryChannel: string;
  nextRunAt: string | null;
}

/** The demo worker's daily-summary configuration: read (GET), or saved (POST with `body`), as the operator. */
async function summaryConfig(
  opts: { gatewayUrl: string; worker: DemoWorker; env: NodeJS.ProcessEnv },
  body?: Record<string, unknown>,
): Promise<BriefingState> {
  const { workerId, workspaceId } = opts.worker;
  const res = await fetch(`${opts.gatewayUrl}/api/assistant/email/summary/config/${workerId}`, {
    method: body ? 'POST' : 'GET',
    headers: { ...operatorHeaders(opts.env), 'X-Workspace-Id': workspaceId },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return (await json(res)) as unknown as BriefingState;
}

/** The demo's daily briefing turned on: on the web (shown in the Settings tab), at 08:00 London time. */
export function enableDemoBriefing(opts: {
  gatewayUrl: string;
  worker: DemoWorker;
  env: NodeJS.ProcessEnv;
}): Promise<BriefingState> {
  return summaryConfig(opts, {
    enabled: true,
    deliveryChannel: 'web',
    summarySchedule: '0 8 * * *',
    timezone: 'Europe/London',
  });
}

/** The demo worker's briefing as the Settings tab shows it (the gateway's own answer, not what was asked for). */
export function readDemoBriefing(opts: {
  gatewayUrl: string;
  worker: DemoWorker;
  env: NodeJS.ProcessEnv;
}): Promise<BriefingState> {
  return summaryConfig(opts);
}

/**
 * The demo is complete once every step of it has run once (worker bound, briefing turned on); until then each
 * start completes what is missing. After it, what the user changed (a briefing turned off) is left alone.
 */
export const demoCompleteFile = (dataDir: string) => path.join(dataDir, 'demo-complete');

export async function isDemoComplete(dataDir: string): Promise<boolean> {
  return readFile(demoCompleteFile(dataDir)).then(
    () => true,
    () => false,
  );
}

export async function markDemoComplete(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(demoCompleteFile(dataDir), `${new Date().toISOString()}\n`);
}

/** JSON, as the operator: with GATEWAY_AUTH=token the gateway's API wants GATEWAY_ADMIN_TOKEN. */
function operatorHeaders(env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    ...(env.GATEWAY_ADMIN_TOKEN ? { Authorization: `Bearer ${env.GATEWAY_ADMIN_TOKEN}` } : {}),
  };
}
