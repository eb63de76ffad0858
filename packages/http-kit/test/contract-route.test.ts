import { defineRoutes } from '@pa/contracts';
import express, { type RequestHandler, Router } from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { notFoundHandler, problemHandler, registerRoute, requestId } from '../src/index.ts';

const routes = defineRoutes({
  setThing: {
    method: 'put',
    path: '/api/things/:id',
    summary: 'Sets a thing',
    tags: ['things'],
    params: z.strictObject({
      id: z
        .string()
        .regex(/^[0-9]+$/)
        .transform(Number),
    }),
    query: z.strictObject({ dry: z.enum(['yes', 'no']).default('no') }),
    body: z.strictObject({ name: z.string().min(1) }),
    responses: {
      200: {
        description: 'The thing',
        schema: z.strictObject({ id: z.number(), dry: z.enum(['yes', 'no']), name: z.string() }),
      },
    },
  },
});

function app(before: RequestHandler[] = []) {
  const router = Router();
  registerRoute(
    router,
    routes.setThing,
    { mountedAt: '/api/things', before },
    ({ params, query, body }, _req, res) => {
      res.json({ id: params.id, dry: query.dry, name: body.name });
    },
  );
  const a = express();
  a.use(requestId);
  a.use(express.json());
  a.use('/api/things', router);
  a.use(notFoundHandler);
  a.use(problemHandler(pino({ level: 'silent' })));
  return a;
}

describe('registerRoute', () => {
  it('registers the entry relative to where the router is mounted and hands over the parsed input', async () => {
    const res = await request(app()).put('/api/things/42').send({ name: 'kettle' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 42, dry: 'no', name: 'kettle' });
    expect((await request(app()).post('/api/things/42').send({ name: 'kettle' })).status).toBe(404);
  });

  it('answers 400 validation-failed with a pointer for the first invalid part', async () => {
    const bad = await request(app()).put('/api/things/42?dry=maybe').send({ name: '' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation-failed', errors: [{ pointer: '#/dry' }] });
    const extra = await request(app()).put('/api/things/42').send({ name: 'kettle', colour: 'red' });
    expect(extra.body.errors).toEqual([{ pointer: '#/colour', detail: 'is not a known field' }]);
  });

  it('runs the given middleware, in order, before parsing', async () => {
    const seen: string[] = [];
    const mark =
      (name: string): RequestHandler =>
      (_req, _res, next) => {
        seen.push(name);
        next();
      };
    const res = await request(app([mark('a'), mark('b')])).put('/api/things/x');
    expect(res.status).toBe(400);
    expect(seen).toEqual(['a', 'b']);
  });

  it('refuses to register a route outside the mount point', () => {
    expect(() =>
      registerRoute(Router(), routes.setThing, { mountedAt: '/api/other' }, () => undefined),
    ).toThrow(/does not lie under \/api\/other/);
  });
});
