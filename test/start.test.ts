import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@pa/http-kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { bridgeMetricsPort } from '../scripts/start/metrics-port.ts';
import { migrationCount, npmStart, root } from './support/npm-start.ts';

// `npm start` (scripts/start.ts) without the demo, as an operator sees it: on a terminal and through a pipe, and
// what it does when a step fails. The demo's starts are in start-demo.test.ts.

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pa-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const plain = { DEMO: 'false', PLATFORM_DATA_DIR: dataDir, GATEWAY_DATA_DIR: dataDir };

describe('npm start', () => {
  it('on a terminal: a line per step, pretty log lines and a summary of where things are', async () => {
    const { stdout, stderr } = await npmStart({
      env: { ...plain, LOG_FORMAT: 'pretty' },
      until: ({ stdout }) => stdout.includes('review queue'),
      waitMs: 240_000,
    });
    expect(stderr).toMatch(
      new RegExp(
        `^✓ Preparing the platform database: ${migrationCount('platform')} migrations applied \\(`,
        'm',
      ),
    );
    expect(stderr).toMatch(
      new RegExp(
        `^✓ Preparing the gateway database: ${migrationCount('gateway')} migrations applied \\(`,
        'm',
      ),
    );
    expect(stderr).toMatch(/^✓ Starting platform-bridge: http:\/\/127\.0\.0\.1:PLATFORM \(/m);
    expect(stderr).toMatch(/^✓ Starting agent-gateway: http:\/\/127\.0\.0\.1:GATEWAY \(chat UI at \/\) \(/m);
    expect(stdout).toContain('Property assistant is running');
    expect(stdout).toMatch(/platform-bridge +http:\/\/127\.0\.0\.1:PLATFORM/);
    expect(stdout).toMatch(/agent-gateway +http:\/\/127\.0\.0\.1:GATEWAY +\(chat UI at \//);
    expect(stdout).toMatch(
      /gateway flags +on: WEB_ENABLED; off: AI_WORKERS_ENABLED, PLATFORM_BRIDGE_ENABLED, PLATFORM_BRIDGE_WRITES, ASSISTANT_DAILY_SUMMARY_ENABLED/,
    );
    expect(stdout).toContain('http://127.0.0.1:PLATFORM/settings/review-queue');
    // beside it the remote-access page, and an admin key that opens both
    expect(stdout).toMatch(/remote access +http:\/\/127\.0\.0\.1:PLATFORM\/settings\/remote-access/);
    expect(stdout).toMatch(
      /admin key +npm run platform -- admins create .*--scopes review:read,review:write,access:manage/,
    );
    expect(stdout).toMatch(/INFO: agent-gateway: agent-gateway listening on http:\/\/127\.0\.0\.1:GATEWAY/);
    for (const line of stdout.split('\n')) expect(line, 'no raw JSON log line').not.toMatch(/^\{"level"/);
  }, 300_000);

  it('piped (not a terminal): the JSON log lines, untouched, and no summary', async () => {
    const { stdout } = await npmStart({
      env: plain,
      until: ({ stdout }) => stdout.includes('agent-gateway listening'),
      waitMs: 240_000,
    });
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    expect(stdout).not.toContain('Property assistant is running');
  }, 300_000);
});

/** Whether a listener can take `port` on 127.0.0.1 now. */
const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

describe('npm start with METRICS_PORT', () => {
  it('gives the bridge’s metrics listener the next port (PLATFORM_METRICS_PORT unset), and says so', async () => {
    let port = await freePort();
    while (!(await canListen(port + 1))) port = await freePort();
    const scraped: Record<string, string> = {};
    const { stderr } = await npmStart({
      env: { ...plain, METRICS_ENABLED: 'true', METRICS_PORT: String(port) },
      until: ({ stdout }) => stdout.includes('agent-gateway listening'),
      during: async (urls) => {
        // one answered request each, so the HTTP counters have a series whatever start's own probes did
        for (const url of [urls.gateway, urls.platform])
          expect((await fetch(`${url}/healthz`)).status).toBe(200);
        for (const p of [port, port + 1]) {
          const res = await fetch(`http://127.0.0.1:${p}/metrics`);
          expect(res.status, `port ${p}`).toBe(200);
          scraped[p] = await res.text();
        }
      },
      waitMs: 240_000,
    });
    expect(scraped[port]).toMatch(/^pa_http_requests_total\{.*app="agent-gateway"/m);
    expect(scraped[port + 1]).toMatch(/app="platform-bridge"/);
    expect(scraped[port + 1]).not.toMatch(/app="agent-gateway"/);
    expect(stderr).toContain(
      `its metrics listener on port ${port + 1} (METRICS_PORT+1: METRICS_PORT ${port} is the gateway’s; PLATFORM_METRICS_PORT sets another)`,
    );
  }, 300_000);

  it('chooses nothing when PLATFORM_METRICS_PORT is set, METRICS_PORT is unset or 0, or no port at all', () => {
    expect(bridgeMetricsPort({ METRICS_PORT: '9464' })).toBe(9465);
    expect(bridgeMetricsPort({ METRICS_PORT: ' 9464 ', PLATFORM_METRICS_PORT: '' })).toBe(9465);
    expect(bridgeMetricsPort({ METRICS_PORT: '9464', PLATFORM_METRICS_PORT: '9500' })).toBeNull();
    for (const METRICS_PORT of [undefined, '', '0', '65535', 'abc', '-1', '9464.5', '123456']) {
      expect(bridgeMetricsPort({ METRICS_PORT }), String(METRICS_PORT)).toBeNull();
    }
  });
});

/** npm start to its end; its exit code and what it said. */
function startUntilExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: { ...process.env, ...plain, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

describe('npm start when a step fails', () => {
  it('a database it cannot reach: says which step failed and what to do, starts nothing, exits 1', async () => {
    const { code, stderr } = await startUntilExit({
      PLATFORM_DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/pa_start_unreachable',
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^✗ Preparing the platform database failed: /m);
    expect(stderr).toContain('Check that PostgreSQL runs and the URL is right');
    expect(stderr).toContain('npm start stopped: nothing more was started.');
    expect(stderr).not.toContain('Starting platform-bridge');
  }, 120_000);

  it('a port already taken: the app that stopped is named, the other stopped, exit 1', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      const { code, stderr } = await startUntilExit({ PLATFORM_PORT: String(port) });
      expect(code).toBe(1);
      expect(stderr).toMatch(
        /^✗ Starting platform-bridge failed: platform-bridge stopped \(exit code \d+\) before it answered/m,
      );
      expect(stderr).toContain('Its log lines above say why');
      expect(stderr).not.toContain('Starting agent-gateway');
    } finally {
      taken.close();
    }
  }, 240_000);

  it('a setting it refuses: named before anything starts, exit 1', async () => {
    const { code, stderr } = await startUntilExit({ PLATFORM_PORT: 'not-a-port' });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^✗ Preparing the platform database failed: Invalid configuration:\n +PLATFORM_PORT: /m,
    );
    expect(stderr).toContain('docs/configuration.md');
  }, 120_000);
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
