import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { createLogger } from '@pa/http-kit';
import { bearer, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

function memoryLogger(level = 'info') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).trim().split('\n'));
      cb();
    },
  });
  return { logger: createLogger('platform-bridge', level, stream), lines };
}

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge();
});
afterAll(async () => t?.close());

describe('structured logs', () => {
  it('write one JSON line per request with the request id and tenant, and never the key', async () => {
    const { logger, lines } = memoryLogger();
    const app = createApp({ db: t.db, logger, clock: t.clock });
    const tenant = await makeTenant(t);
    await request(app)
      .get('/api/assistant-bridge/portfolio?limit=5')
      .set(...bearer(tenant.key))
      .set('X-Request-Id', 'log-test-1')
      .expect(200);
    await request(app).get(`/api/assistant-bridge/portfolio?api_key=${tenant.key}`).expect(401);
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries.find((e) => e.request_id === 'log-test-1')).toMatchObject({
      msg: 'request',
      method: 'GET',
      path: '/api/assistant-bridge/portfolio',
      status: 200,
      tenant: tenant.slug,
      service: 'platform-bridge',
    });
    expect(lines.join('\n')).not.toContain(tenant.key.slice(5, 20));
  });

  it('log the probes and the review queue page’s files at debug only (LOG_LEVEL=debug), failures at info', async () => {
    const routine = [
      '/healthz',
      '/readyz',
      '/settings/review-queue',
      '/settings/review-queue/review-queue.js',
    ];
    const at = async (level: string) => {
      const { logger, lines } = memoryLogger(level);
      const app = createApp({ db: t.db, logger, clock: t.clock });
      for (const path of routine) await request(app).get(path).expect(200);
      await request(app).get('/settings/review-queue/missing.js').expect(404);
      return lines
        .map((l) => JSON.parse(l) as { msg: string; path: string; level: number })
        .filter((e) => e.msg === 'request')
        .map((e) => [e.path, e.level]);
    };
    expect(await at('debug')).toEqual([
      ...routine.map((path) => [path, 20]),
      ['/settings/review-queue/missing.js', 30],
    ]);
    expect(await at('info')).toEqual([['/settings/review-queue/missing.js', 30]]);
  });

  it('censor authorization headers and secret-named fields wherever they are logged', () => {
    const { logger, lines } = memoryLogger();
    logger.info(
      {
        req: { headers: { authorization: 'Bearer plat_secret' } },
        body: { apiKey: 'k1', botToken: 't1', password: 'p1' },
      },
      'x',
    );
    const entry = JSON.parse(lines[0]!);
    expect(entry.req.headers.authorization).toBe('[redacted]');
    expect(entry.body).toEqual({ apiKey: '[redacted]', botToken: '[redacted]', password: '[redacted]' });
  });
});
