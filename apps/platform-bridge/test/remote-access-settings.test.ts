import type { LookupAddress } from 'node:dns';
import {
  AccessAuditResponse,
  CreateWebhookEndpointResponse,
  FlagResponse,
  FlagsResponse,
  RedeliverResponse,
  TENANT_FLAGS,
  WebhookDeliveriesResponse,
  WebhookEndpointsResponse,
} from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvents } from '../src/features/webhooks/record-events.ts';
import { expectContract, expectProblem } from './support/contract.ts';
import { ADMIN, as, auditRows, makeAccessTenant } from './support/remote-access.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { approvedEvent, TEST_SECRET_KEY, testSender, webhookAdmin } from './support/webhooks.ts';

// The remote-access admin API, settings half (issue 37): the tenant's assistant flags, its signed-event endpoints
// (SSRF policy as the CLI's, secret shown once), their deliveries and redelivery, and the access audit's reads.
// The app's policy is the strict one (no http, no loopback); `hooks.example` resolves to a public address.

const dns = async (hostname: string): Promise<LookupAddress[]> => {
  if (hostname === 'hooks.example') return [{ address: '93.184.216.34', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

const STRICT = { allowHttpLoopback: false, resolver: dns };

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge({ webhooks: { secretKey: TEST_SECRET_KEY, policy: STRICT } });
});
afterAll(async () => t?.close());

describe('GET /api/admin/flags', () => {
  it('lists the four flags in order, each with whether it is on and a sentence on what it does', async () => {
    const tenant = await makeAccessTenant(t, { flags: ['assistant_external_bridge'] });
    const { flags } = expectContract(
      FlagsResponse,
      (await as(t, tenant.adminKey).get(`${ADMIN}/flags`)).body,
    );
    expect(flags.map((f) => [f.name, f.enabled])).toEqual([
      ['assistant_external_bridge', true],
      ['assistant_bridge_writes', false],
      ['assistant_bridge_review_queue', false],
      ['platform_event_webhooks', false],
    ]);
    expect(flags.map((f) => f.name)).toEqual([...TENANT_FLAGS]);
    for (const f of flags) expect(f.description).toMatch(/^[A-Z].{20,}\.$/);
  });
});

describe('PUT /api/admin/flags/:name', () => {
  it('switches a flag, which applies on the next request; a switch to the same value records nothing', async () => {
    const tenant = await makeAccessTenant(t, { flags: [] });
    const admin = as(t, tenant.adminKey);
    const portfolio = () => as(t, tenant.key).get('/api/assistant-bridge/portfolio');
    expectProblem(await portfolio(), 404, 'bridge-not-enabled');

    const on = await admin.put(`${ADMIN}/flags/assistant_external_bridge`, { enabled: true });
    expect(on.status).toBe(200);
    expect(expectContract(FlagResponse, on.body).flag).toMatchObject({
      name: 'assistant_external_bridge',
      enabled: true,
    });
    expect((await portfolio()).status).toBe(200);
    await admin.put(`${ADMIN}/flags/assistant_external_bridge`, { enabled: true });

    await admin.put(`${ADMIN}/flags/assistant_external_bridge`, { enabled: false });
    expectProblem(await portfolio(), 404, 'bridge-not-enabled');

    const flagEntries = (await auditRows(t, tenant.id)).filter((e) => e.action.startsWith('flag.'));
    expect(flagEntries.map((e) => [e.actor, e.action, e.target])).toEqual([
      [tenant.adminEmail, 'flag.enabled', 'assistant_external_bridge'],
      [tenant.adminEmail, 'flag.disabled', 'assistant_external_bridge'],
    ]);
  });

  it('an unknown flag → 404 unknown-flag; a body without a boolean → 400 validation-failed', async () => {
    const tenant = await makeAccessTenant(t);
    const admin = as(t, tenant.adminKey);
    expectProblem(
      await admin.put(`${ADMIN}/flags/assistant_everything`, { enabled: true }),
      404,
      'unknown-flag',
    );
    for (const body of [{}, { enabled: 'yes' }, { enabled: true, extra: 1 }]) {
      expectProblem(
        await admin.put(`${ADMIN}/flags/assistant_bridge_writes`, body),
        400,
        'validation-failed',
      );
    }
    expect(
      await t.db.tenantFlag.count({ where: { tenantId: tenant.id, flag: 'assistant_bridge_writes' } }),
    ).toBe(0);
  });
});

describe('signed-event endpoints', () => {
  it('POST adds one and shows its secret once; GET lists it without; DELETE removes it', async () => {
    const tenant = await makeAccessTenant(t);
    const admin = as(t, tenant.adminKey);
    const res = await admin.post(`${ADMIN}/webhook-endpoints`, { url: 'https://hooks.example/platform' });
    expect(res.status).toBe(201);
    const { endpoint, secret } = expectContract(CreateWebhookEndpointResponse, res.body);
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({
      url: 'https://hooks.example/platform',
      enabled: true,
      disabled_at: null,
      deliveries: { pending: 0, succeeded: 0, failed: 0 },
    });

    const list = await admin.get(`${ADMIN}/webhook-endpoints`);
    expect(expectContract(WebhookEndpointsResponse, list.body).endpoints).toEqual([endpoint]);
    expect(list.text).not.toContain(secret);
    expect(list.text).not.toContain('whsec_');

    expectProblem(
      await admin.post(`${ADMIN}/webhook-endpoints`, { url: 'https://hooks.example/platform' }),
      409,
      'endpoint-exists',
    );

    const removed = await admin.delete(`${ADMIN}/webhook-endpoints/${endpoint.id}`);
    expect(removed.status).toBe(204);
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(0);
    expectProblem(await admin.delete(`${ADMIN}/webhook-endpoints/${endpoint.id}`), 404, 'webhook-not-found');

    const entries = (await auditRows(t, tenant.id)).filter((e) => e.action.startsWith('webhook-'));
    expect(entries.map((e) => [e.actor, e.action, e.target])).toEqual([
      [
        tenant.adminEmail,
        'webhook-endpoint.added',
        `endpoint #${endpoint.id} https://hooks.example/platform`,
      ],
      [
        tenant.adminEmail,
        'webhook-endpoint.removed',
        `endpoint #${endpoint.id} https://hooks.example/platform`,
      ],
    ]);
  });

  it.each([
    ['a loopback URL', 'http://127.0.0.1:8080/hooks', /http/],
    ['a loopback address over https', 'https://127.0.0.1/hooks', /loopback/],
    ['a private address', 'https://10.0.0.1/hooks', /private/],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data', /169\.254\.169\.254|link-local/],
    ['a host that does not resolve', 'https://nowhere.example/hooks', /resolve/],
    ['URL credentials', 'https://user:pw@hooks.example/x', /credentials/],
  ])(
    '%s → 400 validation-failed at #/url, as the CLI refuses it; nothing stored',
    async (_n, url, reason) => {
      const tenant = await makeAccessTenant(t);
      const res = await as(t, tenant.adminKey).post(`${ADMIN}/webhook-endpoints`, { url });
      const problem = expectProblem(res, 400, 'validation-failed');
      expect(problem.detail).toMatch(reason);
      expect((res.body as { errors: Array<{ pointer: string }> }).errors).toEqual([
        { pointer: '#/url', detail: problem.detail },
      ]);
      expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(0);
    },
  );

  it('bad input → 400 validation-failed: no url, an empty one, a number', async () => {
    const tenant = await makeAccessTenant(t);
    for (const body of [{}, { url: '' }, { url: 7 }]) {
      expectProblem(
        await as(t, tenant.adminKey).post(`${ADMIN}/webhook-endpoints`, body),
        400,
        'validation-failed',
      );
    }
  });

  it('another tenant’s endpoint → 404 webhook-not-found on delete and deliveries; it stays', async () => {
    const mine = await makeAccessTenant(t);
    const other = await makeAccessTenant(t);
    const theirs = await webhookAdmin(t, STRICT).addEndpoint(other.slug, 'https://hooks.example/theirs');
    const admin = as(t, mine.adminKey);
    expectProblem(await admin.delete(`${ADMIN}/webhook-endpoints/${theirs.id}`), 404, 'webhook-not-found');
    expectProblem(
      await admin.get(`${ADMIN}/webhook-endpoints/${theirs.id}/deliveries`),
      404,
      'webhook-not-found',
    );
    expect(
      expectContract(WebhookEndpointsResponse, (await admin.get(`${ADMIN}/webhook-endpoints`)).body),
    ).toEqual({ endpoints: [] });
    expect(await t.db.webhookEndpoint.count({ where: { id: theirs.id } })).toBe(1);
  });
});

describe('deliveries and redelivery', () => {
  it('lists an endpoint’s deliveries; redeliver sends a finished one again with the same webhook-id', async () => {
    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    const tenant = await makeAccessTenant(t, { flags: ['platform_event_webhooks'] });
    // the receiver listens on loopback, which only the operator's policy allows: added through the CLI's service
    const endpoint = await webhookAdmin(t).addEndpoint(tenant.slug, receiver.url);
    secret = endpoint.secret;
    const sender = await testSender(t);
    try {
      await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
      await sender.drain();
      expect(receiver.received).toHaveLength(1);

      const admin = as(t, tenant.adminKey);
      const listed = await admin.get(`${ADMIN}/webhook-endpoints/${endpoint.id}/deliveries?limit=5`);
      const [delivery] = expectContract(WebhookDeliveriesResponse, listed.body).deliveries;
      expect(delivery).toMatchObject({
        event_type: 'proposal.approved',
        status: 'succeeded',
        attempts: 1,
        last_status_code: 204,
        next_attempt_at: null,
        delivered_at: expect.any(String),
      });

      const res = await admin.post(`${ADMIN}/webhook-deliveries/${delivery!.id}/redeliver`);
      expect(res.status).toBe(202);
      expect(expectContract(RedeliverResponse, res.body).delivery).toMatchObject({
        id: delivery!.id,
        webhook_id: delivery!.webhook_id,
        status: 'pending',
        attempts: 0,
        next_attempt_at: t.clock.now().toISOString(),
      });
      // while it is pending, a second redeliver is refused
      expectProblem(
        await admin.post(`${ADMIN}/webhook-deliveries/${delivery!.id}/redeliver`),
        409,
        'delivery-pending',
      );

      await sender.drain();
      expect(receiver.received.map((r) => r.webhookId)).toEqual([delivery!.webhook_id, delivery!.webhook_id]);
      expect(receiver.rejected).toBe(0);
      const again = expectContract(
        WebhookDeliveriesResponse,
        (await admin.get(`${ADMIN}/webhook-endpoints/${endpoint.id}/deliveries`)).body,
      ).deliveries;
      expect(again).toEqual([
        expect.objectContaining({ id: delivery!.id, status: 'succeeded', attempts: 1 }),
      ]);
      expect((await auditRows(t, tenant.id)).at(-1)).toMatchObject({
        actor: tenant.adminEmail,
        action: 'webhook-delivery.redelivered',
        target: expect.stringContaining(
          `delivery #${delivery!.id} (proposal.approved, ${delivery!.webhook_id})`,
        ),
      });
    } finally {
      await sender.stop();
      await receiver.close();
    }
  });

  it('another tenant’s delivery → 404 delivery-not-found; a bad limit or id → 400', async () => {
    const mine = await makeAccessTenant(t);
    const other = await makeAccessTenant(t, { flags: ['platform_event_webhooks'] });
    const theirs = await webhookAdmin(t, STRICT).addEndpoint(other.slug, 'https://hooks.example/o');
    await recordEvents(t.db, other.id, [approvedEvent(other.slug)], t.clock);
    const delivery = await t.db.webhookDelivery.findFirstOrThrow({ where: { endpointId: theirs.id } });
    await t.db.webhookDelivery.update({ where: { id: delivery.id }, data: { status: 'failed' } });
    const admin = as(t, mine.adminKey);
    expectProblem(
      await admin.post(`${ADMIN}/webhook-deliveries/${delivery.id}/redeliver`),
      404,
      'delivery-not-found',
    );
    expect((await t.db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).status).toBe(
      'failed',
    );

    const ownEndpoint = await webhookAdmin(t, STRICT).addEndpoint(mine.slug, 'https://hooks.example/m');
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'status=failed']) {
      expectProblem(
        await admin.get(`${ADMIN}/webhook-endpoints/${ownEndpoint.id}/deliveries?${q}`),
        400,
        'validation-failed',
      );
    }
    expectProblem(await admin.post(`${ADMIN}/webhook-deliveries/x/redeliver`), 400, 'validation-failed');
  });
});

describe('GET /api/admin/access-audit', () => {
  it('lists the tenant’s own entries, newest first, API and CLI alike, up to `limit`', async () => {
    const tenant = await makeAccessTenant(t);
    const other = await makeAccessTenant(t);
    const admin = as(t, tenant.adminKey);
    await admin.put(`${ADMIN}/flags/assistant_bridge_writes`, { enabled: true });
    await t.admin.setFlag(tenant.slug, 'assistant_bridge_writes', false);
    await as(t, other.adminKey).put(`${ADMIN}/flags/assistant_bridge_writes`, { enabled: true });

    const res = await admin.get(`${ADMIN}/access-audit?limit=2`);
    const { entries } = expectContract(AccessAuditResponse, res.body);
    expect(entries.map((e) => [e.actor, e.action, e.target])).toEqual([
      ['operator CLI', 'flag.disabled', 'assistant_bridge_writes'],
      [tenant.adminEmail, 'flag.enabled', 'assistant_bridge_writes'],
    ]);
    expect(entries[0]!.id).toBeGreaterThan(entries[1]!.id);
    const all = expectContract(AccessAuditResponse, (await admin.get(`${ADMIN}/access-audit`)).body).entries;
    expect(all.some((e) => e.actor === other.adminEmail)).toBe(false);
    expectProblem(await admin.get(`${ADMIN}/access-audit?limit=201`), 400, 'validation-failed');
  });
});
