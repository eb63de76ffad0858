import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AppError,
  BadGateway,
  Conflict,
  createLogger,
  FeatureDisabled,
  Forbidden,
  NotFound,
  problemHandler,
  RateLimited,
  rateLimitExceeded,
  requestId,
  requireJson,
  ServiceUnavailable,
  Unauthorized,
  Unprocessable,
  ValidationFailed,
} from '../src/index.ts';

// The one table from error kinds to statuses, seen from outside: an Express app whose routes throw each kind.

class VendorDown extends Error {} // stands for an app's own failure type (the gateway's ProviderError)

const thrown: Record<string, () => Error> = {
  validation: () => new ValidationFailed([{ pointer: '#/name', detail: 'is required' }]),
  'not-found': () => new NotFound('thing-not-found', 'No thing 7.'),
  disabled: () => new FeatureDisabled('things-disabled', 'Things are off.'),
  unauthorized: () =>
    new Unauthorized('invalid-api-key', 'Bad key.', { realm: 'things', error: 'invalid_token' }),
  forbidden: () =>
    new Forbidden('insufficient-scope', 'Needs write.', {
      realm: 'things',
      error: 'insufficient_scope',
      scope: 'things:write',
    }),
  conflict: () => new Conflict('thing-exists', 'Thing 7 exists.', { current_status: 'open' }),
  unprocessable: () => new Unprocessable('thing-unbound', 'Bind it first.'),
  'rate-limited': () => new RateLimited('too-many-things', 'Slow down.', 7, { title: 'Too many things' }),
  'bad-gateway': () => new BadGateway('upstream-failed', 'The upstream failed.'),
  unavailable: () => new ServiceUnavailable('upstream-busy', 'Busy.', 30),
  vendor: () => new VendorDown('vendor says no'),
  bug: () => new Error('SELECT * FROM secrets failed at thing.ts:12'),
};

let server: Server;
let base: string;
beforeAll(async () => {
  const app = express();
  app.use(requestId);
  app.use(express.json({ limit: '64kb' }));
  for (const [name, make] of Object.entries(thrown)) {
    app.get(`/${name}`, () => {
      throw make();
    });
  }
  // Express 5 forwards a rejected promise just like a throw
  app.get('/async', async () => {
    await Promise.resolve();
    throw new NotFound('thing-not-found', 'No thing 8.');
  });
  app.post('/json', requireJson, (_req, res) => {
    res.json({ ok: true });
  });
  const limited: RequestHandler = rateLimit({
    windowMs: 60_000,
    limit: 1,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: rateLimitExceeded((s) => `One a minute; try again in ${s} s.`),
  });
  app.get('/limited', limited, (_req, res) => {
    res.json({ ok: true });
  });
  app.use(
    problemHandler(createLogger('test', 'silent'), {
      translate: (err) =>
        err instanceof VendorDown
          ? new BadGateway('vendor-down', err.message, { title: 'Vendor error' })
          : undefined,
    }),
  );
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

async function problem(path: string, init?: RequestInit) {
  const res = await fetch(`${base}${path}`, init);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return { res, body: (await res.json()) as Record<string, unknown> };
}

describe('problemHandler', () => {
  it.each([
    ['validation', 400, 'validation-failed', 'Validation failed'],
    ['not-found', 404, 'thing-not-found', 'Not found'],
    ['disabled', 404, 'things-disabled', 'Not found'],
    ['unauthorized', 401, 'invalid-api-key', 'Unauthorized'],
    ['forbidden', 403, 'insufficient-scope', 'Forbidden'],
    ['conflict', 409, 'thing-exists', 'Conflict'],
    ['unprocessable', 422, 'thing-unbound', 'Unprocessable content'],
    ['rate-limited', 429, 'too-many-things', 'Too many things'],
    ['bad-gateway', 502, 'upstream-failed', 'Bad gateway'],
    ['unavailable', 503, 'upstream-busy', 'Service unavailable'],
    ['vendor', 502, 'vendor-down', 'Vendor error'],
    ['async', 404, 'thing-not-found', 'Not found'],
  ])('GET /%s → %i %s', async (path, status, code, title) => {
    const { res, body } = await problem(`/${path}`);
    expect(res.status).toBe(status);
    expect(body).toMatchObject({ type: `/problems/${code}`, code, status, title, instance: `/${path}` });
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('carries each kind’s typed extras: field errors, the Bearer challenge, Retry-After, extension members', async () => {
    expect((await problem('/validation')).body.errors).toEqual([
      { pointer: '#/name', detail: 'is required' },
    ]);
    expect((await problem('/not-found')).body).not.toHaveProperty('errors');
    expect((await problem('/unauthorized')).res.headers.get('www-authenticate')).toBe(
      'Bearer realm="things", error="invalid_token"',
    );
    expect((await problem('/forbidden')).res.headers.get('www-authenticate')).toBe(
      'Bearer realm="things", error="insufficient_scope", scope="things:write"',
    );
    const limited = await problem('/rate-limited');
    expect(limited.res.headers.get('retry-after')).toBe('7');
    expect(limited.body.retry_after_seconds).toBe(7);
    expect((await problem('/unavailable')).res.headers.get('retry-after')).toBe('30');
    expect((await problem('/bad-gateway')).res.headers.get('retry-after')).toBeNull();
    expect((await problem('/conflict')).body.current_status).toBe('open');
  });

  it('answers anything unexpected as a bare 500, without its message', async () => {
    const { res, body } = await problem('/bug');
    expect(res.status).toBe(500);
    expect(body.code).toBe('internal-error');
    expect(JSON.stringify(body)).not.toMatch(/SELECT|thing\.ts/);
  });

  it('maps the body parser’s failures and requireJson to kinds', async () => {
    const post = (body: string, type: string) =>
      problem('/json', { method: 'POST', headers: { 'content-type': type }, body });
    const malformed = await post('{', 'application/json');
    expect([malformed.res.status, malformed.body.code]).toEqual([400, 'malformed-json']);
    const tooLarge = await post(JSON.stringify({ s: 'x'.repeat(70_000) }), 'application/json');
    expect([tooLarge.res.status, tooLarge.body.code]).toEqual([413, 'payload-too-large']);
    const text = await post('hi', 'text/plain');
    expect([text.res.status, text.body.code]).toEqual([415, 'unsupported-media-type']);
  });

  it('rateLimitExceeded: express-rate-limit’s 429 with the seconds left in the window', async () => {
    expect((await fetch(`${base}/limited`)).status).toBe(200);
    const { res, body } = await problem('/limited');
    expect(res.status).toBe(429);
    const seconds = Number(res.headers.get('retry-after'));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(body).toMatchObject({ code: 'rate-limited', retry_after_seconds: seconds });
    expect(body.detail).toBe(`One a minute; try again in ${seconds} s.`);
  });

  it('every kind is an AppError with a stable code and the detail as its message', () => {
    for (const make of Object.values(thrown).slice(0, 10)) {
      const err = make();
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toMatch(/^[a-z-]+$/);
    }
  });
});
