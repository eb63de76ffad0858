import { type ChildProcess, spawn } from 'node:child_process';
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

describe('Node.js version', () => {
  it('package.json engines agree with Prisma 7, and the README says the same', () => {
    const engines = (f: string) =>
      (JSON.parse(readFileSync(path.join(root, f), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines('package.json')).toBe(engines('node_modules/prisma/package.json'));
    expect(engines('package.json')).toBe('^20.19 || ^22.12 || >=24.0');
    expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toContain('Node.js 20.19+, 22.12+ or 24+');
  });
});
