import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectRedis } from '@pa/http-kit';
import { scaled, until } from '@pa/http-kit/testing';
import { type Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FailedJob, QueueCounts } from '../src/cli/queue-commands.ts';
import { REPO_ROOT } from '../src/config.ts';
import { SUMMARY_QUEUE_NAME } from '../src/features/daily-summary/summary-queue.ts';

// `npm run gateway -- queues …` against a REAL BullMQ queue in the real Redis, under a prefix of this file's own
// (SUMMARY_QUEUE_PREFIX, as the CLI reads it): a job fails, the CLI lists the queue's counts and the failure, and
// retries it; the job goes back to waiting and a worker completes it. The CLI needs Redis only: the data directory
// it is given stays empty (no embedded database is opened beside a running gateway's).

const PREFIX = `test-queues-cli-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let redis: Redis;
let queue: Queue;
let dataDir: string;

beforeAll(async () => {
  const connected = await connectRedis(REDIS_URL);
  if (!connected) throw new Error(`Redis is not reachable at ${REDIS_URL}`);
  redis = connected;
  queue = new Queue(SUMMARY_QUEUE_NAME, { connection: redis, prefix: PREFIX });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-queues-cli-'));
});
afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  redis?.disconnect();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'apps/agent-gateway/src/cli/main.ts'), 'queues', ...args],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          // the defaults of `npm start` but for the queue's prefix and the data directory
          GATEWAY_DATABASE_URL: '',
          GATEWAY_DATA_DIR: dataDir,
          REDIS_URL,
          SUMMARY_QUEUE_PREFIX: PREFIX,
          LOG_LEVEL: 'silent',
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function json<T>(args: string[]): Promise<T> {
  const out = await cli([...args, '--json']);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as T;
}

/** Processes the queue's jobs with `fn` until closed. */
function work(fn: (job: Job) => Promise<unknown>): { close(): Promise<void> } {
  const connection = redis.duplicate({ maxRetriesPerRequest: null });
  const worker = new Worker(SUMMARY_QUEUE_NAME, fn, { connection, prefix: PREFIX });
  worker.on('error', () => {});
  return {
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}

async function failJobs(names: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const name of names) {
    const job = await queue.add(name, { workerId: '00000000-0000-4000-8000-000000000000' }, { attempts: 1 });
    ids.push(job.id!);
  }
  const failing = work(async () => {
    throw new Error('the bridge was unavailable\n    at a stack line that is not shown');
  });
  await until('the jobs failed', async () => (await queue.getJobCountByTypes('failed')) >= names.length);
  await failing.close();
  return ids;
}

describe('npm run gateway -- queues', () => {
  it(
    'lists the counts, shows a failed job, retries it back to waiting, and a worker completes it',
    async () => {
      const [id] = await failJobs(['daily-summary']);

      const listed = await json<{ queues: QueueCounts[] }>([]);
      expect(listed.queues).toEqual([
        {
          name: SUMMARY_QUEUE_NAME,
          prefix: PREFIX,
          waiting: 0,
          active: 0,
          delayed: 0,
          failed: 1,
          completed: 0,
          paused: false,
        },
      ]);
      const table = await cli(['list']);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout.trimEnd().split('\n')).toEqual([
        expect.stringMatching(/^queue\s+waiting\s+active\s+delayed\s+failed\s+completed\s+paused$/),
        expect.stringMatching(/^daily-summary\s+0\s+0\s+0\s+1\s+0\s+no$/),
      ]);

      const failed = await json<{ queue: string; jobs: FailedJob[] }>([
        'failed',
        '--queue',
        SUMMARY_QUEUE_NAME,
      ]);
      expect(failed).toEqual({
        queue: SUMMARY_QUEUE_NAME,
        jobs: [
          {
            id,
            name: 'daily-summary',
            failedReason: 'the bridge was unavailable\n    at a stack line that is not shown',
            attemptsMade: 1,
            timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            finishedOn: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          },
        ],
      });
      const failedTable = await cli(['failed', '--queue', SUMMARY_QUEUE_NAME]);
      const [header, row, ...rest] = failedTable.stdout.trimEnd().split('\n');
      expect(header).toMatch(/^id\s+name\s+attempts\s+failed at \(UTC\)\s+reason$/);
      // one line of the reason
      expect(row).toMatch(
        new RegExp(
          `^${id}\\s+daily-summary\\s+1\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+the bridge was unavailable$`,
        ),
      );
      expect(rest).toEqual([]);

      const retried = await cli(['retry', '--queue', SUMMARY_QUEUE_NAME, '--job', id!]);
      expect(retried.code, retried.stderr).toBe(0);
      expect(retried.stdout.trim()).toBe(`Job ${id} of daily-summary moved back to waiting.`);
      expect(await queue.getJobState(id!)).toBe('waiting');
      expect((await json<{ queues: QueueCounts[] }>(['list'])).queues[0]).toMatchObject({
        waiting: 1,
        failed: 0,
      });

      const done = work(async () => 'delivered');
      try {
        await until('the retried job completed', async () => (await queue.getJobState(id!)) === 'completed');
      } finally {
        await done.close();
      }
      // only Redis was touched: no embedded database was made in the data directory
      expect(existsSync(path.join(dataDir, 'gateway'))).toBe(false);
    },
    scaled(90_000),
  );

  it(
    'retry --all-failed moves every failed job back; a job that is not failed is refused',
    async () => {
      const ids = await failJobs(['daily-summary', 'daily-summary']);
      const out = await json<{ queue: string; retried: number }>([
        'retry',
        '--queue',
        SUMMARY_QUEUE_NAME,
        '--all-failed',
      ]);
      expect(out).toEqual({ queue: SUMMARY_QUEUE_NAME, retried: 2 });
      for (const id of ids) expect(await queue.getJobState(id)).toBe('waiting');

      const again = await cli(['retry', '--queue', SUMMARY_QUEUE_NAME, '--job', ids[0]!]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`job ${ids[0]} of daily-summary is waiting, not failed`);
      const unknown = await cli(['retry', '--queue', SUMMARY_QUEUE_NAME, '--job', 'no-such-job']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no job no-such-job in daily-summary');
    },
    scaled(90_000),
  );

  it(
    'usage errors exit 2 before anything is opened',
    async () => {
      const cases: Array<[string[], string]> = [
        [['failed'], 'queues failed needs --queue NAME'],
        [['retry', '--queue', SUMMARY_QUEUE_NAME], 'queues retry needs --job ID or --all-failed'],
        [['retry', '--queue', SUMMARY_QUEUE_NAME, '--job', '1', '--all-failed'], 'one of them'],
        [['failed', '--queue', 'nope'], '--queue must be one of: daily-summary'],
        [['list', '--queue', SUMMARY_QUEUE_NAME], '"queues list" does not take --queue'],
        [['purge'], 'queues: list, failed or retry'],
      ];
      for (const [args, message] of cases) {
        const out = await cli(args);
        expect(out.code, args.join(' ')).toBe(2);
        expect(out.stderr).toContain(message);
      }
    },
    scaled(120_000),
  );
});

describe('npm run gateway -- queues without Redis', () => {
  it(
    'exits 1 with the (password-free) address it could not reach',
    async () => {
      const out = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', path.join(REPO_ROOT, 'apps/agent-gateway/src/cli/main.ts'), 'queues'],
          {
            cwd: REPO_ROOT,
            env: {
              ...process.env,
              GATEWAY_DATA_DIR: dataDir,
              // a port nothing listens on (the discard port), with a password that must not be printed
              REDIS_URL: 'redis://:hunter2@127.0.0.1:9',
              LOG_LEVEL: 'silent',
            },
          },
        );
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(out.code).toBe(1);
      expect(out.stderr).toContain('Redis is unreachable at');
      expect(out.stderr).not.toContain('hunter2');
    },
    scaled(30_000),
  );
});
