import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@pa/db-tools/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, MIGRATIONS_DIR, REPO_ROOT } from '../src/config.ts';
import { scaled } from '@pa/http-kit/testing';

// The real gateway process on 0.0.0.0 (docs/access.md): without tokens it refuses to start, with one clear line.

let database: { url: string; drop(): Promise<void> };
let dataDir: string;
beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'gateway_access_start', migrationsDir: MIGRATIONS_DIR });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-access-'));
});
afterAll(async () => {
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts apps/agent-gateway/src/main.ts; resolves when it exits, or when its output matches `until` (then it is stopped). */
function startGateway(env: Record<string, string>, until?: RegExp): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'apps/agent-gateway/src/main.ts')],
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH,
          GATEWAY_DATABASE_URL: database.url,
          GATEWAY_DATA_DIR: dataDir,
          REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
          REDIS_PREFIX: `test:start:${process.pid}:`,
          RUN_WORKER_IN_PROCESS: 'false',
          WEB_PORT: '0',
          ...env,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the gateway neither exited nor matched in 60 s:\n${stdout}\n${stderr}`));
    }, scaled(60_000));
    const check = () => {
      if (until && until.test(stdout + stderr)) child.kill('SIGTERM');
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
      check();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      check();
    });
    child.on('exit', (code) => {
      clearTimeout(deadline);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('starting on 0.0.0.0', () => {
  it('refuses GATEWAY_AUTH=none with one clear line, before opening anything', async () => {
    const run = await startGateway({ HOST: '0.0.0.0', GATEWAY_AUTH: 'none' });
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toEqual([
      'Invalid configuration:',
      '  GATEWAY_AUTH: none is allowed on a loopback HOST only (HOST is 0.0.0.0): set GATEWAY_AUTH=token and GATEWAY_ADMIN_TOKEN, or GATEWAY_ALLOW_INSECURE=true',
    ]);
    expect(run.stdout).not.toMatch(/listening/);
  });

  it('refuses a short GATEWAY_ADMIN_TOKEN', async () => {
    const run = await startGateway({ HOST: '0.0.0.0', GATEWAY_AUTH: 'token', GATEWAY_ADMIN_TOKEN: 'short' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('GATEWAY_ADMIN_TOKEN: must be at least 32 characters');
  });

  it('starts with GATEWAY_ALLOW_INSECURE=true, and warns', async () => {
    const run = await startGateway(
      { HOST: '0.0.0.0', GATEWAY_AUTH: 'none', GATEWAY_ALLOW_INSECURE: 'true' },
      /agent-gateway listening/,
    );
    expect(run.stdout).toMatch(/"level":40[^\n]*GATEWAY_AUTH is none on a non-loopback HOST \(0\.0\.0\.0\)/);
    expect(run.stdout).toMatch(/agent-gateway listening/);
  });

  it('asks for tokens by default on a non-loopback HOST, and not on loopback', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }).GATEWAY_AUTH).toBe('token');
    expect(loadConfig({ HOST: '192.168.1.20' }).ALLOWED_HOSTS).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      '192.168.1.20',
    ]);
    expect(loadConfig({ HOST: '0.0.0.0' }).ALLOWED_HOSTS).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(loadConfig({}).GATEWAY_AUTH).toBe('none');
    expect(loadConfig({ HOST: '::1' }).GATEWAY_AUTH).toBe('none');
    expect(() => loadConfig({ GATEWAY_AUTH: 'maybe' })).toThrow(/GATEWAY_AUTH: must be none or token/);
  });
});
