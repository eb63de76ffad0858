import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { defineRoutes } from '@pa/contracts';
import express from 'express';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createLogger,
  notFoundHandler,
  problemHandler,
  registerRoute,
  requestId,
  requestLogger,
  servedQuietly,
} from '../src/index.ts';

// The level of a request's line: routine successes (a route marked logQuietly, a file served through
// servedQuietly) at debug; failures, and whatever answers after a static handler passed the request on, as usual.

const Outcome = z.strictObject({ outcome: z.string() });
const routes = defineRoutes({
  poll: {
    method: 'get',
    path: '/poll/:outcome',
    summary: 'A polled route',
    tags: ['test'],
    logQuietly: true,
    params: z.strictObject({ outcome: z.string() }),
    responses: {
      200: { description: 'ok', schema: Outcome },
      410: { description: 'gone', schema: Outcome },
    },
  },
});

const dir = mkdtempSync(path.join(tmpdir(), 'request-logger-'));
writeFileSync(path.join(dir, 'page.js'), 'export {};\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function appLoggingAt(level: string) {
  const lines: { level: number; msg: string; path: string; status: number }[] = [];
  const logger = createLogger(
    'test',
    level,
    new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).trim().split('\n')) lines.push(JSON.parse(l));
        cb();
      },
    }),
  );
  const app = express();
  app.use(requestId);
  app.use(requestLogger(logger));
  registerRoute(app, routes.poll, ({ params: { outcome } }, _req, res) => {
    if (outcome === 'crash') throw new Error('boom');
    res.status(outcome === 'gone' ? 410 : 200).json({ outcome });
  });
  app.use(servedQuietly(express.static(dir)));
  // answers after the static handler passed the request on: not a static file, logged at info
  app.get('/after-static', (_req, res) => {
    res.json({ ok: true });
  });
  app.use(notFoundHandler);
  app.use(problemHandler(logger));
  const requests = () => lines.filter((l) => l.msg === 'request').map((l) => [l.path, l.status, l.level]);
  return { app, requests };
}

async function everything(app: express.Express) {
  await request(app).get('/poll/ok').expect(200);
  await request(app).get('/poll/gone').expect(410);
  await request(app).get('/poll/crash').expect(500);
  await request(app).get('/page.js').expect(200);
  await request(app).get('/missing.js').expect(404);
  await request(app).get('/after-static').expect(200);
}

describe('requestLogger', () => {
  it('logs routine successes at debug and everything else as before', async () => {
    const { app, requests } = appLoggingAt('debug');
    await everything(app);
    expect(requests()).toEqual([
      ['/poll/ok', 200, 20],
      ['/poll/gone', 410, 30],
      ['/poll/crash', 500, 50],
      ['/page.js', 200, 20],
      ['/missing.js', 404, 30],
      ['/after-static', 200, 30],
    ]);
  });

  it('at info leaves the routine successes out', async () => {
    const { app, requests } = appLoggingAt('info');
    await everything(app);
    expect(requests().map(([p]) => p)).toEqual(['/poll/gone', '/poll/crash', '/missing.js', '/after-static']);
  });

  it('at warn keeps the errors only', async () => {
    const { app, requests } = appLoggingAt('warn');
    await everything(app);
    expect(requests()).toEqual([['/poll/crash', 500, 50]]);
  });
});
