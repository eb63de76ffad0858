import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DevicesResponse, PairingCode, RedeemPairingResponse } from '@pa/contracts';
import { createTestDatabase } from '@pa/db-tools/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, REPO_ROOT } from '../src/config.ts';
import { TOKEN_ENV } from './support/access.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';
import { scaled } from '@pa/http-kit/testing';

// `npm run gateway -- pairing create | devices list | devices revoke`, the real CLI process beside a
// gateway with GATEWAY_AUTH=token on the same database. The CLI acts as the operator.

let database: { url: string; drop(): Promise<void> };
let dataDir: string;
let g: TestGateway;
beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'gateway_access_cli', migrationsDir: MIGRATIONS_DIR });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-access-cli-'));
  g = await startTestGateway({ env: { ...TOKEN_ENV }, databaseUrl: database.url, redis: 'required' });
});
afterAll(async () => {
  await g?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'apps/agent-gateway/src/cli/main.ts'), ...args],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          GATEWAY_DATABASE_URL: database.url,
          GATEWAY_DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          WEB_ENABLED: 'false',
          // the gateway's revocation channel: a revoke is published to it
          REDIS_PREFIX: g.config.REDIS_PREFIX,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

// each command is a process of its own, a few seconds each on a loaded machine
describe('the access commands', { timeout: scaled(90_000) }, () => {
  it('pairs a device with a CLI code, lists it, and revokes it', async () => {
    const ws = await cli(['workspaces', 'create', '--name', 'Phones', '--json']);
    expect(ws.code, ws.stderr).toBe(0);
    const workspaceId = (JSON.parse(ws.stdout) as { id: string }).id;

    const made = await cli([
      'pairing',
      'create',
      '--workspace',
      workspaceId,
      '--scopes',
      'chat,workers:write',
      '--label',
      'Sam',
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const code = expectContract(PairingCode, JSON.parse(made.stdout));
    expect(code.scopes).toEqual(['chat', 'workers:write']);

    const redeemed = await postJson(g.baseUrl, '/api/pairing/redeem', {
      code: code.code,
      deviceName: 'Sam’s phone',
    });
    expect(redeemed.status).toBe(201);
    const device = expectContract(RedeemPairingResponse, await redeemed.json());
    const bearer = { authorization: `Bearer ${device.token}` };
    expect((await fetch(`${g.baseUrl}/api/providers`, { headers: bearer })).status).toBe(200);

    const listed = await cli(['devices', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(device.token);
    const { devices } = expectContract(DevicesResponse, JSON.parse(listed.stdout));
    expect(devices).toHaveLength(1);
    expect(devices[0]).toMatchObject({
      id: device.deviceId,
      name: 'Sam’s phone',
      workspaceId,
      revokedAt: null,
    });

    const text = await cli(['pairing', 'create', '--workspace', workspaceId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Pairing code: [A-Z2-9]{4}-[A-Z2-9]{4}\nScopes: chat;/);

    const revoked = await cli(['devices', 'revoke', '--id', device.deviceId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Revoked device ${device.deviceId}`);
    await expectProblem(await fetch(`${g.baseUrl}/api/providers`, { headers: bearer }), 401, 'unauthorized');
    const after = await cli(['devices', 'list']);
    expect(after.stdout).toMatch(
      new RegExp(
        `${device.deviceId}  Sam’s phone  \\[chat, workers:write\\]  workspace ${workspaceId}  revoked `,
      ),
    );
  });

  it('refuses bad arguments with usage, and unknown records with an error', async () => {
    const bad = [
      [['pairing', 'create'], 'pairing create needs --workspace'],
      [['pairing', 'create', '--workspace', crypto.randomUUID(), '--scopes', 'chat,root'], '--scopes'],
      [['pairing', 'create', '--workspace', crypto.randomUUID(), '--scopes', 'chat,chat'], '--scopes'],
      [['pairing', 'list'], 'pairing: create'],
      [['devices', 'revoke'], 'devices revoke needs --id'],
      [['devices', 'revoke', '--id', 'nope'], 'devices revoke needs --id'],
    ] as const;
    for (const [args, message] of bad) {
      const run = await cli([...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(message);
    }
    const unknownWs = await cli(['pairing', 'create', '--workspace', crypto.randomUUID()]);
    expect(unknownWs.code).toBe(1);
    expect(unknownWs.stderr).toContain('error: No such workspace.');
    const unknownDevice = await cli(['devices', 'revoke', '--id', crypto.randomUUID()]);
    expect(unknownDevice.code).toBe(1);
    expect(unknownDevice.stderr).toContain('error: No such device.');
  });
});
