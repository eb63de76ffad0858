import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { ConfigError, createLogger } from '@pa/http-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Issue 30's log noise: the chat page polls its events feed every 5 s and probes hit /healthz, so their successes
// are logged at debug; LOG_LEVEL=debug shows them, info keeps the log to what matters, warn keeps warnings only.

type Entry = { level: number; msg: string; path?: string; status?: number };
const DEBUG = 20;
const INFO = 30;
const ERROR = 50;

const lines: string[] = [];
const logger = createLogger(
  'agent-gateway',
  'info',
  new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).trim().split('\n'));
      cb();
    },
  }),
);
const requests = (): Entry[] => lines.map((l) => JSON.parse(l) as Entry).filter((e) => e.msg === 'request');

let g: TestGateway;
let workspaceId: string;
let workerId: string;

beforeAll(async () => {
  g = await startTestGateway({
    env: {
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_EVENT_WEBHOOKS: 'true',
      PLATFORM_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
    },
    redis: 'none',
    logger,
  });
  const workspace = await g.db.workspace.create({ data: { name: 'Logs' } });
  const worker = await g.db.worker.create({
    data: { workspaceId: workspace.id, name: 'Property Manager', skillPacks: ['property-uk'] },
  });
  workspaceId = workspace.id;
  workerId = worker.id;
});
afterAll(async () => g?.close());
beforeEach(() => {
  lines.length = 0;
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${g.baseUrl}${path}`, { headers });
const pollEvents = (worker = workerId) =>
  get(`/api/assistant/workers/${worker}/events?limit=5`, { 'X-Workspace-Id': workspaceId });

// what the page and a probe ask for over and over
async function routineRequests() {
  const answers = await Promise.all([
    pollEvents(),
    get('/healthz'),
    get('/readyz'),
    get('/'),
    get('/app.js'),
    get('/styles.css'),
    get('/vendor/marked.esm.js'),
  ]);
  expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);
  await Promise.all(answers.map((r) => r.arrayBuffer()));
}

describe('request lines by LOG_LEVEL', () => {
  it('debug shows the polls, probes and static files, each at debug', async () => {
    logger.level = 'debug';
    await routineRequests();
    const paths = requests().map((e) => [e.path, e.level]);
    expect(paths).toEqual(
      expect.arrayContaining([
        [`/api/assistant/workers/${workerId}/events`, DEBUG],
        ['/healthz', DEBUG],
        ['/readyz', DEBUG],
        ['/', DEBUG],
        ['/app.js', DEBUG],
        ['/styles.css', DEBUG],
        ['/vendor/marked.esm.js', DEBUG],
      ]),
    );
    expect(paths).toHaveLength(7);
  });

  it('info hides them, but a poll that fails and every other request still show at info', async () => {
    logger.level = 'info';
    await routineRequests();
    expect(requests()).toEqual([]);

    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await pollEvents(unknown)).status).toBe(404);
    expect((await get('/no-such-file.js')).status).toBe(404);
    expect((await get('/api/web/context')).status).toBe(200);
    expect(requests().map((e) => [e.path, e.status, e.level])).toEqual([
      [`/api/assistant/workers/${unknown}/events`, 404, INFO],
      ['/no-such-file.js', 404, INFO],
      ['/api/web/context', 200, INFO],
    ]);
  });

  it('warn hides every successful request but keeps warnings and errors', async () => {
    logger.level = 'warn';
    await routineRequests();
    expect((await get('/api/web/context')).status).toBe(200);
    logger.warn('a warning');
    logger.error('an error');
    const entries = lines.map((l) => JSON.parse(l) as Entry);
    expect(entries.map((e) => [e.msg, e.level])).toEqual([
      ['a warning', 40],
      ['an error', ERROR],
    ]);
  });
});

describe('LOG_LEVEL', () => {
  it('defaults to info (unset or empty) and refuses an unknown level, naming the levels', () => {
    expect(loadConfig({}).LOG_LEVEL).toBe('info');
    expect(loadConfig({ LOG_LEVEL: '' }).LOG_LEVEL).toBe('info');
    expect(loadConfig({ LOG_LEVEL: 'debug' }).LOG_LEVEL).toBe('debug');
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
    );
  });
});
