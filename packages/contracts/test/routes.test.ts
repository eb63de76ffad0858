import { describe, expect, it } from 'vitest';
import {
  bridgeRoutes,
  DealsArgs,
  DealsQuery,
  defineRoutes,
  EmailActivityArgs,
  EmailActivityQuery,
  gatewayRoutes,
  PortfolioArgs,
  PortfolioQuery,
  pathFor,
  templatePath,
} from '../src/index.ts';

describe('the route tables', () => {
  it('name each entry after its key, the operationId', () => {
    expect(bridgeRoutes.getProperty.operationId).toBe('getProperty');
    expect(gatewayRoutes.bindWorker.operationId).toBe('bindWorker');
  });

  it('refuse a method and path listed twice', () => {
    const entry = { method: 'get', path: '/x', summary: 's', tags: [], responses: {} } as const;
    expect(() => defineRoutes({ a: entry, b: entry })).toThrow(/get \/x is defined twice/);
  });

  it('fill in and encode path parameters, and name a route by its template', () => {
    expect(pathFor(bridgeRoutes.getPropertyCompliance, { id: 7 })).toBe(
      '/api/assistant-bridge/properties/7/compliance',
    );
    expect(pathFor(gatewayRoutes.getWorker, { workerId: 'a/b' })).toBe('/api/assistant/workers/a%2Fb');
    expect(() => pathFor(bridgeRoutes.getProperty)).toThrow(/Missing path parameter id/);
    expect(templatePath(bridgeRoutes.getProperty.path)).toBe('/api/assistant-bridge/properties/{id}');
  });
});

describe('query fields written once', () => {
  it.each([
    ['portfolio', PortfolioQuery, PortfolioArgs, { limit: 500 }, { limit: 501 }],
    ['deals', DealsQuery, DealsArgs, { status: 'won', limit: 1 }, { limit: 0 }],
    ['email activity', EmailActivityQuery, EmailActivityArgs, { hours: 720 }, { hours: 721 }],
  ])(
    '%s: the HTTP query and the typed arguments accept and refuse the same values',
    (_n, query, args, ok, bad) => {
      const strings = (v: object) => Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
      expect(query.safeParse(strings(ok)).data).toMatchObject(ok);
      expect(args.safeParse(ok).data).toEqual(ok);
      expect(query.safeParse(strings(bad)).success).toBe(false);
      expect(args.safeParse(bad).success).toBe(false);
    },
  );

  it('applies the defaults to the HTTP query only (callers leave them to the server)', () => {
    expect(PortfolioQuery.parse({})).toEqual({ limit: 100 });
    expect(DealsQuery.parse({})).toEqual({ limit: 100, status: 'open' });
    expect(EmailActivityQuery.parse({})).toEqual({ hours: 24 });
    expect(DealsArgs.parse({})).toEqual({});
  });

  it('refuses numbers that are not plain decimal digits in the query', () => {
    for (const limit of ['1.5', '1e2', ' 7', '']) {
      expect(PortfolioQuery.safeParse({ limit }).success).toBe(false);
    }
  });
});

describe('the gateway route table', () => {
  it('says who may call every route (docs/access.md), and keeps device tokens off the signed webhooks', () => {
    for (const route of Object.values(gatewayRoutes)) {
      expect(route.access, `${route.method} ${route.path}`).toBeDefined();
    }
    const signed = Object.values(gatewayRoutes).filter((r) => r.access === 'signed');
    expect(signed.map((r) => r.path).sort()).toEqual([
      '/api/channels/telegram/:channelId/webhook',
      '/api/channels/whatsapp/:channelId/webhook',
      '/api/channels/whatsapp/:channelId/webhook',
      '/api/platform/events',
    ]);
    const open = Object.values(gatewayRoutes).filter((r) => r.access === 'open');
    expect(open.map((r) => r.path).sort()).toEqual([
      '/api/pairing/redeem',
      '/healthz',
      '/openapi.json',
      '/readyz',
    ]);
  });
});
