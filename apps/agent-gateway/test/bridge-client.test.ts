import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ComplianceResponse,
  DealsResponse,
  EmailActivityResponse,
  MailboxesResponse,
  PortfolioComplianceResponse,
  PortfolioResponse,
  Property,
} from '@pa/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEMO_MAILBOXES, DEMO_TENANT_SLUG } from '@pa/platform-bridge/testing';
import { BridgeError, type BridgeErrorKind } from '../src/clients/bridge/bridge-errors.ts';
import {
  createPlatformBridgeClient,
  type PlatformBridge,
  type PlatformBridgeClient,
} from '../src/clients/bridge/platform-bridge-client.ts';
import { PLATFORM_TEST_NOW, type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';

// Contract tests across both apps (docs/testing.md): the gateway's bridge client against the REAL platform-bridge app
// (own database, port 0), plus loopback servers for the failures a real bridge does not produce on demand.

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let bridge: PlatformBridge;
let client: PlatformBridgeClient;
/** Every key handed to a client here; no error may ever show one. */
const secrets = new Set<string>();

beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo();
  secrets.add(demo.key);
  bridge = createPlatformBridgeClient({ baseUrl: platform.baseUrl });
  client = bridge.forKey(demo.key);
});
afterAll(async () => platform?.close());

/** The call's BridgeError (the test fails if it succeeds or throws anything else). */
async function failure(call: Promise<unknown>, kind: BridgeErrorKind): Promise<BridgeError> {
  const err = await call.then(
    (value) => {
      throw new Error(`expected a ${kind} failure, got ${JSON.stringify(value).slice(0, 200)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BridgeError);
  const e = err as BridgeError;
  expect({ kind: e.kind, message: e.message }).toMatchObject({ kind });
  for (const text of [e.message, String(e.stack), JSON.stringify(e), e.detail ?? '']) {
    for (const secret of secrets) expect(text).not.toContain(secret);
  }
  return e;
}

async function portfolioIdOf(ref: string): Promise<number> {
  const p = await client.getPortfolio({ limit: 500 });
  const found = p.properties.find((x) => x.ref === ref);
  if (!found) throw new Error(`no ${ref} in the demo`);
  return found.id;
}

describe('bridge reads through the client, against the real bridge with the demo seeded', () => {
  it('reads the portfolio: 24 properties, MAN-004 among them', async () => {
    const p = await client.getPortfolio();
    expect(PortfolioResponse.safeParse(p).success).toBe(true);
    expect(p.tenant.slug).toBe(DEMO_TENANT_SLUG);
    expect(p.summary.properties_total).toBe(24);
    expect(p.properties).toHaveLength(24);
    expect(p.next_cursor).toBeNull();
    expect(p.as_of).toBe(new Date(PLATFORM_TEST_NOW).toISOString());
    expect(p.properties.map((x) => x.ref)).toContain('MAN-004');
    const towns = new Set(p.properties.map((x) => x.address.town));
    for (const town of ['Manchester', 'Bristol', 'Leeds', 'London']) expect(towns).toContain(town);
    expect(p.properties.filter((x) => x.is_hmo)).toHaveLength(4);
  });

  it('walks the portfolio page by page with the cursor', async () => {
    const all = await client.getPortfolio({ limit: 500 });
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.getPortfolio({ limit: 5, cursor });
      pages++;
      expect(page.properties.length).toBeLessThanOrEqual(5);
      expect(page.summary.properties_total).toBe(24);
      seen.push(...page.properties.map((x) => x.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor && pages < 20);
    expect(pages).toBe(5);
    expect(seen).toEqual(all.properties.map((x) => x.id));
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(new Set(seen).size).toBe(24);
  });

  it('reads one property and its compliance', async () => {
    const id = await portfolioIdOf('MAN-004');
    const property = await client.getProperty(id);
    expect(Property.safeParse(property).success).toBe(true);
    expect(property).toMatchObject({ id, ref: 'MAN-004' });

    const compliance = await client.getCompliance(id);
    expect(ComplianceResponse.safeParse(compliance).success).toBe(true);
    expect(compliance.property_id).toBe(id);
    expect(compliance.status).toBe(property.compliance_summary.status);
    for (const item of compliance.items) expect(item.property_id).toBe(id);
  });

  it('reads the compliance of every demo property (some expired, some missing)', async () => {
    const p = await client.getPortfolio({ limit: 500 });
    const answers = await Promise.all(p.properties.map((x) => client.getCompliance(x.id)));
    const statuses = answers.flatMap((a) => a.items.map((i) => i.status));
    expect(statuses).toContain('expired');
    expect(statuses).toContain('expiring_soon');
    expect(answers.some((a) => a.missing.length > 0)).toBe(true);
    const items = answers.reduce((n, a) => n + a.items.length, 0);
    expect(items).toBeGreaterThanOrEqual(100);
    for (const [i, a] of answers.entries()) expect(a.status).toBe(p.properties[i]!.compliance_status);
  });

  it('reads the compliance needing attention across the portfolio in one call, as the per-property reads say', async () => {
    const p = await client.getPortfolio({ limit: 500 });
    const perProperty = await Promise.all(p.properties.map((x) => client.getCompliance(x.id)));
    const needing = perProperty.filter((c) => c.status !== 'valid');

    const all = await client.getPortfolioCompliance();
    expect(PortfolioComplianceResponse.safeParse(all).success).toBe(true);
    expect(all.next_cursor).toBeNull();
    expect(all.properties.map((x) => x.property_id)).toEqual(needing.map((c) => c.property_id));
    for (const [i, c] of needing.entries()) {
      const got = all.properties[i]!;
      expect(got.ref).toBe(p.properties.find((x) => x.id === c.property_id)!.ref);
      expect(got.status).toBe(c.status);
      expect(got.items).toEqual(c.items.filter((item) => item.status !== 'valid'));
      expect(got.missing).toEqual(c.missing);
    }

    // a list of statuses travels as one comma-separated value; pages follow the cursor
    const first = await client.getPortfolioCompliance({ status: ['expired', 'missing'], limit: 2 });
    expect(first.status).toEqual(['expired', 'missing']);
    expect(first.properties).toHaveLength(2);
    const second = await client.getPortfolioCompliance({
      status: ['expired', 'missing'],
      limit: 2,
      cursor: first.next_cursor!,
    });
    expect(second.properties[0]!.property_id).toBeGreaterThan(first.properties[1]!.property_id);
    for (const x of [...first.properties, ...second.properties])
      for (const item of x.items) expect(item.status).toBe('expired');
  });

  it('reads deals with each status', async () => {
    const byStatus = {
      open: await client.getDeals({ status: 'open' }),
      won: await client.getDeals({ status: 'won' }),
      lost: await client.getDeals({ status: 'lost' }),
      all: await client.getDeals({ status: 'all' }),
    };
    for (const [status, answer] of Object.entries(byStatus)) {
      expect(DealsResponse.safeParse(answer).success).toBe(true);
      if (status !== 'all') for (const d of answer.deals) expect(d.status).toBe(status);
    }
    expect(byStatus.all.deals).toHaveLength(8);
    expect(byStatus.open.deals.length + byStatus.won.deals.length + byStatus.lost.deals.length).toBe(8);
    expect(byStatus.open.deals.length).toBeGreaterThan(0);
    expect((await client.getDeals()).deals).toEqual(byStatus.open.deals);
    const portfolio = await client.getPortfolio({ limit: 1 });
    expect(portfolio.summary.open_deals).toBe(byStatus.open.deals.length);

    const firstPage = await client.getDeals({ status: 'all', limit: 3 });
    expect(firstPage.deals).toHaveLength(3);
    expect(firstPage.next_cursor).not.toBeNull();
    const second = await client.getDeals({ status: 'all', limit: 3, cursor: firstPage.next_cursor! });
    expect(second.deals[0]!.id).toBeGreaterThan(firstPage.deals[2]!.id);
  });

  it('reads email activity for a window of hours, newest first', async () => {
    const now = Date.parse(PLATFORM_TEST_NOW);
    const counts: Record<number, number> = {};
    for (const hours of [24, 72, 720]) {
      const a = await client.getEmailActivity({ hours });
      expect(EmailActivityResponse.safeParse(a).success).toBe(true);
      expect(a.hours).toBe(hours);
      expect(Date.parse(a.since)).toBe(now - hours * 3_600_000);
      const times = a.items.map((i) => Date.parse(i.received_at));
      expect([...times].sort((x, y) => y - x)).toEqual(times);
      for (const t of times) expect(t).toBeGreaterThanOrEqual(Date.parse(a.since));
      counts[hours] = a.items.length;
    }
    expect(counts[24]).toBeGreaterThan(0);
    expect(counts[24]).toBeLessThan(counts[72]!);
    expect(counts[72]).toBeGreaterThanOrEqual(35);
    expect((await client.getEmailActivity()).hours).toBe(24);
  });

  it('reads the mailboxes the platform polls', async () => {
    const m = await client.getMailboxes();
    expect(MailboxesResponse.safeParse(m).success).toBe(true);
    expect(m.mailboxes.map((x) => x.address).sort()).toEqual([...DEMO_MAILBOXES].sort());
  });
});

describe('the contract tests catch drift', () => {
  it('a changed copy of a schema rejects the real bridge answer', async () => {
    const real = await client.getPortfolio();
    expect(PortfolioResponse.safeParse(real).success).toBe(true);

    // The schema grew a field the bridge does not send…
    const Grown = PortfolioResponse.extend({ extra_required: z.string() });
    const grown = Grown.safeParse(real);
    expect(grown.success).toBe(false);
    expect(grown.error!.issues.map((i) => i.path.join('/'))).toEqual(['extra_required']);

    // …or lost one the bridge still sends (schemas are strict).
    const Shrunk = PortfolioResponse.omit({ next_cursor: true });
    const shrunk = Shrunk.safeParse(real);
    expect(shrunk.success).toBe(false);
    expect(shrunk.error!.issues[0]!.code).toBe('unrecognized_keys');
  });

  it('the client refuses a real bridge answer that has drifted', async () => {
    const res = await fetch(`${platform.baseUrl}/api/assistant-bridge/portfolio`, {
      headers: { authorization: `Bearer ${demo.key}` },
    });
    const body = (await res.json()) as { summary: Record<string, unknown> } & Record<string, unknown>;
    delete body.summary.open_deals;
    body.renamed_field = true;
    const s = await stub((_req, r) => json(r, 200, body));
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl }).forKey(demo.key).getPortfolio(),
      'contract',
    );
    expect(err.status).toBe(200);
    expect(err.issues.map((i) => i.pointer)).toEqual(expect.arrayContaining(['#/summary/open_deals', '#/']));
  });
});

describe('bridge refusals, from the real bridge', () => {
  it('a revoked key → unauthorized (401 invalid-api-key), with our request id echoed', async () => {
    const t = await platform.createTenant();
    secrets.add(t.key);
    await bridge.forKey(t.key).getMailboxes();
    await platform.admin.revokeKey(t.keyId);
    const err = await failure(
      bridge.forKey(t.key).getPortfolio({}, { requestId: 'gw-test-revoked-1' }),
      'unauthorized',
    );
    expect(err).toMatchObject({ status: 401, code: 'invalid-api-key', requestId: 'gw-test-revoked-1' });
  });

  it('an unknown or malformed key → unauthorized', async () => {
    const unknown = `plat_${'A'.repeat(38)}`;
    secrets.add(unknown);
    expect(await failure(bridge.forKey(unknown).getPortfolio(), 'unauthorized')).toMatchObject({
      status: 401,
    });
    // Not sendable in a header at all: refused before any request.
    const broken = 'plat_abc\r\nX-Evil: 1';
    secrets.add(broken);
    expect(await failure(bridge.forKey(broken).getPortfolio(), 'unauthorized')).toMatchObject({
      status: null,
    });
    expect(await failure(bridge.forKey('').getPortfolio(), 'unauthorized')).toMatchObject({ status: null });
  });

  it('the bridge flag off → not-found with code bridge-not-enabled', async () => {
    const t = await platform.createTenant({ bridge: false });
    secrets.add(t.key);
    const err = await failure(bridge.forKey(t.key).getPortfolio(), 'not-found');
    expect(err).toMatchObject({ status: 404, code: 'bridge-not-enabled' });
  });

  it('a property of another tenant → not-found with code property-not-found', async () => {
    const other = await platform.createTenant();
    secrets.add(other.key);
    const id = await portfolioIdOf('MAN-004');
    const them = bridge.forKey(other.key);
    expect(await failure(them.getProperty(id), 'not-found')).toMatchObject({
      status: 404,
      code: 'property-not-found',
    });
    expect(await failure(them.getCompliance(id), 'not-found')).toMatchObject({ code: 'property-not-found' });
  });

  it('a key without bridge:read → forbidden (insufficient-scope)', async () => {
    const t = await platform.createTenant({ scopes: ['bridge:propose'] });
    secrets.add(t.key);
    const err = await failure(bridge.forKey(t.key).getDeals(), 'forbidden');
    expect(err).toMatchObject({ status: 403, code: 'insufficient-scope' });
  });

  it('arguments the bridge would refuse are refused before sending', async () => {
    for (const call of [
      client.getPortfolio({ limit: 0 }),
      client.getPortfolio({ limit: 501 }),
      client.getPortfolio({ cursor: 'not a cursor!' }),
      client.getProperty(0),
      client.getProperty(1.5),
      client.getCompliance(-3),
      client.getPortfolioCompliance({ status: ['valid' as never] }),
      client.getPortfolioCompliance({ status: [] }),
      client.getPortfolioCompliance({ limit: 501 }),
      client.getDeals({ status: 'pending' as never }),
      client.getEmailActivity({ hours: 721 }),
    ]) {
      expect(await failure(call, 'invalid-request')).toMatchObject({ status: null });
    }
  });
});

describe('the real bridge rate limit', () => {
  let limited: PlatformForGateway;
  beforeAll(async () => {
    limited = await startPlatformForGateway({ rateLimitPerMin: 1 });
  });
  afterAll(async () => limited?.close());

  it('a Retry-After longer than the cap → rate-limited at once, with the wait the bridge asked for', async () => {
    const t = await limited.createTenant();
    secrets.add(t.key);
    const c = createPlatformBridgeClient({ baseUrl: limited.baseUrl }).forKey(t.key);
    await c.getMailboxes();
    const started = performance.now();
    const err = await failure(c.getMailboxes(), 'rate-limited');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(err).toMatchObject({ status: 429, code: 'rate-limited' });
    expect(err.retryAfterSeconds).toBeGreaterThan(10);
  });
});

// ---- loopback servers ---------------------------------------------------------------------------------------

interface Stub {
  baseUrl: string;
  requests: { url: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

async function stub(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<Stub> {
  const requests: Stub['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    handler(req, res, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const s: Stub = {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  stubs.push(s);
  return s;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(JSON.stringify(body));
}

function problem(status: number, code: string) {
  return {
    type: `/problems/${code}`,
    title: code,
    status,
    detail: `stub ${code}`,
    instance: '/x',
    code,
    request_id: 'stub',
  };
}

const MAILBOXES = { mailboxes: [{ address: 'lettings@example.test', polled_by_platform: true }] };
const KEY = `plat_${'Z'.repeat(38)}`;
secrets.add(KEY);

describe('failures the client must classify, from loopback servers', () => {
  it('sends the key as a Bearer header only, and passes X-Request-Id through when it is safe', async () => {
    const s = await stub((req, res) =>
      json(res, 200, req.url?.includes('/deals') ? { deals: [], next_cursor: null } : MAILBOXES),
    );
    const c = createPlatformBridgeClient({ baseUrl: `${s.baseUrl}/` }).forKey(KEY);
    await c.getMailboxes({ requestId: 'gw-req-42' });
    await c.getMailboxes({ requestId: 'bad id with spaces' });
    await c.getDeals({ status: 'won', limit: 2 });
    expect(s.requests[0]).toMatchObject({
      url: '/api/assistant-bridge/mailboxes',
      headers: { authorization: `Bearer ${KEY}`, 'x-request-id': 'gw-req-42' },
    });
    expect(s.requests[1]!.headers['x-request-id']).toBeUndefined();
    expect(s.requests[2]!.url).toBe('/api/assistant-bridge/deals?limit=2&status=won');
    for (const r of s.requests) expect(r.url).not.toContain(KEY);
  });

  it('keeps a path prefix of the base URL', async () => {
    const s = await stub((_req, res) => json(res, 200, MAILBOXES));
    await createPlatformBridgeClient({ baseUrl: `${s.baseUrl}/platform` })
      .forKey(KEY)
      .getMailboxes();
    expect(s.requests[0]!.url).toBe('/platform/api/assistant-bridge/mailboxes');
  });

  it('bridge down (closed port) → unavailable, quickly', async () => {
    const s = await stub(() => {});
    await s.close();
    const started = performance.now();
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl }).forKey(KEY).getPortfolio(),
      'unavailable',
    );
    // Two retries with 300 ms and 600 ms backoff, then give up: no 5 s timeout involved.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(err).toMatchObject({ reason: 'network', networkCode: 'ECONNREFUSED', status: null });
  });

  it('200 with a body that breaks the contract → contract', async () => {
    const s = await stub((_req, res) =>
      json(res, 200, { deals: [{ id: 'seven', title: 3 }], next_cursor: null }),
    );
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl }).forKey(KEY).getDeals(),
      'contract',
    );
    expect(err.status).toBe(200);
    expect(err.issues.map((i) => i.pointer)).toContain('#/deals/0/id');
    expect(s.requests).toHaveLength(1);
  });

  it('200 that is not JSON → contract', async () => {
    const html = await stub((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login</html>');
    });
    await failure(
      createPlatformBridgeClient({ baseUrl: html.baseUrl }).forKey(KEY).getMailboxes(),
      'contract',
    );
    const broken = await stub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"mailboxes": [');
    });
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: broken.baseUrl }).forKey(KEY).getMailboxes(),
      'contract',
    );
    expect(err.detail).toMatch(/not valid JSON/);
  });

  it('302 → unavailable, and the redirect is not followed', async () => {
    const target = await stub((_req, res) => json(res, 200, MAILBOXES));
    const s = await stub((_req, res) => {
      res.writeHead(302, { location: `${target.baseUrl}/api/assistant-bridge/mailboxes` });
      res.end();
    });
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl }).forKey(KEY).getMailboxes(),
      'unavailable',
    );
    expect(err).toMatchObject({ status: 302, reason: 'redirect' });
    expect(s.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('503 then 200 → retried, succeeds', async () => {
    const s = await stub((_req, res, n) =>
      n === 1 ? json(res, 503, problem(503, 'unavailable')) : json(res, 200, MAILBOXES),
    );
    const m = await createPlatformBridgeClient({ baseUrl: s.baseUrl }).forKey(KEY).getMailboxes();
    expect(m).toEqual(MAILBOXES);
    expect(s.requests).toHaveLength(2);
  });

  it('503 every time → unavailable after the retries, with the problem code', async () => {
    const s = await stub((_req, res) => json(res, 503, problem(503, 'database-unavailable')));
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl, retries: 2 }).forKey(KEY).getMailboxes(),
      'unavailable',
    );
    expect(err).toMatchObject({ status: 503, reason: 'server-error', code: 'database-unavailable' });
    expect(s.requests).toHaveLength(3);
  });

  it('429 with Retry-After: 1 then 200 → waits about a second, succeeds', async () => {
    const s = await stub((_req, res, n) =>
      n === 1
        ? json(res, 429, problem(429, 'rate-limited'), { 'retry-after': '1' })
        : json(res, 200, MAILBOXES),
    );
    const started = performance.now();
    await createPlatformBridgeClient({ baseUrl: s.baseUrl }).forKey(KEY).getMailboxes();
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3_000);
    expect(s.requests).toHaveLength(2);
  });

  it('429 every time → rate-limited after the retries', async () => {
    const s = await stub((_req, res) => json(res, 429, problem(429, 'rate-limited')));
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl, retries: 1, retryBaseDelayMs: 10 })
        .forKey(KEY)
        .getMailboxes(),
      'rate-limited',
    );
    expect(err).toMatchObject({ status: 429, code: 'rate-limited', retryAfterSeconds: null });
    expect(s.requests).toHaveLength(2);
  });

  it('a huge body → unavailable (size cap), streamed or announced', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const streamed = await stub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"mailboxes":[],"junk":"');
      let sent = 0;
      const pump = () => {
        while (sent < 8 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('"}');
      };
      pump();
    });
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: streamed.baseUrl }).forKey(KEY).getMailboxes(),
      'unavailable',
    );
    expect(err).toMatchObject({ reason: 'too-large', status: 200 });

    const announced = await stub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(3 * 1024 * 1024) });
      res.write('{"mailboxes":[');
      // …and never sends the rest: the client must not wait for it.
    });
    const started = performance.now();
    const err2 = await failure(
      createPlatformBridgeClient({ baseUrl: announced.baseUrl }).forKey(KEY).getMailboxes(),
      'unavailable',
    );
    expect(err2.reason).toBe('too-large');
    expect(performance.now() - started).toBeLessThan(2_000); // far below the 5 s timeout
  });

  it('a body just under the cap is accepted', async () => {
    const s = await stub((_req, res) => json(res, 200, { ...MAILBOXES }));
    const size = Buffer.byteLength(JSON.stringify(MAILBOXES));
    const c = createPlatformBridgeClient({ baseUrl: s.baseUrl, maxResponseBytes: size }).forKey(KEY);
    expect(await c.getMailboxes()).toEqual(MAILBOXES);
    const tight = createPlatformBridgeClient({ baseUrl: s.baseUrl, maxResponseBytes: size - 1 }).forKey(KEY);
    expect(await failure(tight.getMailboxes(), 'unavailable')).toMatchObject({ reason: 'too-large' });
  });

  it('a server that never answers → times out within timeoutMs + slack, without retrying', async () => {
    const s = await stub(() => {});
    const started = performance.now();
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl, timeoutMs: 500 }).forKey(KEY).getPortfolio(),
      'unavailable',
    );
    const elapsed = performance.now() - started;
    expect(err.reason).toBe('timeout');
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(500 + 1_000);
    expect(s.requests).toHaveLength(1);
  });

  it('deadlineMs bounds a whole call, retries and Retry-After waits included', async () => {
    const s = await stub((_req, res) => json(res, 503, problem(503, 'unavailable'), { 'retry-after': '1' }));
    const started = performance.now();
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl, retries: 5, deadlineMs: 1_500 })
        .forKey(KEY)
        .getMailboxes(),
      'unavailable',
    );
    const elapsed = performance.now() - started;
    expect(err.reason).toBe('timeout');
    expect(elapsed).toBeGreaterThanOrEqual(1_400);
    expect(elapsed).toBeLessThan(2_500);
    expect(s.requests).toHaveLength(2);
  });

  it('a cancelled call → unavailable (aborted)', async () => {
    const s = await stub(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl })
        .forKey(KEY)
        .getMailboxes({ signal: controller.signal }),
      'unavailable',
    );
    expect(err.reason).toBe('aborted');
  });

  it('another status (e.g. 418) → unavailable; 400 → invalid-request', async () => {
    const teapot = await stub((_req, res) => json(res, 418, problem(418, 'teapot')));
    expect(
      await failure(
        createPlatformBridgeClient({ baseUrl: teapot.baseUrl }).forKey(KEY).getMailboxes(),
        'unavailable',
      ),
    ).toMatchObject({ status: 418, reason: 'unexpected-status', code: 'teapot' });
    const bad = await stub((_req, res) => json(res, 400, problem(400, 'validation-failed')));
    expect(
      await failure(
        createPlatformBridgeClient({ baseUrl: bad.baseUrl }).forKey(KEY).getMailboxes(),
        'invalid-request',
      ),
    ).toMatchObject({ status: 400, code: 'validation-failed' });
  });

  it('a problem detail echoing the key is scrubbed', async () => {
    const s = await stub((_req, res) =>
      json(res, 401, { ...problem(401, 'invalid-api-key'), detail: `bad ${KEY}` }),
    );
    const err = await failure(
      createPlatformBridgeClient({ baseUrl: s.baseUrl }).forKey(KEY).getMailboxes(),
      'unauthorized',
    );
    expect(err.detail).toBe('bad [redacted]');
  });

  it('rejects a base URL that is not http(s)', () => {
    expect(() => createPlatformBridgeClient({ baseUrl: 'ftp://example.test' })).toThrow(TypeError);
    expect(() => createPlatformBridgeClient({ baseUrl: 'not a url' })).toThrow(TypeError);
    expect(typeof createPlatformBridgeClient({ baseUrl: 'http://127.0.0.1:1' })('x').getMailboxes).toBe(
      'function',
    );
  });
});
