import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@pa/http-kit/testing';
import { afterAll, describe, expect, it } from 'vitest';

// `npm start` (scripts/start.ts) as an operator sees it, on free ports and throw-away data directories.
const root = path.resolve(import.meta.dirname, '..');

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pa-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(
  env: Record<string, string>,
  until: (stdout: string) => boolean,
  /** runs once `until` holds, while both apps still run */
  during?: (urls: { platform: string; gateway: string }) => Promise<void>,
): Promise<{ stdout: string; stderr: string }> {
  const [platformPort, gatewayPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DEMO: 'false',
      PLATFORM_PORT: String(platformPort),
      WEB_PORT: String(gatewayPort),
      PLATFORM_DATA_DIR: dataDir,
      GATEWAY_DATA_DIR: dataDir,
      PLATFORM_DATABASE_URL: '',
      GATEWAY_DATABASE_URL: '',
      REDIS_PREFIX: `test:start:${process.pid}:`,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`npm start did not get there:\n${stdout}\n${stderr}`)),
        100_000,
      );
      child.stdout!.on('data', (d: Buffer) => {
        stdout += d;
        if (until(stdout)) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`npm start exited:\n${stdout}\n${stderr}`));
      });
    });
    await during?.({
      platform: `http://127.0.0.1:${platformPort}`,
      gateway: `http://127.0.0.1:${gatewayPort}`,
    });
    return {
      stdout: stdout.replaceAll(String(platformPort), 'PLATFORM').replaceAll(String(gatewayPort), 'GATEWAY'),
      stderr,
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('npm start', () => {
  it('on a terminal: pretty log lines and a summary of where things are', async () => {
    const { stdout } = await start({ LOG_FORMAT: 'pretty' }, (out) => out.includes('review queue'));
    expect(stdout).toContain('Property assistant is running');
    expect(stdout).toMatch(/platform-bridge +http:\/\/127\.0\.0\.1:PLATFORM/);
    expect(stdout).toMatch(/agent-gateway +http:\/\/127\.0\.0\.1:GATEWAY +\(chat UI at \//);
    expect(stdout).toMatch(
      /gateway flags +on: WEB_ENABLED; off: AI_WORKERS_ENABLED, PLATFORM_BRIDGE_ENABLED, PLATFORM_BRIDGE_WRITES, ASSISTANT_DAILY_SUMMARY_ENABLED/,
    );
    expect(stdout).toContain('http://127.0.0.1:PLATFORM/settings/review-queue');
    expect(stdout).toMatch(/INFO: agent-gateway: agent-gateway listening on http:\/\/127\.0\.0\.1:GATEWAY/);
    for (const line of stdout.split('\n')) expect(line, 'no raw JSON log line').not.toMatch(/^\{"level"/);
  }, 120_000);

  it('piped (not a terminal): the JSON log lines, untouched, and no summary', async () => {
    const { stdout } = await start({}, (out) => out.includes('agent-gateway listening'));
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    expect(stdout).not.toContain('Property assistant is running');
  }, 120_000);
});

describe('npm start with the demo', () => {
  // The "done": approving a proposal in the review queue shows up in the gateway's event feed, signed by
  // the platform and verified by the gateway, with nothing wired by hand.
  it('wires the signed events: an approval in the review queue reaches the demo worker’s feed', async () => {
    const demoDir = mkdtempSync(path.join(os.tmpdir(), 'pa-start-demo-'));
    try {
      const { stdout } = await start(
        {
          DEMO: 'true',
          LOG_FORMAT: 'pretty',
          PLATFORM_DATA_DIR: demoDir,
          GATEWAY_DATA_DIR: demoDir,
          ASSISTANT_DAILY_SUMMARY_ENABLED: 'false',
        },
        (out) => out.includes('review queue'),
        async ({ platform, gateway }) => {
          const cli = spawnSync(
            process.execPath,
            [
              '--import',
              'tsx',
              'apps/platform-bridge/src/cli/main.ts',
              'admins',
              'create',
              '--tenant',
              'demo-lettings',
              '--email',
              'events-test@demo.example',
              '--json',
            ],
            {
              cwd: root,
              env: { ...process.env, PLATFORM_DATA_DIR: demoDir, PLATFORM_DATABASE_URL: '' },
              encoding: 'utf8',
            },
          );
          expect(cli.status, cli.stderr).toBe(0);
          const admin = { authorization: `Bearer ${(JSON.parse(cli.stdout) as { key: string }).key}` };
          const queue = (await (
            await fetch(`${platform}/api/admin/review-queue?status=pending_review`, { headers: admin })
          ).json()) as { items: { proposal_id: number; kind: string }[] };
          const pending = queue.items.find((i) => i.kind === 'deal') ?? queue.items[0];
          expect(pending, 'the demo has pending proposals').toBeDefined();

          const context = (await (await fetch(`${gateway}/api/web/context`)).json()) as {
            workspaceId: string;
            worker: { id: string };
          };
          const feed = async () =>
            (
              (await (
                await fetch(`${gateway}/api/assistant/workers/${context.worker.id}/events`, {
                  headers: { 'X-Workspace-Id': context.workspaceId },
                })
              ).json()) as { events: { type: string; message: string; data: { proposal_id?: number } }[] }
            ).events;
          const approvedAt = Date.now();
          const res = await fetch(`${platform}/api/admin/proposals/${pending!.proposal_id}/approve`, {
            method: 'POST',
            headers: { ...admin, 'content-type': 'application/json' },
            body: JSON.stringify({ note: 'Approved in the npm start test.' }),
          });
          expect(res.status, await res.clone().text()).toBe(200);
          let event: Awaited<ReturnType<typeof feed>>[number] | undefined;
          while (!event && Date.now() - approvedAt < 10_000) {
            event = (await feed()).find(
              (e) => e.type === 'proposal.approved' && e.data.proposal_id === pending!.proposal_id,
            );
          }
          const elapsed = Date.now() - approvedAt;
          expect(event?.message).toMatch(/was \*\*approved\*\*\. Note: “Approved in the npm start test\.”$/);
          // a second on a quiet machine (the commit wakes the sender at once); the margin is for a loaded one
          expect(elapsed).toBeLessThan(3_000);
        },
      );
      expect(stdout).toMatch(/gateway flags +on: [^\n]*PLATFORM_EVENT_WEBHOOKS/);
    } finally {
      rmSync(demoDir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('Node.js version', () => {
  it('package.json engines agree with Prisma 7, and the README says the same', () => {
    const engines = (f: string) =>
      (JSON.parse(readFileSync(path.join(root, f), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines('package.json')).toBe(engines('node_modules/prisma/package.json'));
    expect(engines('package.json')).toBe('^20.19 || ^22.12 || >=24.0');
    expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toContain('Node.js 20.19+, 22.12+ or 24+');
  });
});
