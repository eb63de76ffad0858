import { PortfolioResponse } from '@pa/contracts';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { createSummaryCache } from '../src/features/portfolio/summary-cache.ts';
import { createLogger } from '@pa/http-kit';
import { expectContract } from './support/contract.ts';
import { bearer, makeProperty, makeTenant } from './support/factories.ts';
import { startTestBridge } from './support/test-app.ts';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('the portfolio summary cache', () => {
  it('shares one computation among concurrent requests, and without a TTL forgets it once done', async () => {
    const cache = createSummaryCache<number>(0);
    const d = deferred<number>();
    let calls = 0;
    const compute = () => {
      calls++;
      return d.promise;
    };
    const both = Promise.all([cache.get(1, '2026-06-15', compute), cache.get(1, '2026-06-15', compute)]);
    d.resolve(42);
    expect(await both).toEqual([42, 42]);
    expect(calls).toBe(1);
    expect(await cache.get(1, '2026-06-15', async () => 43)).toBe(43);
  });

  it('with a TTL reuses the result for that tenant and day only', async () => {
    const cache = createSummaryCache<string>(60_000);
    expect(await cache.get(1, '2026-06-15', async () => 'a')).toBe('a');
    expect(await cache.get(1, '2026-06-15', async () => 'b')).toBe('a');
    expect(await cache.get(2, '2026-06-15', async () => 'other tenant')).toBe('other tenant');
    expect(await cache.get(1, '2026-06-16', async () => 'new day')).toBe('new day');
    cache.invalidate(1);
    expect(await cache.get(1, '2026-06-16', async () => 'after invalidate')).toBe('after invalidate');
  });

  it('does not keep a failure', async () => {
    const cache = createSummaryCache<string>(60_000);
    await expect(cache.get(1, 'd', async () => Promise.reject(new Error('db down')))).rejects.toThrow(
      'db down',
    );
    expect(await cache.get(1, 'd', async () => 'recovered')).toBe('recovered');
  });

  it('through the API: a cached summary lags new records until its TTL; without a cache it does not', async () => {
    const t = await startTestBridge();
    try {
      const cached = createApp({
        db: t.db,
        logger: createLogger('platform-bridge', 'silent'),
        clock: t.clock,
        summaryCacheMs: 60_000,
      });
      const tenant = await makeTenant(t);
      await makeProperty(t, tenant.id);
      const total = async (app: typeof cached) =>
        expectContract(
          PortfolioResponse,
          (
            await request(app)
              .get('/api/assistant-bridge/portfolio')
              .set(...bearer(tenant.key))
          ).body,
        ).summary.properties_total;
      expect(await total(cached)).toBe(1);
      await makeProperty(t, tenant.id);
      expect(await total(cached)).toBe(1);
      expect(await total(t.app)).toBe(2);
    } finally {
      await t.close();
    }
  });
});
