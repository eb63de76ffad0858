import { bridgeRoutes, gatewayRoutes } from '@pa/contracts';
import {
  bearerMatches,
  codeLabel,
  createRouteLabeler,
  parseExposition,
  readWithin,
  sharedRead,
  unboundedLabels,
} from '@pa/telemetry';
import { describe, expect, it } from 'vitest';

// The pieces of @pa/telemetry's metrics that decide what a label says, on both apps' real route tables: the
// route-table path a request falls under (as Express 5 matches it), the code and limit labels, the metrics
// token's check, and the exposition reader the metrics tests rely on.

describe('createRouteLabeler', () => {
  const bridge = createRouteLabeler(Object.values(bridgeRoutes));
  const gateway = createRouteLabeler(Object.values(gatewayRoutes));

  it('names the route-table path, never the URL: parameters, a trailing slash and letter case as Express takes them', () => {
    expect(bridge('GET', '/api/assistant-bridge/properties/42')).toBe('/api/assistant-bridge/properties/:id');
    expect(bridge('GET', '/api/assistant-bridge/properties/42/compliance')).toBe(
      '/api/assistant-bridge/properties/:id/compliance',
    );
    expect(bridge('GET', '/api/assistant-bridge/portfolio/')).toBe('/api/assistant-bridge/portfolio');
    expect(bridge('GET', '/API/Assistant-Bridge/Portfolio')).toBe('/api/assistant-bridge/portfolio');
    expect(gateway('DELETE', '/api/assistant/workers/0b5e/channels/77')).toBe(
      '/api/assistant/workers/:workerId/channels/:channelId',
    );
  });

  it('prefers a literal path to a pattern that also fits; HEAD is GET, OPTIONS any method', () => {
    const table = createRouteLabeler([
      { method: 'get', path: '/items/:id' },
      { method: 'get', path: '/items/new' },
    ]);
    expect(table('GET', '/items/new')).toBe('/items/new');
    expect(table('GET', '/items/12')).toBe('/items/:id');
    expect(bridge('HEAD', '/api/assistant-bridge/portfolio')).toBe('/api/assistant-bridge/portfolio');
    expect(gateway('OPTIONS', '/api/chat')).toBe('/api/chat');
  });

  it('names nothing for a method or a path no route has, nor an empty parameter', () => {
    expect(bridge('PUT', '/api/assistant-bridge/portfolio')).toBeUndefined();
    expect(bridge('GET', '/api/assistant-bridge/properties/')).toBeUndefined();
    expect(bridge('GET', '/api/assistant-bridge/properties/1/2')).toBeUndefined();
    expect(gateway('GET', '/app.js')).toBeUndefined();
  });

  it('remembers only the routes it found, for paths of ordinary length: a scanner’s misses and long paths take no room', () => {
    const seen = new Map<string, string>();
    const label = createRouteLabeler(Object.values(bridgeRoutes), seen);
    expect(label('GET', '/api/assistant-bridge/properties/42')).toBe('/api/assistant-bridge/properties/:id');
    for (let i = 0; i < 50; i++) expect(label('GET', `/wp-admin/${i}.php`)).toBeUndefined();
    expect(label('PUT', '/api/assistant-bridge/portfolio')).toBeUndefined();
    const long = `/api/assistant-bridge/properties/${'9'.repeat(300)}`;
    expect(label('GET', long)).toBe('/api/assistant-bridge/properties/:id');
    expect([...seen]).toEqual([
      ['GET /api/assistant-bridge/properties/42', '/api/assistant-bridge/properties/:id'],
    ]);
    // a remembered answer is the same answer
    expect(label('GET', '/api/assistant-bridge/properties/42')).toBe('/api/assistant-bridge/properties/:id');
  });
});

describe('codeLabel', () => {
  it('passes the code’s own slugs and names anything else `other`', () => {
    expect(codeLabel('rate-limited')).toBe('rate-limited');
    expect(codeLabel('getPortfolio')).toBe('getPortfolio');
    expect(codeLabel(undefined)).toBe('other');
    expect(codeLabel('a b')).toBe('other');
    expect(codeLabel('x'.repeat(65))).toBe('other');
    expect(codeLabel('/api/x?y=1')).toBe('other');
  });
});

describe('bearerMatches', () => {
  const token = 'f'.repeat(48);
  it('takes `Bearer <token>` (any case of the scheme) and nothing else', () => {
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`Bearer ${token}x`, token)).toBe(false);
    expect(bearerMatches(token, token)).toBe(false);
    expect(bearerMatches(`Basic ${token}`, token)).toBe(false);
    expect(bearerMatches(undefined, token)).toBe(false);
    expect(bearerMatches('Bearer ', '')).toBe(false);
  });
});

describe('readWithin', () => {
  it('is the value read, or NaN when the read fails or is late', async () => {
    expect(await readWithin(async () => 7)).toBe(7);
    expect(await readWithin(() => Promise.reject(new Error('database away')))).toBeNaN();
    expect(await readWithin(() => new Promise<number>(() => {}), 20)).toBeNaN();
  });
});

describe('sharedRead', () => {
  it('gives the calls that overlap a running read its answer (or its failure), and starts afresh once it is done', async () => {
    let started = 0;
    let finish: (v: number) => void = () => {};
    let fail: (e: Error) => void = () => {};
    const read = sharedRead(() => {
      started++;
      return new Promise<number>((resolve, reject) => {
        finish = resolve;
        fail = reject;
      });
    });
    const first = [read(), read(), read()];
    expect(started).toBe(1);
    // given up by the scrape (late), the read itself goes on: the next scrape waits for the same one
    expect(await readWithin(read, 20)).toBeNaN();
    expect(started).toBe(1);
    finish(12);
    expect(await Promise.all(first)).toEqual([12, 12, 12]);
    const second = read();
    expect(started).toBe(2);
    fail(new Error('database away'));
    await expect(second).rejects.toThrow('database away');
    const third = read();
    expect(started).toBe(3);
    finish(4);
    expect(await third).toBe(4);
  });
});

describe('parseExposition and unboundedLabels', () => {
  const text = [
    '# HELP pa_x_seconds A histogram.',
    '# TYPE pa_x_seconds histogram',
    'pa_x_seconds_bucket{le="0.1",route="/api/chat"} 3',
    'pa_x_seconds_bucket{le="+Inf",route="/api/chat"} 4',
    'pa_x_seconds_sum{route="/api/chat"} 0.25',
    'pa_x_seconds_count{route="/api/chat"} 4',
    '# TYPE pa_g gauge',
    'pa_g{note="a \\"quoted\\" value"} Nan',
    'pa_bad{route="/api/assistant/workers/0b5e6f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"} 1',
    'pa_bad{route="/api/x?key=plat_abc"} 1',
    'pa_bad{route="/properties/1234567"} 1',
    '',
  ].join('\n');

  it('reads each sample with its family, labels and value', () => {
    const e = parseExposition(text);
    expect(e.types.get('pa_x_seconds')).toBe('histogram');
    expect(e.samples.filter((s) => s.family === 'pa_x_seconds')).toHaveLength(4);
    expect(e.samples[3]).toEqual({
      family: 'pa_x_seconds',
      name: 'pa_x_seconds_count',
      labels: { route: '/api/chat' },
      value: 4,
    });
    expect(e.samples[4]!.labels.note).toBe('a "quoted" value');
    expect(e.samples[4]!.value).toBeNaN();
  });

  it('finds ids, long numbers, query strings and key prefixes in label values', () => {
    expect(unboundedLabels(parseExposition(text).samples)).toEqual([
      'pa_bad{route="/api/assistant/workers/0b5e6f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"}: a UUID',
      'pa_bad{route="/api/x?key=plat_abc"}: a query string',
      'pa_bad{route="/properties/1234567"}: a run of 6 or more digits',
    ]);
  });
});
