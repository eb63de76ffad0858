import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStartEnv } from '../apps/agent-gateway/src/config.ts';
import {
  bindDemoWorker,
  type BriefingState,
  createDemoKey,
  DEMO_TENANT,
  type DemoWorker,
  enableDemoBriefing,
  isDemoComplete,
  markDemoComplete,
  readDemoBriefing,
} from './provision-demo.ts';
import { createAppRunner, GATEWAY_APP, PLATFORM_APP } from './start/apps.ts';
import { wireDemoEvents } from './start/demo-events.ts';
import { prepareDemoWorker } from './start/demo-worker.ts';
import { bridgeMetricsPort } from './start/metrics-port.ts';
import { prepareGatewayDatabase, preparePlatformDatabase } from './start/databases.ts';
import { createProgress, StepFailure } from './start/progress.ts';
import {
  ADMIN_KEY_COMMAND,
  logFormat,
  REMOTE_ACCESS_PAGE,
  REVIEW_QUEUE_PAGE,
  startSummary,
} from './start-summary.ts';

// `npm start`: the databases migrated, then each app as its own process (as in production); with DEMO on (the
// default) the demo made or completed on the way. Each step prints one line as it happens; there is no deadline (a
// slow machine only makes the start slower), and a step that fails says what failed and what to do, stops what
// was started and exits non-zero. Ctrl-C / SIGTERM are passed to the apps.
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
// METRICS_PORT is the gateway's metrics listener; the bridge's takes the next port unless PLATFORM_METRICS_PORT
// names one (both apps read this one environment: the same port twice would stop the second with EADDRINUSE)
const bridgeMetrics = bridgeMetricsPort(env);
if (bridgeMetrics !== null) env.PLATFORM_METRICS_PORT = String(bridgeMetrics);
const dataDir = env.GATEWAY_DATA_DIR || path.join(root, '.data');

// On a terminal the apps' JSON log lines are shown pretty-printed, one line each, and a summary is printed once
// everything is up; otherwise (a pipe, a file, a log collector) the JSON passes through untouched.
const format = logFormat(process.env.LOG_FORMAT, Boolean(process.stdout.isTTY));
const colour = Boolean(process.stderr.isTTY);
const progress = createProgress({
  write: (line) => process.stderr.write(`${line}\n`),
  colour,
  delayMs: Number(process.env.START_STEP_DELAY_MS) || 0,
});
const apps = createAppRunner({ root, format, colour: Boolean(process.stdout.isTTY) });

apps.onUnexpectedExit((app, how) => {
  process.stderr.write(`${app.spec.name} stopped (${how}); stopping the other app\n`);
  process.exitCode = 1;
  void apps.stopAll('SIGTERM');
});
process.on('SIGINT', () => void apps.stopAll('SIGINT'));
process.on('SIGTERM', () => void apps.stopAll('SIGTERM'));

async function databases(): Promise<DemoWorker | null> {
  // The demo's signed events (the platform's side) are wired on the platform's database while it is open here.
  const wireEvents = demo && env.PLATFORM_EVENT_WEBHOOKS !== 'false';
  const platform = await progress.step(
    wireEvents
      ? 'Preparing the platform database and the demo’s signed events'
      : 'Preparing the platform database',
    () =>
      preparePlatformDatabase(
        env,
        progress.note,
        wireEvents ? (db, config) => wireDemoEvents({ db, config, dataDir, gatewayUrl }) : undefined,
      ),
    ({ applied, seeded }) =>
      `${applied} migrations applied` +
      (seeded
        ? `; demo tenant ${DEMO_TENANT} made (${seeded.properties} properties, ${seeded.complianceItems} compliance items)`
        : '') +
      (wireEvents ? `; ${DEMO_TENANT}'s events go to ${gatewayUrl}/api/platform/events` : ''),
  );
  if (platform.demo) {
    env.PLATFORM_WEBHOOK_SECRET = platform.demo;
    env.PLATFORM_EVENT_WEBHOOKS = 'true';
  }
  // An operator's own WEB_WORKER_ID wins: then no demo worker is provisioned.
  const makeWorker = demo && !env.WEB_WORKER_ID;
  const { demo: worker } = await progress.step(
    makeWorker ? 'Preparing the gateway database and the demo worker' : 'Preparing the gateway database',
    () =>
      prepareGatewayDatabase(
        env,
        progress.note,
        makeWorker ? (db) => prepareDemoWorker(db, dataDir) : undefined,
      ),
    ({ applied, demo: w }) =>
      `${applied} migrations applied` +
      (!makeWorker
        ? ''
        : w
          ? `; worker "Property Manager" ${w.workerId}${w.bound ? ' (bound already)' : ''}`
          : '; the gateway has workers of its own: no demo worker made'),
  );
  return worker ?? null;
}

async function startPlatform(): Promise<void> {
  const app = apps.start(PLATFORM_APP, env);
  await progress.step(
    'Starting platform-bridge',
    () => apps.ready(app, platformUrl),
    () =>
      bridgeMetrics === null
        ? platformUrl
        : `${platformUrl}; its metrics listener on port ${bridgeMetrics} (METRICS_PORT+1: METRICS_PORT ${env.METRICS_PORT} is the gateway’s; PLATFORM_METRICS_PORT sets another)`,
  );
}

async function startGateway(): Promise<void> {
  // What the gateway is started with goes into its data directory too, for the gateway CLI run by hand.
  writeStartEnv(
    env,
    demo
      ? {
          AI_WORKERS_ENABLED: env.AI_WORKERS_ENABLED,
          PLATFORM_BRIDGE_ENABLED: env.PLATFORM_BRIDGE_ENABLED,
          PLATFORM_BRIDGE_WRITES: env.PLATFORM_BRIDGE_WRITES,
          ASSISTANT_DAILY_SUMMARY_ENABLED: env.ASSISTANT_DAILY_SUMMARY_ENABLED,
          PLATFORM_BASE_URL: env.PLATFORM_BASE_URL,
          WEB_WORKER_ID: env.WEB_WORKER_ID,
        }
      : null,
  );
  const app = apps.start(GATEWAY_APP, env);
  await progress.step(
    'Starting agent-gateway',
    () => apps.ready(app, gatewayUrl),
    () => `${gatewayUrl} (chat UI at /)`,
  );
}

const AGAIN = 'Fix that, then run `npm start` again: it completes the demo where it stopped.';

/** The demo's steps, each idempotent: a demo left half-made by an interrupted start is completed here. */
async function startDemo(worker: DemoWorker | null): Promise<BriefingState | null> {
  // The gateway starts with the demo worker as its default worker (WEB_WORKER_ID).
  if (worker) env.WEB_WORKER_ID = worker.workerId;
  await startPlatform();
  // The key to bind the worker with is made while the gateway starts; until it is awaited, a failure must not
  // count as an unhandled rejection (which would end this process).
  const apiKey = worker && !worker.bound ? guard(() => createDemoKey({ root, env })) : null;
  apiKey?.catch(() => {});
  await startGateway();
  if (!worker) return null;
  if (apiKey) {
    await progress.step(
      `Binding the demo worker to ${DEMO_TENANT}`,
      async () => guard(async () => bindDemoWorker({ env, gatewayUrl, worker, apiKey: await apiKey })),
      ({ propertiesTotal }) => `smoke test read ${propertiesTotal} properties`,
    );
  }
  const briefing = await demoBriefing(worker);
  // complete once the briefing was turned on (or the daily summary is off for this start); else the next start tries
  if (briefing?.enabled || env.ASSISTANT_DAILY_SUMMARY_ENABLED !== 'true') await markDemoComplete(dataDir);
  return briefing;
}

/**
 * The demo's daily briefing, turned on at the first complete start; what the summary then shows is read back from
 * the gateway, so that it says what the Settings tab says. Without Redis it cannot be kept: the demo runs on.
 */
async function demoBriefing(worker: DemoWorker): Promise<BriefingState | null> {
  if (env.ASSISTANT_DAILY_SUMMARY_ENABLED !== 'true') return null;
  const opts = { env, gatewayUrl, worker };
  if (!(await isDemoComplete(dataDir))) {
    try {
      return await progress.step(
        'Turning on the demo’s daily briefing',
        () => enableDemoBriefing(opts),
        (b) => `08:00 London time, on the web (next ${b.nextRunAt ?? '—'})`,
      );
    } catch {
      // said by the step; the summary tells how to turn it on
    }
  }
  return readDemoBriefing(opts).catch(() => null);
}

/** A failing provisioning call as a step failure that says what to do. */
async function guard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof StepFailure) throw err;
    throw new StepFailure('demo', err instanceof Error ? err.message : String(err), AGAIN);
  }
}

/** Once everything is up: on a terminal the summary, else the one line pointing at the chat. */
function announce(briefing: BriefingState | null) {
  if (format === 'pretty') {
    process.stdout.write(startSummary({ env, platformUrl, gatewayUrl, demo, briefing }));
  } else if (demo) {
    console.error(`Open ${gatewayUrl} and ask: "which gas safety certificates have expired?"`);
    console.error(
      `Review the assistant's proposals at ${platformUrl}${REVIEW_QUEUE_PAGE}, and manage its keys and switches at ` +
        `${platformUrl}${REMOTE_ACCESS_PAGE}, with an admin key from:`,
    );
    console.error(`  ${ADMIN_KEY_COMMAND}`);
  }
}

try {
  const worker = await databases();
  if (demo) {
    announce(await startDemo(worker));
  } else {
    await startPlatform();
    await startGateway();
    announce(null);
  }
} catch (err) {
  if (!apps.stopping) {
    if (!(err instanceof StepFailure)) process.stderr.write(`npm start failed: ${String(err)}\n`);
    process.stderr.write('npm start stopped: nothing more was started.\n');
    process.exitCode = 1;
    await apps.stopAll('SIGTERM');
  }
}
