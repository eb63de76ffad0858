import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BrowserHarness, expectNoPageProblems, scaled } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/config.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';

// Issue 30: "502 of 559 lines of a start log were per-request info lines (the chat page polls /events)". The
// gateway as `npm run gateway` runs it (main.ts, its own process, LOG_LEVEL=info), the chat page open in Chromium
// and a probe asking /healthz and /readyz every 5 s, for one idle minute: its log gains no line at all, so the
// start summary stays the last thing on screen; a warning still shows, and so does a poll that fails.

type Line = { level: number; msg: string; path?: string; status?: number; url?: string };
const INFO = 30;
const WARN = 40;
const IDLE_MS = 60_000;

let browser: BrowserHarness;
let g: TestGateway; // the database, migrated and seeded; the process under test is `gateway` below
let workspaceId: string;
let workerId: string;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pa-idle-log-'));
let gateway: ChildProcess | undefined;
const lines: Line[] = [];
let stderr = '';

beforeAll(async () => {
  const env = {
    AI_WORKERS_ENABLED: 'true',
    PLATFORM_EVENT_WEBHOOKS: 'true',
    PLATFORM_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
  };
  [browser, g] = await Promise.all([BrowserHarness.launch(), startTestGateway({ env, redis: 'none' })]);
  const workspace = await g.db.workspace.create({ data: { name: 'Demo' } });
  const worker = await g.db.worker.create({
    data: { workspaceId: workspace.id, name: 'Property Manager', skillPacks: ['property-uk'] },
  });
  workspaceId = workspace.id;
  workerId = worker.id;
});
afterAll(async () => {
  if (gateway && gateway.exitCode === null && gateway.signalCode === null) {
    const exited = new Promise((resolve) => gateway!.once('exit', resolve));
    gateway.kill('SIGTERM');
    await exited;
  }
  await browser?.close();
  await g?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** main.ts on the seeded database; resolves with its address once it logs that it listens. */
async function startGateway(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/agent-gateway/src/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...env,
      GATEWAY_DATABASE_URL: g.databaseUrl,
      GATEWAY_DATA_DIR: dataDir,
      // unset, so that the gateway warns at start (it keeps a generated key in the data directory)
      GATEWAY_SECRET_KEY: '',
      REDIS_PREFIX: g.config.REDIS_PREFIX,
      HOST: '127.0.0.1',
      WEB_PORT: '',
      PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gateway = child;
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let partial = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${stderr}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`the gateway exited (${code}):\n${stderr}`)));
    child.stdout!.on('data', (d: Buffer) => {
      const parts = (partial + d.toString()).split('\n');
      partial = parts.pop()!;
      for (const text of parts.filter(Boolean)) {
        const line = JSON.parse(text) as Line;
        lines.push(line);
        if (line.url && line.msg.startsWith('agent-gateway listening')) {
          clearTimeout(timer);
          resolve(line.url);
        }
      }
    });
  });
}

const describeLines = (some: Line[]) => some.map((l) => JSON.stringify(l)).join('\n');

describe('an idle minute with the chat page open, at LOG_LEVEL=info', () => {
  it(
    'adds no line to the log; warnings and failed requests still show',
    async () => {
      const url = await startGateway({
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_EVENT_WEBHOOKS: 'true',
        PLATFORM_WEBHOOK_SECRET: g.config.PLATFORM_WEBHOOK_SECRET!,
      });
      // the start's own warning is there, at warn
      expect(
        lines.some((l) => l.level === WARN && /GATEWAY_SECRET_KEY is not set/.test(l.msg)),
        describeLines(lines),
      ).toBe(true);

      const polls: string[] = [];
      const page = await browser.openPage(`${url}/`);
      // the page's start, as the gateway logged it: its context, its provider and its conversation list (the log
      // lines reach this test through a pipe, later than the browser gets the answers on a loaded machine)
      const startLogged = () =>
        ['/api/web/context', '/api/providers', '/api/chat/sessions'].every((path) =>
          lines.some((l) => l.msg === 'request' && l.path === path),
        );
      page.on('request', (r) => {
        if (new URL(r.url()).pathname === `/api/assistant/workers/${workerId}/events`) polls.push(r.url());
      });
      // loaded: the page knows its provider, has its conversation list (logged at info as part of its start, which
      // on a loaded machine can come late), and its events feed has polled once since
      await expect.poll(() => page.locator('#active-provider').textContent()).not.toBe('…');
      await expect.poll(startLogged, { timeout: scaled(15_000) }).toBe(true);
      await expect.poll(() => polls.length, { timeout: scaled(15_000) }).toBeGreaterThan(0);
      // the page's own start (its context, its history) was logged at info; the idle minute starts now
      const idleFrom = lines.length;

      // the minute itself, with the probes a container runtime would send
      const end = Date.now() + IDLE_MS;
      while (Date.now() < end) {
        const probes = await Promise.all([fetch(`${url}/healthz`), fetch(`${url}/readyz`)]);
        expect(probes.map((r) => r.status)).toEqual([200, 200]);
        await sleep(Math.min(5_000, Math.max(0, end - Date.now())));
      }

      // the page did poll (every 5 s), and not a line was added
      expect(polls.length).toBeGreaterThanOrEqual(10);
      expect(describeLines(lines.slice(idleFrom))).toBe('');
      // nor did the page's load log its files, or the polls before the minute, at info
      const routine = lines.filter(
        (l) =>
          l.msg === 'request' &&
          l.level >= INFO &&
          (l.path === '/' || /\.(js|css|svg|mjs)$/.test(l.path ?? '') || /\/events$/.test(l.path ?? '')),
      );
      expect(describeLines(routine)).toBe('');

      // a poll that fails still shows, at info, at once
      const unknown = '00000000-0000-4000-8000-000000000000';
      const failed = await fetch(`${url}/api/assistant/workers/${unknown}/events?limit=5`, {
        headers: { 'X-Workspace-Id': workspaceId },
      });
      expect(failed.status).toBe(404);
      await expect
        .poll(() => lines.find((l) => l.path === `/api/assistant/workers/${unknown}/events`))
        .toMatchObject({ msg: 'request', level: INFO, status: 404 });
      expectNoPageProblems(await browser.endTest());
    },
    scaled(150_000),
  );
});
