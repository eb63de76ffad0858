import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatformEvent } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_RETENTION_DAYS, sweepOutbox } from '../src/features/webhooks/outbox-retention.ts';
import { recordEvents, recordTenantEvents } from '../src/features/webhooks/record-events.ts';
import { RETRY_DELAYS_MS, MAX_ATTEMPTS } from '../src/features/webhooks/retry-schedule.ts';
import { makeTenant } from './support/factories.ts';
import { fixedClock, BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { approvedEvent, testSender, webhookAdmin, webhookTenant } from './support/webhooks.ts';

describe.each(BRIDGE_BACKENDS)('webhook outbox and sender on %s', (_name, backend) => {
  let t: TestBridge;
  beforeAll(async () => {
    t = await startTestBridge({ now: '2026-06-15T09:00:00Z', backend });
  });
  afterAll(async () => {
    await t?.close();
  });

  const deliveriesOf = (tenantId: number) =>
    t.db.webhookDelivery.findMany({ where: { tenantId }, orderBy: { id: 'asc' } });

  const later = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();

  describe('recordEvents', () => {
    it('writes nothing while the tenant’s platform_event_webhooks flag is off', async () => {
      const { tenant } = await webhookTenant(t, 'http://127.0.0.1:9/hooks', { flag: false });
      const r = await t.db.$transaction((tx) =>
        recordEvents(tx, tenant.id, [approvedEvent(tenant.slug)], t.clock),
      );
      expect(r).toEqual({ events: 0, deliveries: 0 });
      expect(await t.db.outboxEvent.count({ where: { tenantId: tenant.id } })).toBe(0);
    });

    it('writes each event once and one delivery per enabled endpoint, with distinct msg_ ids', async () => {
      const { tenant } = await webhookTenant(t, 'http://127.0.0.1:9/a');
      await webhookAdmin(t).addEndpoint(tenant.slug, 'http://127.0.0.1:9/b');
      const events = [approvedEvent(tenant.slug), approvedEvent(tenant.slug), approvedEvent(tenant.slug)];
      const r = await t.db.$transaction((tx) => recordEvents(tx, tenant.id, events, t.clock));
      expect(r).toEqual({ events: 3, deliveries: 6 });
      const rows = await deliveriesOf(tenant.id);
      expect(new Set(rows.map((d) => d.webhookId)).size).toBe(6);
      for (const d of rows) expect(d.webhookId).toMatch(/^msg_[0-9a-f]{32}$/);
      const stored = await t.db.outboxEvent.findMany({
        where: { tenantId: tenant.id },
        orderBy: { id: 'asc' },
      });
      expect(stored.map((e) => PlatformEvent.parse(e.payload))).toEqual(events);
    });

    it('writes nothing when the caller’s transaction rolls back', async () => {
      const { tenant } = await webhookTenant(t, 'http://127.0.0.1:9/hooks');
      await expect(
        t.db.$transaction(async (tx) => {
          await recordEvents(tx, tenant.id, [approvedEvent(tenant.slug)], t.clock);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect(await t.db.outboxEvent.count({ where: { tenantId: tenant.id } })).toBe(0);
      expect(await t.db.webhookDelivery.count({ where: { tenantId: tenant.id } })).toBe(0);
    });

    it('writes several tenants’ events in one statement, each to its own endpoints, skipping tenants without the flag', async () => {
      const a = await webhookTenant(t, 'http://127.0.0.1:9/a');
      const b = await webhookTenant(t, 'http://127.0.0.1:9/b');
      const off = await webhookTenant(t, 'http://127.0.0.1:9/off', { flag: false });
      const r = await t.db.$transaction((tx) =>
        recordTenantEvents(
          tx,
          [a, b, off, a].map(({ tenant }) => ({ tenantId: tenant.id, event: approvedEvent(tenant.slug) })),
          t.clock,
        ),
      );
      expect(r).toEqual({ events: 3, deliveries: 3 });
      const rows = await t.db.webhookDelivery.findMany({
        where: { tenantId: { in: [a.tenant.id, b.tenant.id, off.tenant.id] } },
        include: { event: true },
      });
      for (const d of rows) {
        const owner = [a, b].find((x) => x.endpoint.id === d.endpointId)!;
        expect(d.tenantId).toBe(owner.tenant.id);
        expect(PlatformEvent.parse(d.event.payload).data.tenant_slug).toBe(owner.tenant.slug);
      }
      expect(rows.filter((d) => d.tenantId === a.tenant.id)).toHaveLength(2);
    });

    it('writes nothing when an event names another tenant’s slug (it must never reach their endpoints)', async () => {
      const a = await webhookTenant(t, 'http://127.0.0.1:9/a');
      const b = await webhookTenant(t, 'http://127.0.0.1:9/b');
      await expect(
        recordEvents(
          t.db,
          a.tenant.id,
          [approvedEvent(a.tenant.slug), approvedEvent(b.tenant.slug)],
          t.clock,
        ),
      ).rejects.toThrow(/tenant_slug/);
      expect(await t.db.outboxEvent.count({ where: { tenantId: { in: [a.tenant.id, b.tenant.id] } } })).toBe(
        0,
      );
    });

    it('refuses an event that does not match the contract', async () => {
      const { tenant } = await webhookTenant(t, 'http://127.0.0.1:9/hooks');
      const bad = { ...approvedEvent(tenant.slug), type: 'proposal.exploded' } as unknown as PlatformEvent;
      await expect(recordEvents(t.db, tenant.id, [bad], t.clock)).rejects.toThrow();
      expect(await t.db.outboxEvent.count({ where: { tenantId: tenant.id } })).toBe(0);
    });
  });

  describe('delivery', () => {
    it('sends each event signed per Standard Webhooks, verified by the standardwebhooks package', async () => {
      let secret = '';
      const receiver = await startWebhookReceiver(() => secret);
      const { tenant, endpoint } = await webhookTenant(t, receiver.url);
      secret = endpoint.secret;
      expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const sender = await testSender(t);
      try {
        const event = approvedEvent(tenant.slug);
        await recordEvents(t.db, tenant.id, [event], t.clock);
        await sender.drain();
        expect(receiver.rejected).toBe(0);
        expect(receiver.received).toHaveLength(1);
        expect(receiver.received[0]!.body).toEqual(event);
        const [d] = await deliveriesOf(tenant.id);
        expect(d).toMatchObject({ status: 'succeeded', attempts: 1, lastStatusCode: 204, lockToken: null });
        expect(d!.webhookId).toBe(receiver.received[0]!.webhookId);
        expect(d!.deliveredAt?.toISOString()).toBe(t.clock.now().toISOString());
      } finally {
        await sender.stop();
        await receiver.close();
      }
    });

    it('retries after a 500 on the schedule (about 5 s, then 5 min) with the same webhook-id, then succeeds', async () => {
      let secret = '';
      const receiver = await startWebhookReceiver(() => secret);
      receiver.respond((_req, res, n) => {
        res.statusCode = n <= 2 ? 500 : 200;
        res.end('ok');
      });
      const { tenant, endpoint } = await webhookTenant(t, receiver.url);
      secret = endpoint.secret;
      const sender = await testSender(t);
      try {
        await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
        await sender.drain();
        let [d] = await deliveriesOf(tenant.id);
        expect(d).toMatchObject({
          status: 'pending',
          attempts: 1,
          lastStatusCode: 500,
          lastError: 'HTTP 500',
        });
        // random() = 0.5: the jitter factor is exactly 1
        expect(d!.nextAttemptAt.toISOString()).toBe(later(RETRY_DELAYS_MS[0]));

        // not due yet: nothing is sent
        t.clock.set(later(4_000));
        await sender.drain();
        expect(receiver.received).toHaveLength(1);

        t.clock.set(later(1_000));
        await sender.drain();
        [d] = await deliveriesOf(tenant.id);
        expect(d).toMatchObject({ status: 'pending', attempts: 2, lastStatusCode: 500 });
        expect(d!.nextAttemptAt.toISOString()).toBe(later(RETRY_DELAYS_MS[1]));

        t.clock.set(later(RETRY_DELAYS_MS[1]));
        await sender.drain();
        [d] = await deliveriesOf(tenant.id);
        expect(d).toMatchObject({ status: 'succeeded', attempts: 3, lastStatusCode: 200, lastError: null });
        expect(new Set(receiver.received.map((r) => r.webhookId))).toEqual(new Set([d!.webhookId]));
        expect(receiver.received).toHaveLength(3);
      } finally {
        await sender.stop();
        await receiver.close();
      }
    });

    it('fails a delivery for good after the last retry', async () => {
      let secret = '';
      const receiver = await startWebhookReceiver(() => secret);
      receiver.respond((_req, res) => {
        res.statusCode = 503;
        res.end();
      });
      const { tenant, endpoint } = await webhookTenant(t, receiver.url);
      secret = endpoint.secret;
      const sender = await testSender(t);
      try {
        await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
        await sender.drain();
        for (const delay of RETRY_DELAYS_MS) {
          t.clock.set(later(delay));
          await sender.drain();
        }
        const [d] = await deliveriesOf(tenant.id);
        expect(d).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, lastStatusCode: 503 });
        expect(receiver.received).toHaveLength(MAX_ATTEMPTS);
        t.clock.set(later(48 * 3_600_000));
        await sender.drain();
        expect(receiver.received).toHaveLength(MAX_ATTEMPTS);
      } finally {
        await sender.stop();
        await receiver.close();
      }
    });

    it('disables the endpoint on 410 Gone and fails its other waiting deliveries', async () => {
      let secret = '';
      const receiver = await startWebhookReceiver(() => secret);
      receiver.respond((_req, res) => {
        res.statusCode = 410;
        res.end();
      });
      const { tenant, endpoint } = await webhookTenant(t, receiver.url);
      secret = endpoint.secret;
      const sender = await testSender(t, { concurrency: 1 });
      try {
        await recordEvents(
          t.db,
          tenant.id,
          [approvedEvent(tenant.slug), approvedEvent(tenant.slug)],
          t.clock,
        );
        await sender.drain();
        const w = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
        expect(w).toMatchObject({ enabled: false, disabledReason: 'the receiver answered 410 Gone' });
        const rows = await deliveriesOf(tenant.id);
        expect(rows.map((d) => d.status)).toEqual(['failed', 'failed']);
        expect(receiver.received).toHaveLength(1);
        expect(rows.find((d) => d.webhookId === receiver.received[0]!.webhookId)?.lastStatusCode).toBe(410);
        // a disabled endpoint gets no new deliveries
        const r = await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
        expect(r).toEqual({ events: 1, deliveries: 0 });
      } finally {
        await sender.stop();
        await receiver.close();
      }
    });

    it('treats a redirect as a failure and never follows it', async () => {
      let followed = 0;
      const target = createServer((_req, res) => {
        followed++;
        res.end();
      });
      await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
      let secret = '';
      const receiver = await startWebhookReceiver(() => secret);
      receiver.respond((_req, res) => {
        res.statusCode = 307;
        res.setHeader('location', `http://127.0.0.1:${(target.address() as AddressInfo).port}/elsewhere`);
        res.end();
      });
      const { tenant, endpoint } = await webhookTenant(t, receiver.url);
      secret = endpoint.secret;
      const sender = await testSender(t);
      try {
        await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
        await sender.drain();
        const [d] = await deliveriesOf(tenant.id);
        expect(d).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 307 });
        expect(d!.lastError).toContain('redirect');
        expect(followed).toBe(0);
      } finally {
        await sender.stop();
        await receiver.close();
        target.closeAllConnections();
        await new Promise<void>((r) => target.close(() => r()));
      }
    });

    it('fails an attempt that takes longer than the timeout', async () => {
      let secret = '';
      const receiver = await startWebhookReceiver(() => secret);
      receiver.respond(() => {
        // never answers
      });
      const { tenant, endpoint } = await webhookTenant(t, receiver.url);
      secret = endpoint.secret;
      const sender = await testSender(t, { timeoutMs: 300 });
      try {
        await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
        const started = Date.now();
        await sender.drain();
        expect(Date.now() - started).toBeLessThan(5_000);
        const [d] = await deliveriesOf(tenant.id);
        expect(d).toMatchObject({
          status: 'pending',
          attempts: 1,
          lastStatusCode: null,
          lastError: 'timed out after 300 ms',
        });
      } finally {
        await sender.stop();
        await receiver.close();
      }
    });

    it('counts a secret that no longer decrypts (another PLATFORM_SECRET_KEY) as a failed attempt, sending nothing', async () => {
      let secret = '';
      const receiver = await startWebhookReceiver(() => secret);
      const { tenant, endpoint } = await webhookTenant(t, receiver.url);
      secret = endpoint.secret;
      const sender = await testSender(t, { secretKey: Buffer.alloc(32, 1) });
      try {
        await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
        await sender.drain();
        const [d] = await deliveriesOf(tenant.id);
        expect(d).toMatchObject({ status: 'pending', attempts: 1, lockToken: null });
        expect(d!.lastError).toMatch(/^could not send/);
        expect(d!.lastError).not.toContain('whsec_');
        expect(receiver.received).toHaveLength(0);
      } finally {
        await sender.stop();
        await receiver.close();
      }
    });

    it('sends only to its own tenant’s endpoints', async () => {
      let secretA = '';
      let secretB = '';
      const a = await startWebhookReceiver(() => secretA);
      const b = await startWebhookReceiver(() => secretB);
      const ta = await webhookTenant(t, a.url);
      const tb = await webhookTenant(t, b.url);
      secretA = ta.endpoint.secret;
      secretB = tb.endpoint.secret;
      const sender = await testSender(t);
      try {
        await recordEvents(t.db, ta.tenant.id, [approvedEvent(ta.tenant.slug, { label: 'for A' })], t.clock);
        await sender.drain();
        expect(a.received).toHaveLength(1);
        expect(b.received).toHaveLength(0);
        // A's body, signed with A's secret: B's secret does not verify it
        expect(a.rejected + b.rejected).toBe(0);
      } finally {
        await sender.stop();
        await a.close();
        await b.close();
      }
    });
  });

  // PostgreSQL only: LISTEN on a connection of its own (webhooks-embedded.test.ts: PGlite's)
  if (backend === 'postgres') {
    describe('wake-up after commit', () => {
      it('delivers within a fraction of a second of the commit, woken by NOTIFY rather than the poll', async () => {
        const { postgresWakeups } = await import('../src/features/webhooks/delivery-wakeups.ts');
        const { createLogger } = await import('@pa/http-kit');
        let secret = '';
        const receiver = await startWebhookReceiver(() => secret);
        const { tenant, endpoint } = await webhookTenant(t, receiver.url);
        secret = endpoint.secret;
        const sender = await testSender(t, {
          wakeups: postgresWakeups(t.databaseUrl, createLogger('platform-bridge', 'silent')),
          pollMs: 60_000,
        });
        try {
          await sender.drain();
          const committed = Date.now();
          await t.db.$transaction((tx) => recordEvents(tx, tenant.id, [approvedEvent(tenant.slug)], t.clock));
          await receiver.waitFor(() => receiver.received.length === 1, 10_000);
          expect(receiver.received[0]!.at - committed).toBeLessThan(1_000);
        } finally {
          await sender.stop();
          await receiver.close();
        }
      });

      it('is not woken for a tenant without the flag (nothing written, nothing sent)', async () => {
        let secret = '';
        const receiver = await startWebhookReceiver(() => secret);
        const other = await makeTenant(t, { flags: [] });
        const { endpoint } = await webhookTenant(t, receiver.url, { flag: false });
        secret = endpoint.secret;
        const r = await recordEvents(t.db, other.id, [approvedEvent(other.slug)], t.clock);
        expect(r.deliveries).toBe(0);
        expect(receiver.received).toHaveLength(0);
        await receiver.close();
      });
    });
  }

  describe('outbox retention', () => {
    it('deletes finished events past the retention with their deliveries, and keeps pending and recent ones', async () => {
      const { tenant } = await webhookTenant(t, 'http://127.0.0.1:9/hooks');
      const old = fixedClock('2026-01-01T00:00:00Z');
      await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug), approvedEvent(tenant.slug)], old);
      await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
      const [done, waiting] = await deliveriesOf(tenant.id);
      await t.db.webhookDelivery.update({ where: { id: done!.id }, data: { status: 'succeeded' } });

      const now = new Date(Date.parse('2026-01-01T00:00:00Z') + (OUTBOX_RETENTION_DAYS + 1) * 86_400_000);
      expect(await sweepOutbox(t.db, now)).toBeGreaterThanOrEqual(1);
      const left = await deliveriesOf(tenant.id);
      expect(left.map((d) => d.id)).not.toContain(done!.id);
      expect(left.map((d) => d.id)).toContain(waiting!.id);
      expect(left).toHaveLength(2);
      expect(await t.db.outboxEvent.count({ where: { tenantId: tenant.id } })).toBe(2);
    });
  });
});
