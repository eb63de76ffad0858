import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { composeCommand, ensureEngine, ensureTools } from './engine.ts';
import { Stack } from './stack.ts';

// `npm run test:compose`: docker-compose.yml run for real, as an operator would, on a machine that reaches no
// image registry. Builds the stand-in images (cached by their recipe's hash, scripts/compose-smoke/stand-ins.sh)
// and the project's image, brings the stack up and checks what `docker compose up` promises: the migrations ran,
// every health check passes, the demo is readable with a key made inside the container, a worker bound across
// the compose network answers the headline question, the summary worker takes a run-now through Redis, a signed
// event goes from the bridge to the gateway by service name, and the data outlives `down` then `up`. The stack
// is removed with its volumes at the end, pass or fail; a dockerd started here is stopped.

const root = path.resolve(import.meta.dirname, '../..');
const project = process.env.COMPOSE_SMOKE_PROJECT ?? 'pa-compose-smoke';
const HEALTHY_MS = 5 * 60_000;
const TENANT = 'demo-lettings';
const QUESTION = 'which gas safety certificates have expired?';

const log = (s: string) => console.log(`compose-smoke: ${s}`);
let passed = 0;
function pass(what: string): void {
  passed += 1;
  console.log(`compose-smoke: ✓ ${what}`);
}
function check(ok: unknown, what: string, got?: unknown): asserts ok {
  if (!ok) throw new Error(`${what}${got === undefined ? '' : `; got ${JSON.stringify(got).slice(0, 800)}`}`);
}

/** A port free on 127.0.0.1 now: the stack's published ports never clash with apps already running here. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function standIns(): Promise<Record<string, string>> {
  // its progress goes to the terminal; its standard output is the NAME=image lines
  const child = spawn('bash', [path.join(import.meta.dirname, 'stand-ins.sh')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? -1)));
  if (code !== 0) throw new Error(`building the stand-in images failed (stand-ins.sh exited ${code})`);
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((l) => l.split('=', 2) as [string, string]),
  );
}

/** docker build with the host's network: the build's `npm ci` must reach the npm registry. */
async function buildAppImage(tag: string, nodeImage: string): Promise<void> {
  const child = spawn(
    'docker',
    ['build', '--network', 'host', '--build-arg', `NODE_IMAGE=${nodeImage}`, '-t', tag, '.'],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DOCKER_BUILDKIT: '0' } },
  );
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? -1)));
  if (code !== 0) throw new Error(`docker build of ${tag} exited ${code}`);
}

async function http(
  method: string,
  url: string,
  opts: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: { ...(opts.body ? { 'Content-Type': 'application/json' } : {}), ...opts.headers },
    body: opts.body ? JSON.stringify(opts.body) : undefined,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(1000);
  }
}

const APPS = ['postgres', 'redis', 'platform-bridge', 'agent-gateway'];

async function smoke(stack: Stack, bridge: string, gateway: string): Promise<void> {
  await stack.run('up', '-d', '--no-build');
  check((await stack.waitExit('migrate', HEALTHY_MS)) === 0, 'the migrate job exits 0');
  pass('the migrate job exited 0');
  await stack.waitHealthy(APPS, HEALTHY_MS);
  const worker = await stack.state('summary-worker');
  check(worker.status === 'running', 'summary-worker runs', worker);
  pass(`every health check passes (${APPS.join(', ')}); summary-worker runs`);

  // a key made inside the bridge's container, as the README says, and the demo portfolio read with it
  const platform = (...args: string[]) =>
    stack.execJson(
      'platform-bridge',
      'node',
      '--import',
      'tsx',
      'apps/platform-bridge/src/cli/main.ts',
      ...args,
    );
  const key = String(
    (await platform('keys', 'create', '--tenant', TENANT, '--scopes', 'bridge:read,bridge:propose', '--json'))
      .key,
  );
  const bearer = { Authorization: `Bearer ${key}` };
  const portfolioUrl = `${bridge}/api/assistant-bridge/portfolio?limit=3`;
  const portfolio = await http('GET', portfolioUrl, { headers: bearer });
  const total = (portfolio.body.summary as { properties_total?: number } | undefined)?.properties_total;
  check(portfolio.status === 200 && total === 24, 'the demo portfolio has 24 properties', portfolio);
  pass(`the demo portfolio read with a key made by \`compose exec\` (${total} properties)`);

  // a worker bound to the demo tenant: the gateway reads the bridge at http://platform-bridge:4000
  const gatewayCli = (...args: string[]) =>
    stack.execJson('agent-gateway', 'node', '--import', 'tsx', 'apps/agent-gateway/src/cli/main.ts', ...args);
  const workspaceId = String((await gatewayCli('workspaces', 'create', '--name', 'Smoke', '--json')).id);
  const workerId = String(
    (
      await gatewayCli(
        'workers',
        'create',
        '--workspace',
        workspaceId,
        '--name',
        'Property Manager',
        '--template',
        'property-manager',
        '--json',
      )
    ).id,
  );
  const ws = { 'X-Workspace-Id': workspaceId };
  const workerUrl = `${gateway}/api/assistant/workers/${workerId}`;
  const bound = await http('POST', `${workerUrl}/platform/bind`, {
    headers: ws,
    body: { tenantSlug: TENANT, apiKey: key },
  });
  check(bound.status === 200 || bound.status === 201, 'the bind answers 2xx', bound);
  check((bound.body.smokeTest as { ok?: boolean }).ok === true, 'the bind’s smoke test passes', bound.body);
  const chat = await http('POST', `${gateway}/api/chat`, { body: { message: QUESTION, workerId } });
  const reply = String(chat.body.reply ?? '');
  check(
    chat.status === 200 && /gas safety/i.test(reply) && /\b[A-Z]{3}-\d{3}\b/.test(reply),
    'the chat names expired gas safety certificates by property',
    chat,
  );
  pass(`the chat answers "${QUESTION}" through a worker bound across the compose network`);

  // run-now is queued in Redis by the gateway and run by summary-worker
  const runNow = await http('POST', `${workerUrl}/summary/run-now`, { headers: ws });
  check(runNow.status === 202, 'run-now answers 202', runNow);
  const runId = String(runNow.body.runId);
  const run = await until('the summary run to finish', 3 * 60_000, async () => {
    const { body } = await http('GET', `${workerUrl}/summary/runs`, { headers: ws });
    const r = (body.runs as Array<{ id: string; status: string; error: string | null }>).find(
      (x) => x.id === runId,
    );
    return r && !['queued', 'running'].includes(r.status) ? r : undefined;
  });
  check(run.status === 'delivered', 'the summary run is delivered', run);
  pass('summary-worker took a run-now from Redis and delivered it');

  // a signed event from the bridge to http://agent-gateway:3000, wired as the README says
  await platform('flags', 'set', '--tenant', TENANT, '--flag', 'platform_event_webhooks', '--on', '--json');
  const added = await platform(
    'webhooks',
    'add',
    '--tenant',
    TENANT,
    '--url',
    'http://agent-gateway:3000/api/platform/events',
    '--json',
  );
  stack.env.PLATFORM_EVENT_WEBHOOKS = 'true';
  stack.env.PLATFORM_WEBHOOK_SECRET = String(added.secret);
  await stack.run('up', '-d', '--no-build', '--no-deps', 'agent-gateway');
  await stack.waitHealthy(['agent-gateway'], HEALTHY_MS);
  const admin = await platform(
    'admins',
    'create',
    '--tenant',
    TENANT,
    '--email',
    'smoke@example.com',
    '--json',
  );
  const adminAuth = { Authorization: `Bearer ${String(admin.key)}` };
  const queue = await http('GET', `${bridge}/api/admin/review-queue`, { headers: adminAuth });
  const pending = (queue.body.items as Array<{ proposal_id: number }> | undefined)?.[0];
  check(queue.status === 200 && pending, 'the demo has a pending proposal', queue);
  const rejected = await http('POST', `${bridge}/api/admin/proposals/${pending.proposal_id}/reject`, {
    headers: adminAuth,
    body: { reason: 'compose smoke test' },
  });
  check(rejected.status === 200, 'the rejection answers 200', rejected);
  const event = await until('the signed event to reach the gateway', 2 * 60_000, async () => {
    const { body } = await http('GET', `${workerUrl}/events`, { headers: ws });
    return (body.events as Array<{ type: string; data: Record<string, unknown> }>).find(
      (e) => e.type === 'proposal.rejected',
    );
  });
  check(event.data.tenant_slug === TENANT, 'the event names the demo tenant', event);
  pass('a signed proposal.rejected event went from the bridge to the gateway by service name');

  // down (containers and network, not the volumes) then up: the key, the binding and the event are still there
  await stack.run('down');
  await stack.run('up', '-d', '--no-build');
  await stack.waitHealthy(APPS, HEALTHY_MS);
  const again = await http('GET', portfolioUrl, { headers: bearer });
  check(again.status === 200, 'the key still reads the portfolio after down/up', again);
  const events = await http('GET', `${workerUrl}/events`, { headers: ws });
  check(
    (events.body.events as Array<{ type: string }>).some((e) => e.type === 'proposal.rejected'),
    'the event is still there after down/up',
    events,
  );
  const chatAgain = await http('POST', `${gateway}/api/chat`, { body: { message: QUESTION, workerId } });
  check(
    chatAgain.status === 200 && /gas safety/i.test(String(chatAgain.body.reply)),
    'the binding still answers',
  );
  pass('`down` then `up` kept the key, the binding and the event');
}

async function main(): Promise<void> {
  const started = Date.now();
  let stopEngine: () => Promise<void>;
  try {
    ensureTools(log);
    stopEngine = await ensureEngine(log);
  } catch (err) {
    // no skip: a machine where Docker cannot run fails the test, saying why
    console.error(`compose-smoke: FAILED: Docker cannot run here: ${(err as Error).message}`);
    process.exit(1);
  }
  let stack: Stack | undefined;
  let failed: unknown;
  // Ctrl-C or CI's timeout: stop waiting, but still remove the stack and stop the engine started here
  const interrupted = new Promise<never>((_, reject) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const)
      process.once(sig, () => reject(new Error(`interrupted (${sig})`)));
  });
  const body = async () => {
    const images = await standIns();
    log(`stand-ins: ${Object.values(images).join(', ')}`);
    const appImage = `${project}:local`;
    log(`building ${appImage} on ${images.NODE_IMAGE}`);
    await buildAppImage(appImage, images.NODE_IMAGE!);
    log(`images ready after ${Math.round((Date.now() - started) / 1000)} s`);
    const [bridgePort, gatewayPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...images,
      APP_IMAGE: appImage,
      BRIDGE_PORT: String(bridgePort),
      GATEWAY_PORT: String(gatewayPort),
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      ASSISTANT_DAILY_SUMMARY_ENABLED: 'true',
      // on once `webhooks add` has printed the secret: the gateway refuses the flag without it
      PLATFORM_EVENT_WEBHOOKS: 'false',
      PLATFORM_WEBHOOK_SECRET: '',
      PROVIDER: 'local',
    };
    stack = new Stack(composeCommand(), project, root, env);
    // a stack left by an interrupted run goes first
    await stack.run('down', '-v', '--remove-orphans');
    await smoke(stack, `http://127.0.0.1:${bridgePort}`, `http://127.0.0.1:${gatewayPort}`);
  };
  try {
    await Promise.race([body(), interrupted]);
  } catch (err) {
    failed = err;
    if (stack) {
      console.error('compose-smoke: the stack when it failed:');
      await stack.output('ps').then(console.error, () => {});
      await stack.output('logs', '--no-color', '--tail', '40').then(console.error, () => {});
    }
  } finally {
    if (stack) await stack.run('down', '-v', '--remove-orphans').catch((e: unknown) => console.error(e));
    await stopEngine();
  }
  const secs = Math.round((Date.now() - started) / 1000);
  if (failed) {
    console.error(`compose-smoke: FAILED after ${passed} checks (${secs} s): ${(failed as Error).message}`);
    process.exit(1);
  }
  log(`all ${passed} checks passed in ${secs} s`);
}

await main();
