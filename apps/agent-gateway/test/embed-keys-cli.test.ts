import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  EMBED_KEY,
  EMBED_VISITOR_SECRET,
  EmbedKeyCreated,
  EmbedKeysResponse,
  EmbedKeyView,
} from '@pa/contracts';
import { createTestDatabase } from '@pa/db-tools/testing';
import { scaled } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, REPO_ROOT } from '../src/config.ts';
import { createKeyCipher } from '../src/features/binding/key-cipher.ts';
import { createEmbedKeysRepository } from '../src/features/embed/embed-keys-repository.ts';
import { createEmbedKeysService } from '../src/features/embed/embed-keys-service.ts';
import { adminHeaders, TOKEN_ENV } from './support/access.ts';
import { expectContract } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// `npm run gateway -- embed-keys create | list | update | revoke` (docs/embedding.md): the real CLI process beside a gateway
// with GATEWAY_AUTH=token on the same database and secret key, whose admin API sees what the CLI made.

const SECRET_KEY = Buffer.alloc(32, 7);
let database: { url: string; drop(): Promise<void> };
let dataDir: string;
let g: TestGateway;
beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'gateway_embed_cli', migrationsDir: MIGRATIONS_DIR });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-embed-cli-'));
  g = await startTestGateway({
    env: { ...TOKEN_ENV, AI_WORKERS_ENABLED: 'true' },
    databaseUrl: database.url,
    redis: 'none',
    secretKey: SECRET_KEY,
  });
});
afterAll(async () => {
  await g?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
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
          // the gateway's key: the visitor secret the CLI encrypts is one the gateway can read
          GATEWAY_SECRET_KEY: SECRET_KEY.toString('base64'),
          LOG_LEVEL: 'silent',
          WEB_ENABLED: 'false',
          // where the snippet points without PUBLIC_BASE_URL
          PUBLIC_BASE_URL: '',
          HOST: '127.0.0.1',
          PORT: '3000',
          WEB_PORT: '',
          ...env,
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

async function workspaceAndWorker(): Promise<{ workspaceId: string; workerId: string }> {
  const ws = await cli(['workspaces', 'create', '--name', `Embeds ${Date.now()}`, '--json']);
  expect(ws.code, ws.stderr).toBe(0);
  const workspaceId = (JSON.parse(ws.stdout) as { id: string }).id;
  const worker = await cli(['workers', 'create', '--workspace', workspaceId, '--name', 'Web', '--json']);
  expect(worker.code, worker.stderr).toBe(0);
  return { workspaceId, workerId: (JSON.parse(worker.stdout) as { id: string }).id };
}

const listOverApi = async (workspaceId: string, workerId: string) => {
  const res = await fetch(`${g.baseUrl}/api/assistant/workers/${workerId}/embed-keys`, {
    headers: { ...adminHeaders, 'X-Workspace-Id': workspaceId },
  });
  expect(res.status).toBe(200);
  return expectContract(EmbedKeysResponse, await res.json()).embedKeys;
};

// each command is a process of its own, a few seconds each on a loaded machine
describe('the embed-keys commands', { timeout: scaled(120_000) }, () => {
  it('makes a key with its origins, toolset and budgets, lists it, and revokes it', async () => {
    const { workspaceId, workerId } = await workspaceAndWorker();
    const at = ['--workspace', workspaceId, '--worker', workerId];

    const made = await cli(
      [
        'embed-keys',
        'create',
        ...at,
        '--origin',
        'https://www.agency.test',
        '--origin',
        'http://localhost:5173',
        '--label',
        'Property pages',
        // --require-visitor-token goes with it without being given
        '--allow-proposals',
        '--visitor-per-minute',
        '5',
        '--workspace-per-day',
        '500',
        '--json',
      ],
      { PUBLIC_BASE_URL: 'https://porter.agency.test' },
    );
    expect(made.code, made.stderr).toBe(0);
    const created = expectContract(EmbedKeyCreated, JSON.parse(made.stdout));
    expect(created.key).toMatchObject({
      workspaceId,
      workerId,
      label: 'Property pages',
      origins: ['https://www.agency.test', 'http://localhost:5173'],
      allowProposals: true,
      requireVisitorToken: true,
      budgets: { visitorPerMinute: 5, ipPerMinute: 30, workspacePerDay: 500 },
      revokedAt: null,
    });
    expect(created.snippet).toBe(
      `<script src="https://porter.agency.test/embed.js" data-embed-key="${created.embedKey}" async></script>`,
    );
    // the gateway sees the key
    expect((await listOverApi(workspaceId, workerId)).map((k) => k.id)).toEqual([created.key.id]);

    // In words: the snippet, the key and the secret once, and where the snippet's address comes from.
    const text = await cli([
      'embed-keys',
      'create',
      ...at,
      '--origin',
      'https://intranet.agency.test',
      '--require-visitor-token',
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Created embed key [0-9a-f-]{36} for worker /);
    expect(text.stdout).toContain(
      'https://intranet.agency.test  read-only  signed-in visitors only  10/visitor/min, 30/IP/min',
    );
    expect(text.stdout).toMatch(
      /<script src="http:\/\/127\.0\.0\.1:3000\/embed\.js" data-embed-key="gwe_[0-9A-Za-z]{38}" async><\/script>/,
    );
    expect(text.stdout).toContain('PUBLIC_BASE_URL is not set');
    expect(text.stdout).toMatch(
      new RegExp(`Embed key \\(public, in the page above\\): ${EMBED_KEY.source.slice(1, -1)}`),
    );
    expect(text.stdout).toMatch(new RegExp(`\\n  ${EMBED_VISITOR_SECRET.source.slice(1, -1)}\\n`));

    const listed = await cli(['embed-keys', 'list', ...at, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(created.embedKey);
    expect(listed.stdout).not.toContain(created.visitorSecret);
    const { embedKeys } = expectContract(EmbedKeysResponse, JSON.parse(listed.stdout));
    expect(embedKeys).toHaveLength(2);
    expect(embedKeys[1]).toEqual(created.key);
    // asked for with the flag, on a read-only key too
    expect(embedKeys[0]).toMatchObject({ allowProposals: false, requireVisitorToken: true });
    // and reads back the secret the CLI encrypted (this marks the key used)
    const active = await createEmbedKeysService({
      embedKeys: createEmbedKeysRepository(g.db),
      cipher: createKeyCipher(SECRET_KEY),
      onTouchError: () => {},
    }).authenticate(created.embedKey);
    expect(new TextDecoder().decode(active!.secret)).toBe(created.visitorSecret);

    const revoked = await cli(['embed-keys', 'revoke', ...at, '--id', created.key.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`Revoked embed key ${created.key.id} (Property pages).\n`);
    const overApi = await listOverApi(workspaceId, workerId);
    expect(overApi.find((k) => k.id === created.key.id)?.revokedAt).not.toBeNull();

    const again = await cli(['embed-keys', 'revoke', ...at, '--id', created.key.id, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(expectContract(EmbedKeyView, JSON.parse(again.stdout)).revokedAt).not.toBeNull();

    const lines = await cli(['embed-keys', 'list', ...at]);
    expect(lines.stdout).toMatch(
      new RegExp(
        `${created.key.id}  Property pages\\n  gwe_[0-9A-Za-z]{4}…  https://www.agency.test http://localhost:5173  can propose  signed-in visitors only  5/visitor/min, 30/IP/min, 500/workspace/day  revoked `,
      ),
    );
    expect(lines.stdout).toContain('(no label)');
  });

  it('edits a key in place: what is given changes, the rest and the key stay; a revoked key is refused', async () => {
    const { workspaceId, workerId } = await workspaceAndWorker();
    const at = ['--workspace', workspaceId, '--worker', workerId];
    const made = await cli(['embed-keys', 'create', ...at, '--origin', 'https://www.agency.test', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const created = expectContract(EmbedKeyCreated, JSON.parse(made.stdout));
    const id = ['--id', created.key.id];

    const edited = await cli([
      'embed-keys',
      'update',
      ...at,
      ...id,
      // the whole list: the second website added, the first kept by naming it again
      '--origin',
      'https://www.agency.test',
      '--origin',
      'https://lettings.agency.test',
      '--label',
      'Two sites',
      '--allow-proposals',
      '--require-visitor-token',
      '--ip-per-minute',
      '12',
      '--json',
    ]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(expectContract(EmbedKeyView, JSON.parse(edited.stdout))).toEqual({
      ...created.key,
      label: 'Two sites',
      origins: ['https://www.agency.test', 'https://lettings.agency.test'],
      allowProposals: true,
      requireVisitorToken: true,
      budgets: { visitorPerMinute: 10, ipPerMinute: 12, workspacePerDay: 2000 },
    });
    expect(edited.stdout).not.toContain(created.embedKey);
    // the gateway sees the edit; the runtime still takes the same key, with its same secret
    expect((await listOverApi(workspaceId, workerId))[0]?.origins).toContain('https://lettings.agency.test');
    const active = await createEmbedKeysService({
      embedKeys: createEmbedKeysRepository(g.db),
      cipher: createKeyCipher(SECRET_KEY),
      onTouchError: () => {},
    }).authenticate(created.embedKey);
    expect(active).toMatchObject({ id: created.key.id, allowProposals: true });
    expect(new TextDecoder().decode(active!.secret)).toBe(created.visitorSecret);

    // In words; turning proposals off leaves "signed-in visitors only" as it is
    const off = await cli(['embed-keys', 'update', ...at, ...id, '--no-allow-proposals']);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain(`Updated embed key ${created.key.id} (Two sites).`);
    expect(off.stdout).toContain('read-only  signed-in visitors only  10/visitor/min, 12/IP/min');
    expect(off.stdout).toContain('The key and the snippet stay the same');

    // the proposal rule, as the API keeps it: exit 1, nothing changed
    const rule = await cli([
      'embed-keys',
      'update',
      ...at,
      ...id,
      '--allow-proposals',
      '--no-require-visitor-token',
    ]);
    expect(rule.code).toBe(1);
    expect(rule.stderr).toMatch(/^error: .*visitor token/);
    expect((await listOverApi(workspaceId, workerId))[0]?.allowProposals).toBe(false);

    expect((await cli(['embed-keys', 'revoke', ...at, ...id])).code).toBe(0);
    const revoked = await cli(['embed-keys', 'update', ...at, ...id, '--label', 'Too late']);
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toMatch(/^error: .*revoked/);
    const unknown = await cli(['embed-keys', 'update', ...at, '--id', crypto.randomUUID(), '--label', 'x']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: No embed key/);
    expect((await listOverApi(workspaceId, workerId))[0]?.label).toBe('Two sites');
  });

  it('refuses bad arguments with usage (exit 2), and unknown records with an error (exit 1)', async () => {
    const ws = crypto.randomUUID();
    const wk = crypto.randomUUID();
    const at = ['--workspace', ws, '--worker', wk];
    const bad = [
      [['embed-keys'], 'embed-keys: create, list, update or revoke'],
      [['embed-keys', 'show', ...at], 'embed-keys: create, list, update or revoke'],
      [
        ['embed-keys', 'create', '--worker', wk, '--origin', 'https://a.test'],
        'needs --workspace and --worker',
      ],
      [['embed-keys', 'list', '--workspace', ws], 'needs --workspace and --worker'],
      [['embed-keys', 'create', ...at], 'embed-keys create needs at least one --origin'],
      [['embed-keys', 'create', ...at, '--origin', '*'], '--origin *: must be an exact origin'],
      [['embed-keys', 'create', ...at, '--origin', 'http://example.com'], 'must use https://'],
      [['embed-keys', 'create', ...at, '--origin', 'https://a.test/chat'], 'no path or trailing slash'],
      [
        [
          'embed-keys',
          'create',
          ...at,
          ...Array.from({ length: 11 }, (_, i) => ['--origin', `https://s${i}.a.test`]).flat(),
        ],
        '--origin: must name at most 10 origins',
      ],
      [
        ['embed-keys', 'create', ...at, '--origin', 'https://a.test', '--ip-per-minute', '6001'],
        '--ip-per-minute: must be at most 6000',
      ],
      [
        ['embed-keys', 'create', ...at, '--origin', 'https://a.test', '--visitor-per-minute', 'ten'],
        '--visitor-per-minute must be a whole number',
      ],
      [
        ['embed-keys', 'create', ...at, '--origin', 'https://a.test', '--label', 'x'.repeat(81)],
        '--label: must be at most 80',
      ],
      [
        ['embed-keys', 'list', ...at, '--origin', 'https://a.test'],
        '"embed-keys list" does not take --origin',
      ],
      [
        ['embed-keys', 'list', ...at, '--require-visitor-token'],
        '"embed-keys list" does not take --require-visitor-token',
      ],
      [['embed-keys', 'revoke', ...at], 'embed-keys revoke needs --id UUID'],
      [['embed-keys', 'update', ...at, '--origin', 'https://a.test'], 'embed-keys update needs --id UUID'],
      [['embed-keys', 'update', ...at, '--id', wk], 'embed-keys update needs a setting to change'],
      [
        ['embed-keys', 'update', ...at, '--id', wk, '--origin', 'http://a.test'],
        '--origin http://a.test: must use',
      ],
      [
        ['embed-keys', 'update', ...at, '--id', wk, '--allow-proposals', '--no-allow-proposals'],
        '--allow-proposals and --no-allow-proposals contradict each other',
      ],
      [
        ['embed-keys', 'update', ...at, '--id', wk, '--ip-per-minute', '0'],
        '--ip-per-minute: must be at least 1',
      ],
      [
        ['embed-keys', 'create', ...at, '--origin', 'https://a.test', '--no-require-visitor-token'],
        '"embed-keys create" does not take --no-require-visitor-token',
      ],
      [['embed-keys', 'revoke', ...at, '--id', 'nope'], 'embed-keys revoke needs --id UUID'],
      [['embed-keys', 'list', '--workspace', ws, '--worker', 'nope'], '--worker must be a UUID'],
      [['pairing', 'create', '--workspace', ws, '--origin', 'https://a.test'], 'does not take --origin'],
    ] as const;
    for (const [args, message] of bad) {
      const run = await cli([...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain(message);
    }

    const unknownWs = await cli(['embed-keys', 'list', ...at]);
    expect(unknownWs.code).toBe(1);
    expect(unknownWs.stderr).toContain('error: No such workspace.');
    const { workspaceId } = await workspaceAndWorker();
    const unknownWorker = await cli([
      'embed-keys',
      'create',
      '--workspace',
      workspaceId,
      '--worker',
      wk,
      '--origin',
      'https://a.test',
    ]);
    expect(unknownWorker.code).toBe(1);
    expect(unknownWorker.stderr).toMatch(/^error: .*worker/i);
    expect(await g.db.embedKey.count({ where: { workspaceId } })).toBe(0);
  });
});
