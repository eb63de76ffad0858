import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { createTestDatabase } from '@pa/db-tools/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@pa/http-kit';
import { PrismaPg } from '@prisma/adapter-pg';
import { createPlatformBridgeClient } from '../src/clients/bridge/platform-bridge-client.ts';
import { MIGRATIONS_DIR, REPO_ROOT, writeStartEnv } from '../src/config.ts';
import { resolveSecretKey } from '../src/lib/secret-key.ts';
import { createBindingRepository } from '../src/features/binding/binding-repository.ts';
import { createBindingService } from '../src/features/binding/binding-service.ts';
import { bridgeSmokeTest } from '../src/clients/platform-clients.ts';
import { createKeyCipher } from '../src/features/binding/key-cipher.ts';
import { createWorkersRepository } from '../src/features/workspace/workers-repository.ts';
import { createPrismaClient } from '../src/lib/db.ts';
import { startPlatformForGateway } from './support/platform.ts';
import { scaled } from '@pa/http-kit/testing';

let database: { url: string; drop(): Promise<void> };
// The CLI's data directory (secret key, the settings `npm start` stores): never the repository's own .data.
let dataDir: string;
beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'gateway_cli', migrationsDir: MIGRATIONS_DIR });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-cli-'));
});
afterAll(async () => {
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the gateway CLI on this file's database and data directory. */
function spawnCli(args: string[], env: Record<string, string> = {}) {
  return spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'apps/agent-gateway/src/cli/main.ts'), ...args],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        GATEWAY_DATABASE_URL: database.url,
        GATEWAY_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        ...env,
      },
    },
  );
}

/**
 * Runs the gateway CLI with `lines` piped to its stdin (all at once: it handles them one after the other) and
 * returns what it printed.
 */
function runCli(
  args: string[],
  lines: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, { WEB_ENABLED: 'false', ...env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  });
}

/**
 * Runs the CLI with its stdout closed by the reader before anything is written (as `… | head -c 100` leaves it
 * once head has read enough), stdin left open: the command must end by itself.
 */
function runWithClosedStdout(
  args: string[],
  input = '',
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, { WEB_ENABLED: 'false' });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
    if (input) child.stdin.write(input);
  });
}

// Each test starts CLI processes (each one a tsx start-up, seconds on a busy 2-core machine running the other
// test files beside it): they get a minute unless they say more.
describe('npm run gateway -- chat', { timeout: scaled(60_000) }, () => {
  it('chats, recalls the stored turns, clears them and exits, with the web UI disabled', async () => {
    const { code, stdout } = await runCli(
      ['chat', '--session', 'cli-test-1'],
      [
        'my name is Ada',
        'what is my name?',
        '/recall 4',
        '/provider',
        '/provider nope',
        '/clear',
        'what is my name?',
        '/help',
        '/exit',
      ],
    );
    expect(code).toBe(0);
    expect(stdout).toContain('Chat session cli-test-1 (provider local)');
    expect(stdout).toContain('Nice to meet you, **Ada**.');
    expect(stdout).toContain('Your name is **Ada**.');
    expect(stdout).toMatch(/Z user: my name is Ada\n.*Z assistant: Nice to meet you/);
    expect(stdout).toContain('providers: local; active: local');
    expect(stdout).toContain('unknown provider "nope"');
    expect(stdout).toContain('cleared 4 turns');
    expect(stdout).toContain("You haven't told me your name yet.");
    expect(stdout).toContain('/recall [n]');
  });

  it(
    'prints no prompt when stdin is not a terminal, and --json prints one JSON object per reply',
    {
      timeout: scaled(120_000),
    },
    async () => {
      const [plain, json] = await Promise.all([
        runCli(['chat', '--session', 'cli-no-prompt'], ['my name is Ada', 'what is my name?']),
        runCli(
          ['chat', '--json', '--session', 'cli-json'],
          ['my name is Ada', '/provider', 'what is my name?'],
        ),
      ]);
      expect(plain.code).toBe(0);
      expect(plain.stdout).toContain('Your name is **Ada**.');
      expect(plain.stdout).not.toContain('> ');

      expect(json.code, json.stderr).toBe(0);
      expect(json.stdout).not.toContain('> ');
      const objects = json.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
      expect(objects).toEqual([
        {
          session: 'cli-json',
          provider: 'local',
          status: 'complete',
          reply: expect.stringContaining('Nice to meet you, **Ada**.'),
        },
        { session: 'cli-json', command: '/provider', text: 'providers: local; active: local' },
        { session: 'cli-json', provider: 'local', status: 'complete', reply: 'Your name is **Ada**.' },
      ]);
    },
  );

  // util-linux `script` runs the CLI on a pseudo-terminal, as a person at a terminal has it
  it('at a terminal: a prompt, and replies rendered from markdown', async () => {
    const cli = ['--import', 'tsx', path.join(REPO_ROOT, 'apps/agent-gateway/src/cli/main.ts')];
    const command = [process.execPath, ...cli, 'chat', '--session', 'cli-tty'].join(' ');
    const out = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
      const child = spawn('script', ['-qfec', command, '/dev/null'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          GATEWAY_DATABASE_URL: database.url,
          GATEWAY_DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          WEB_ENABLED: 'false',
        },
      });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, text: stripVTControlCharacters(text) }));
      // stdin stays open: /exit ends the chat, and with it `script`
      child.stdin.write('my name is Ada\n/exit\n');
    });
    expect(out.code).toBe(0);
    expect(out.text).toContain('Type /help.\r\n> ');
    expect(out.text).toContain('Nice to meet you, Ada.');
    expect(out.text).not.toContain('**');
  });

  it(
    'a reader that closes the pipe early ends any command quietly, with exit 0',
    { timeout: scaled(120_000) },
    async () => {
      await runCli(['chat', '--session', 'cli-closed-pipe'], ['my name is Ada']);
      const [recall, list, chat] = await Promise.all([
        runWithClosedStdout(['recall', '--session', 'cli-closed-pipe', '--json']),
        runWithClosedStdout(['workspaces', 'list']),
        runWithClosedStdout(['chat', '--session', 'cli-closed-pipe'], 'what is my name?\n'),
      ]);
      for (const r of [recall, list, chat]) {
        expect(r).toEqual({ code: 0, signal: null, stderr: '' });
      }
    },
  );

  it('handles every line when they all arrive at once through a pipe', async () => {
    const r = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawnCli(['chat', '--session', 'cli-pipe']);
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout }));
      child.stdin.end('my name is Lin\nwhat is my name?\n/exit\nnever handled\n');
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Your name is **Lin**.');
    expect(r.stdout).not.toContain('never handled');
  });

  it('recall --session shows a session’s turns from another process, as text or JSON', async () => {
    await runCli(['chat', '--session', 'cli-test-2'], ['my name is Grace', '/exit']);
    const text = await runCli(['recall', '--session', 'cli-test-2']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/user: my name is Grace\n.*assistant: Nice to meet you, \*\*Grace\*\*/);
    const json = await runCli(['recall', '--session', 'cli-test-2', '--json']);
    const body = JSON.parse(json.stdout) as {
      sessionId: string;
      turns: Array<{ role: string; status: string }>;
    };
    expect(body.sessionId).toBe('cli-test-2');
    expect(body.turns.map((t) => [t.role, t.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
  });

  it(
    'recall searches every channel, names them when none holds the session, and --tools adds tool calls',
    async () => {
      const db = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 2 }));
      try {
        const web = await db.chatSession.create({ data: { channel: 'web', externalId: 'web-recall-1' } });
        await db.turn.createMany({
          data: [
            {
              sessionId: web.id,
              role: 'user',
              content: 'which gas safety certificates have expired?',
              status: 'complete',
            },
            {
              sessionId: web.id,
              role: 'assistant',
              content: 'Two have expired.',
              status: 'complete',
              toolCalls: [{ name: 'platform-get-compliance', result: { raw: 'bridge answer' } }],
            },
          ],
        });
        const text = await runCli(['recall', '--session', 'web-recall-1']);
        expect(text.code).toBe(0);
        expect(text.stdout).toMatch(
          /user: which gas safety certificates have expired\?\n.*assistant: Two have expired\./,
        );
        const json = JSON.parse((await runCli(['recall', '--session', 'web-recall-1', '--json'])).stdout) as {
          channel: string;
          turns: Array<Record<string, unknown>>;
        };
        expect(json.channel).toBe('web');
        expect(json.turns).toHaveLength(2);
        expect(json.turns[1]).not.toHaveProperty('toolCalls');
        const tools = JSON.parse(
          (await runCli(['recall', '--session', 'web-recall-1', '--json', '--tools'])).stdout,
        ) as { turns: Array<Record<string, unknown>> };
        expect(tools.turns[1]!.toolCalls).toEqual([
          { name: 'platform-get-compliance', result: { raw: 'bridge answer' } },
        ]);
        const wrongChannel = await runCli(['recall', '--session', 'web-recall-1', '--channel', 'cli']);
        expect(wrongChannel.stdout).toContain(
          'no session "web-recall-1" on the cli channel; try another --channel (web, telegram)',
        );
        const nowhere = await runCli(['recall', '--session', 'nobody-here']);
        expect(nowhere.stdout).toContain('no session "nobody-here" on any channel (cli, web, telegram)');
      } finally {
        await db.$disconnect();
      }
    },
    scaled(90_000),
  ); // five CLI processes one after another

  it('recall --json through a pipe that drains slowly prints all of it (well past 64 KiB)', async () => {
    const db = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 2 }));
    const content = 'x'.repeat(10_000);
    try {
      const s = await db.chatSession.create({ data: { channel: 'web', externalId: 'web-recall-big' } });
      await db.turn.createMany({
        data: Array.from({ length: 40 }, (_, i) => ({
          sessionId: s.id,
          role: i % 2 ? 'assistant' : 'user',
          content: `${i}:${content}`,
          status: 'complete',
        })),
      });
    } finally {
      await db.$disconnect();
    }
    const child = spawnCli([
      'recall',
      '--session',
      'web-recall-big',
      '--channel',
      'web',
      '--limit',
      '40',
      '--json',
    ]);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Nobody reads until the output has started and then either the CLI exits or a second has passed: the
    // pipe fills (64 KiB) and the CLI must wait for it rather than exit with the rest unwritten.
    const deadline = Date.now() + 30_000;
    while (child.stdout.readableLength === 0 && child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await Promise.race([exited, new Promise((r) => setTimeout(r, 1_000))]);
    const chunks: Buffer[] = [];
    for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
    expect(await exited).toBe(0);
    const out = Buffer.concat(chunks).toString();
    expect(out.length).toBeGreaterThan(400_000);
    const body = JSON.parse(out) as { turns: Array<{ content: string }> };
    expect(body.turns).toHaveLength(40);
    expect(body.turns[39]!.content).toBe(`39:${content}`);
  });

  it('workspaces create --json prints the UUID; workers list shows the workspace’s workers', async () => {
    const created = await runCli(['workspaces', 'create', '--name', 'CLI Workspace', '--json']);
    expect(created.code).toBe(0);
    const ws = JSON.parse(created.stdout) as { id: string; name: string };
    expect(ws).toMatchObject({ name: 'CLI Workspace', id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const listed = await runCli(['workspaces', 'list']);
    expect(listed.stdout).toContain(`${ws.id}  CLI Workspace`);
    const workers = await runCli(['workers', 'list', '--workspace', ws.id, '--json']);
    expect(JSON.parse(workers.stdout)).toEqual({ workers: [] });
  });

  it('workers create makes a worker as the API does (the template brings its pack); unknown workspace → exit 1', async () => {
    const unknownWorkspace = ['--workspace', '00000000-0000-4000-8000-000000000000', '--name', 'x'];
    const [workspace, unknown] = await Promise.all([
      runCli(['workspaces', 'create', '--name', 'CLI workers', '--json']),
      runCli(['workers', 'create', ...unknownWorkspace]),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No such workspace');
    const ws = JSON.parse(workspace.stdout) as { id: string };
    const args = [
      '--workspace',
      ws.id,
      '--name',
      'Lettings desk',
      '--template',
      'property-manager',
      '--json',
    ];
    const created = await runCli(['workers', 'create', ...args]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      workspaceId: ws.id,
      name: 'Lettings desk',
      skillPacks: ['property-uk'],
    });
  });

  it('chat --worker talks to a bound worker, which answers from the real bridge', async () => {
    const platform = await startPlatformForGateway();
    try {
      const demoTenant = await platform.seedDemo();
      const secret = randomBytes(32).toString('hex');
      const db = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 2 }));
      try {
        const ws = await db.workspace.create({ data: { name: 'CLI worker workspace' } });
        const worker = await db.worker.create({
          data: {
            workspaceId: ws.id,
            name: 'Property Manager',
            template: 'property-manager',
            skillPacks: ['property-uk'],
          },
        });
        const binding = createBindingService({
          bindings: createBindingRepository(db),
          workers: createWorkersRepository(db),
          bridge: bridgeSmokeTest(createPlatformBridgeClient({ baseUrl: platform.baseUrl })),
          cipher: createKeyCipher(Buffer.from(secret, 'hex')),
          logger: createLogger('test', 'silent'),
        });
        await binding.bind(ws.id, worker.id, 'demo-lettings', demoTenant.key);
        const r = await runCli(
          // the worker is not the default (oldest) one: its workspace is named
          ['chat', '--session', 'cli-worker', '--worker', worker.id, '--workspace', ws.id],
          ['which gas safety certificates have expired?', '/exit'],
          {
            AI_WORKERS_ENABLED: 'true',
            PLATFORM_BRIDGE_ENABLED: 'true',
            PLATFORM_BASE_URL: platform.baseUrl,
            GATEWAY_SECRET_KEY: secret,
          },
        );
        expect(r.code).toBe(0);
        expect(r.stdout).toContain('MAN-004');
        expect(r.stdout).toContain('Expired gas safety certificates');
      } finally {
        await db.$disconnect();
      }
    } finally {
      await platform.close();
    }
  });

  it('chat after `npm start` talks to the demo worker with the settings npm start stored, none exported', async () => {
    const platform = await startPlatformForGateway();
    const ownDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-cli-start-'));
    try {
      const demoTenant = await platform.seedDemo();
      // as the app made it on first start: the secret key generated into the data directory
      const { key } = resolveSecretKey(undefined, ownDir);
      const db = createPrismaClient(new PrismaPg({ connectionString: database.url, max: 2 }));
      try {
        await db.workspace.create({ data: { name: 'an older workspace' } }); // the demo's is not the oldest
        const ws = await db.workspace.create({ data: { name: 'Demo workspace' } });
        const worker = await db.worker.create({
          data: {
            workspaceId: ws.id,
            name: 'Property Manager',
            template: 'property-manager',
            skillPacks: ['property-uk'],
          },
        });
        await createBindingService({
          bindings: createBindingRepository(db),
          workers: createWorkersRepository(db),
          bridge: bridgeSmokeTest(createPlatformBridgeClient({ baseUrl: platform.baseUrl })),
          cipher: createKeyCipher(key),
          logger: createLogger('test', 'silent'),
        }).bind(ws.id, worker.id, 'demo-lettings', demoTenant.key);
        // what scripts/start.ts stores before it starts the gateway
        writeStartEnv(
          { GATEWAY_DATA_DIR: ownDir },
          {
            AI_WORKERS_ENABLED: 'true',
            PLATFORM_BRIDGE_ENABLED: 'true',
            PLATFORM_BASE_URL: platform.baseUrl,
            WEB_WORKER_ID: worker.id,
          },
        );
        const r = await runCli(
          ['chat', '--session', 'cli-after-start'],
          ['which gas safety certificates have expired?', '/exit'],
          {
            GATEWAY_DATA_DIR: ownDir,
          },
        );
        expect(r.stdout).not.toContain('no platform tenant is bound');
        expect(r.stdout).toContain('Expired gas safety certificates');
        expect(r.code).toBe(0);
        // an exported variable still wins over the stored one
        const off = await runCli(
          ['chat', '--session', 'cli-after-start-2'],
          ['which gas safety certificates have expired?', '/exit'],
          {
            GATEWAY_DATA_DIR: ownDir,
            PLATFORM_BRIDGE_ENABLED: 'false',
          },
        );
        expect(off.stdout).not.toContain('Expired gas safety certificates');
      } finally {
        await db.$disconnect();
      }
    } finally {
      await platform.close();
      rmSync(ownDir, { recursive: true, force: true });
    }
  });

  // 16 processes side by side: more than a minute on a busy machine
  it('rejects bad arguments with usage and exit code 2', { timeout: scaled(180_000) }, async () => {
    const cases = [
      ['nope'],
      ['recall'],
      ['chat', '--session', 'bad id'],
      ['chat', '--colour', 'red'],
      [],
      ['workspaces', 'create'],
      ['workers', 'list', '--workspace', 'x'],
      ['chat', '--worker', 'not-a-uuid'],
      ['chat', '--workspace', 'not-a-uuid'],
      ['workers', 'create', '--name', 'no workspace'],
      // options that exist, given to a command that does not take them
      ['chat', '--name', 'Ada'],
      ['chat', '--tools'],
      ['recall', '--session', 's', '--provider', 'local'],
      ['workspaces', 'list', '--worker', '5b0c6a3e-4a43-4b8e-9a53-2f2f7f3c1a10'],
      ['devices', 'list', '--label', 'x'],
      ['chat', 'extra'],
    ];
    const results = await Promise.all(cases.map((args) => runCli(args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i]!.join(' ')).toBe(2);
      expect(r.stderr).toContain('usage: npm run gateway');
      expect(r.stdout).toBe('');
    });
    expect(results[10]!.stderr).toContain('"chat" does not take --name');
    expect(results[12]!.stderr).toContain('"recall" does not take --provider');
    expect(results[13]!.stderr).toContain('"workspaces list" does not take --worker');
  });

  it('--help after any command prints the usage and exits 0', async () => {
    const r = await runCli(['chat', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: npm run gateway');
    expect(r.stdout).toContain('--json prints one JSON object per reply');
  });
});
