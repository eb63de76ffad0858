import { defineRoutes } from '@pa/contracts';
import { Router } from 'express';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { registerRoute, type RouteBody, type RouteResponse, sendJsonWithoutEtag } from '../src/index.ts';

// A handler's answers are typed from its route entry: the `@ts-expect-error` lines below are what must not
// compile (`npx tsc -p tsconfig.json` fails if any of them does), the others what must. The handlers are
// registered on a router that never serves, so only the compiler runs them.

const Thing = z.strictObject({ id: z.number(), name: z.string() });
const Created = z.strictObject({ id: z.number() });
const Chunk = z.strictObject({ delta: z.string() });
const StreamFailure = z.strictObject({ error: z.string() });

const routes = defineRoutes({
  getThing: {
    method: 'get',
    path: '/things/:id',
    summary: 'A thing',
    tags: ['test'],
    responses: {
      200: { description: 'The thing', schema: Thing },
      202: { description: 'Still being made', schema: Created },
    },
  },
  createThing: {
    method: 'post',
    path: '/things',
    summary: 'Makes a thing',
    tags: ['test'],
    responses: {
      201: { description: 'Made', schema: Created, headers: { Location: { description: 'its URL' } } },
    },
  },
  deleteThing: {
    method: 'delete',
    path: '/things/:id',
    summary: 'Deletes a thing',
    tags: ['test'],
    responses: { 204: { description: 'Deleted' } },
  },
  queueThing: {
    method: 'put',
    path: '/things/:id/queue',
    summary: 'Queues a thing',
    tags: ['test'],
    responses: { 202: { description: 'Queued', schema: Created } },
  },
  streamThing: {
    method: 'get',
    path: '/things/:id/stream',
    summary: 'Streams a thing',
    tags: ['test'],
    responses: {
      200: { description: 'Events', contentType: 'text/event-stream', schema: [Chunk, StreamFailure] },
    },
  },
});

const router = Router();

describe('the response a contract route handler receives', () => {
  it('accepts only the 200/201 body from a plain res.json', () => {
    registerRoute(router, routes.getThing, (_input, _req, res) => {
      res.json({ id: 1, name: 'kettle' });
      // @ts-expect-error a field the schema does not declare
      res.json({ id: 1, name: 'kettle', colour: 'red' });
      // @ts-expect-error a field of the wrong type
      res.json({ id: '1', name: 'kettle' });
      // @ts-expect-error the 202 body is not the 200 one
      res.json({ id: 1 });
      sendJsonWithoutEtag(res, { id: 1, name: 'kettle' });
      // @ts-expect-error the helpers that send JSON for a handler are bound to the same body
      sendJsonWithoutEtag(res, { id: 1 });
    });
    registerRoute(router, routes.createThing, (_input, _req, res) => {
      res.json({ id: 1 });
    });
    registerRoute(router, routes.queueThing, (_input, _req, res) => {
      // @ts-expect-error the route declares neither 200 nor 201, so a plain json has no body to send
      res.json({ id: 1 });
      res.status(202).json({ id: 1 });
    });
    expectTypeOf<RouteBody<typeof routes.getThing, 200>>().toEqualTypeOf<z.input<typeof Thing>>();
  });

  it('accepts only the declared statuses, each with its own body', () => {
    registerRoute(router, routes.getThing, (_input, _req, res) => {
      res.status(200).json({ id: 1, name: 'kettle' });
      res.status(202).json({ id: 1 });
      // @ts-expect-error the 200 body sent with 202
      res.status(202).json({ id: 1, name: 'kettle' });
      // @ts-expect-error a status the entry does not declare
      res.status(404).json({ id: 1 });
      // @ts-expect-error nor may sendStatus answer one
      res.sendStatus(500);
    });
    registerRoute(router, routes.deleteThing, (_input, _req, res) => {
      res.status(204).end();
      res.sendStatus(204);
      // @ts-expect-error 204 declares no body
      res.status(204).json({ id: 1 });
    });
  });

  it('keeps the narrowing through Express’s chained methods', () => {
    registerRoute(router, routes.createThing, (_input, _req, res) => {
      res.status(201).location('/things/1').json({ id: 1 });
      res.setHeader('Cache-Control', 'no-store').status(201).json({ id: 1 });
      // @ts-expect-error the status chosen first stays the one whose body is checked
      res.status(201).location('/things/1').json({ id: 1, name: 'kettle' });
      // @ts-expect-error an undeclared status after another method
      res.location('/things/1').status(200);
    });
  });

  it('takes any one of a stream’s event schemas, and leaves writing the stream alone', () => {
    registerRoute(router, routes.streamThing, (_input, _req, res) => {
      res.status(200).type('text/event-stream');
      res.write(`data: ${JSON.stringify({ delta: 'a' })}\n\n`);
      res.end();
      expectTypeOf<Parameters<RouteResponse<typeof routes.streamThing>['json']>[0]>().toEqualTypeOf<
        { delta: string } | { error: string } | undefined
      >();
    });
  });
});
