import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@pa/db-tools/testing';
import { freePort, scaled, until } from '@pa/http-kit/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, REPO_ROOT } from '../src/config.ts';
import { type FakeOpenAI, startFakeOpenAI } from './support/fake-openai.ts';
import { parseSse } from './support/sse.ts';
import { PROCESS_START_MS } from './support/worker-child.ts';

// Issue 33, defect 5: the real gateway process killed with SIGKILL mid-stream and started again on the same address.
// The browser's reconnect with the same requestId used to answer 409 turn-in-progress for about 11 minutes (until
// the turn time limit closed the turn); the restarted process now closes the turns its predecessor left at once,
// and the reconnect gets the replay the README promises.

let database: { url: string; drop(): Promise<void> };
let dataDir: string;
let llm: FakeOpenAI;
let port: number;
beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'gateway_turn_recovery', migrationsDir: MIGRATIONS_DIR });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-recovery-'));
  llm = await startFakeOpenAI();
  port = await freePort();
});
afterAll(async () => {
  await llm?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** apps/agent-gateway/src/main.ts on 127.0.0.1:`port`, answering with the fake OpenAI; ready once /healthz is 200. */
async function startGateway() {
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
        REDIS_PREFIX: `test:recovery:${process.pid}:`,
        RUN_WORKER_IN_PROCESS: 'false',
        HOST: '127.0.0.1',
        PORT: String(port),
        PROVIDER: 'openai',
        OPENAI_BASE_URL: llm.url,
        OPENAI_API_KEY: 'sk-test',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(
    'the gateway answers /healthz',
    async () => {
      if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode}): ${output}`);
      return fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    PROCESS_START_MS,
  );
  return { child, exited, output: () => output };
}

async function userTurnStatus(requestId: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ status: string }>(
      "SELECT status FROM turns WHERE request_id = $1 AND role = 'user'",
      [requestId],
    );
    return rows[0]?.status;
  } finally {
    await client.end();
  }
}

describe('a gateway killed mid-stream and started again', () => {
  it(
    'replays the interrupted turn to the reconnect at once instead of answering 409 turn-in-progress',
    async () => {
      const chat = `http://127.0.0.1:${port}/api/chat/stream?${new URLSearchParams({
        message: 'Which gas safety certificates have expired?',
        sessionId: 'recovery-1',
        requestId: 'req-recovery-1',
      })}`;
      const first = await startGateway();
      try {
        // the model starts answering, then goes quiet: the turn is mid-stream when the process dies
        llm.script({ chunks: ['The expired gas certificates are '], end: 'hang' });
        const stream = await fetch(chat);
        expect(stream.status).toBe(200);
        const reader = stream.body!.getReader();
        let seen = '';
        while (!seen.includes('expired gas certificates')) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended before the first words: ${seen}`);
          seen += new TextDecoder().decode(value);
        }
        expect(await userTurnStatus('req-recovery-1')).toBe('complete'); // stored, not answered
        first.child.kill('SIGKILL');
        await first.exited;
        await reader.cancel().catch(() => {});
      } finally {
        if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
      }

      const second = await startGateway();
      try {
        const again = await fetch(chat, { signal: AbortSignal.timeout(scaled(30_000)) });
        const body = await again.text();
        expect(again.status, body).toBe(200);
        const events = parseSse(body);
        expect(events.at(-1)?.data).toBe('[DONE]');
        expect(events.some((e) => e.data?.includes('"error"'))).toBe(false);
        expect(await userTurnStatus('req-recovery-1')).toBe('interrupted');
        // the model was asked once: the reconnect replayed the turn, it did not run it again
        expect(llm.requests).toHaveLength(1);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    },
    scaled(4 * PROCESS_START_MS),
  );
});
