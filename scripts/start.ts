import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { writeStartEnv } from '../apps/agent-gateway/src/config.ts';
import {
  bindDemoWorker,
  createDemoKey,
  type DemoWorker,
  prepareDemoWorker,
  wireDemoEvents,
} from './provision-demo.ts';
import {
  ADMIN_KEY_COMMAND,
  logFormat,
  prettyLogLine,
  REVIEW_QUEUE_PAGE,
  startSummary,
} from './start-summary.ts';

// `npm start`: runs each app as its own process (as in production), forwards Ctrl-C / SIGTERM to them, and stops
// everything if one of them exits. With DEMO on (the default) it also switches on the gateway's worker, bridge and
// proposal (writes), daily-summary and platform-event flags (the demo tenant's events sent to the gateway), provisions a demo worker before the gateway starts (the gateway gets it as WEB_WORKER_ID) and, once both
// apps answer, binds it to the demo tenant.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demo = process.env.DEMO !== 'false';
const env: NodeJS.ProcessEnv = {
  ...process.env,
  ...(demo
    ? {
        AI_WORKERS_ENABLED: process.env.AI_WORKERS_ENABLED ?? 'true',
        PLATFORM_BRIDGE_ENABLED: process.env.PLATFORM_BRIDGE_ENABLED ?? 'true',
        PLATFORM_BRIDGE_WRITES: process.env.PLATFORM_BRIDGE_WRITES ?? 'true',
        ASSISTANT_DAILY_SUMMARY_ENABLED: process.env.ASSISTANT_DAILY_SUMMARY_ENABLED ?? 'true',
      }
    : {}),
};
const host = (h: string | undefined) => (!h || h === '0.0.0.0' ? '127.0.0.1' : h);
const platformUrl = `http://${host(env.PLATFORM_HOST)}:${env.PLATFORM_PORT || 4000}`;
const gatewayUrl = `http://${host(env.HOST)}:${env.WEB_PORT || env.PORT || 3000}`;
env.PLATFORM_BASE_URL ??= platformUrl;

const apps = [
  { name: 'platform-bridge', entry: 'apps/platform-bridge/src/main.ts' },
  { name: 'agent-gateway', entry: 'apps/agent-gateway/src/main.ts' },
];

// On a terminal the apps' JSON log lines are shown pretty-printed, one line each, and a summary is printed once
// both apps answer; otherwise (a pipe, a file, a log collector) the JSON passes through untouched, as before.
const format = logFormat(process.env.LOG_FORMAT, Boolean(process.stdout.isTTY));

const children: ChildProcess[] = [];
let stopping = false;

function stopAll(signal: NodeJS.Signals) {
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill(signal);
}

function startApp(app: { name: string; entry: string }) {
  const child = spawn(process.execPath, ['--import', 'tsx', app.entry], {
    cwd: root,
    stdio: format === 'pretty' ? ['inherit', 'pipe', 'inherit'] : 'inherit',
    env,
  });
  if (child.stdout) {
    const colour = Boolean(process.stdout.isTTY);
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) =>
      process.stdout.write(prettyLogLine(line, colour)),
    );
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${app.name} exited (${signal ?? code}); stopping the others`);
      stopAll('SIGTERM');
      process.exitCode = code || 1;
    }
  });
  children.push(child);
}

process.on('SIGINT', () => stopAll('SIGINT'));
process.on('SIGTERM', () => stopAll('SIGTERM'));

async function ready(url: string, deadline: number): Promise<boolean> {
  while (Date.now() < deadline && !stopping) {
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return true;
    await sleep(250);
  }
  return false;
}

async function startDemo() {
  const deadline = Date.now() + 120_000;
  startApp(apps[0]!);
  const dataDir = env.GATEWAY_DATA_DIR || path.join(root, '.data');
  // The demo worker is a few runs of the gateway's CLI (2-7 s each, the first one making the gateway's database)
  // that need nothing of the platform: they run while the bridge starts and its side is wired.
  const preparing = prepareWorker(dataDir);
  if (!(await ready(platformUrl, deadline))) return;
  const [worker] = await Promise.all([preparing, wireEvents(dataDir)]);
  if (worker) env.WEB_WORKER_ID = worker.workerId;
  if (stopping) return;
  // What the gateway is started with goes into its data directory too, for the gateway CLI run by hand.
  writeStartEnv(env, {
    AI_WORKERS_ENABLED: env.AI_WORKERS_ENABLED,
    PLATFORM_BRIDGE_ENABLED: env.PLATFORM_BRIDGE_ENABLED,
    PLATFORM_BRIDGE_WRITES: env.PLATFORM_BRIDGE_WRITES,
    ASSISTANT_DAILY_SUMMARY_ENABLED: env.ASSISTANT_DAILY_SUMMARY_ENABLED,
    PLATFORM_BASE_URL: env.PLATFORM_BASE_URL,
    WEB_WORKER_ID: env.WEB_WORKER_ID,
  });
  startApp(apps[1]!);
  // The key to bind the worker with is made while the gateway starts. It is awaited once the gateway answers;
  // until then a failure must not count as an unhandled rejection (which would end this process).
  const apiKey = worker && !worker.bound ? createDemoKey({ root, env }) : undefined;
  apiKey?.catch(() => {});
  if (!(await ready(gatewayUrl, deadline))) return;
  if (worker && apiKey) {
    try {
      console.error(await bindDemoWorker({ env, gatewayUrl, worker, apiKey: await apiKey }));
    } catch (err) {
      console.error(`demo binding failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  announce(true);
}

/**
 * The gateway reads WEB_WORKER_ID once, at start: the demo worker exists before it does. An operator's own
 * WEB_WORKER_ID wins, and then nothing is provisioned.
 */
async function prepareWorker(dataDir: string): Promise<DemoWorker | null> {
  if (env.WEB_WORKER_ID) return null;
  try {
    return await prepareDemoWorker({ root, env, dataDir });
  } catch (err) {
    console.error(`demo provisioning failed: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

/** The demo tenant's signed events go to the gateway's ingress (PLATFORM_EVENT_WEBHOOKS=false leaves them off). */
async function wireEvents(dataDir: string): Promise<void> {
  if (env.PLATFORM_EVENT_WEBHOOKS === 'false' || stopping) return;
  try {
    env.PLATFORM_WEBHOOK_SECRET = await wireDemoEvents({ root, env, dataDir, gatewayUrl });
    env.PLATFORM_EVENT_WEBHOOKS = 'true';
  } catch (err) {
    console.error(`demo events wiring failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Once both apps answer: on a terminal the summary, else the one line pointing at the chat, as before. */
function announce(withDemo: boolean) {
  if (format === 'pretty') {
    process.stdout.write(startSummary({ env, platformUrl, gatewayUrl, demo: withDemo }));
  } else if (withDemo) {
    console.error(`Open ${gatewayUrl} and ask: "which gas safety certificates have expired?"`);
    console.error(
      `Review the assistant's proposals at ${platformUrl}${REVIEW_QUEUE_PAGE} with an admin key from:`,
    );
    console.error(`  ${ADMIN_KEY_COMMAND}`);
  }
}

if (demo) await startDemo();
else {
  writeStartEnv(env, null);
  for (const app of apps) startApp(app);
  const deadline = Date.now() + 120_000;
  if ((await ready(platformUrl, deadline)) && (await ready(gatewayUrl, deadline))) announce(false);
}
