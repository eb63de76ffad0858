import { randomBytes } from 'node:crypto';
import { PlatformEventReceipt, type PlatformEvent, WorkerEventsResponse } from '@pa/contracts';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelWorker, connectTelegram, pairChat, startChannelGateway } from './support/channels.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import { expectContract, expectProblem } from './support/http.ts';
import { GATEWAY_BACKENDS, startTestGateway, type TestGateway } from './support/test-app.ts';

// The gateway's event ingress (docs/bridge-api.md) against real PostgreSQL: bodies signed with the `standardwebhooks`
// package as the platform signs them, the feed read back through the API, and a paired Telegram chat (the
// loopback Bot API) told in words.

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const signer = new Webhook(SECRET);

describe.each(GATEWAY_BACKENDS)('platform events inbox on %s', (_name, backend) => {
  let fake: FakeTelegram;
  let g: TestGateway;

  beforeAll(async () => {
    fake = await FakeTelegram.start();
    g = await startChannelGateway(fake, {
      backend,
      env: { PLATFORM_EVENT_WEBHOOKS: 'true', PLATFORM_WEBHOOK_SECRET: SECRET },
    });
  });
  afterAll(async () => {
    await g?.close();
    await fake?.close();
  });

  const slug = () => `ev-${randomBytes(4).toString('hex')}`;

  function approved(tenant: string, proposalId = 12): PlatformEvent {
    return {
      type: 'proposal.approved',
      timestamp: new Date().toISOString(),
      data: {
        tenant_slug: tenant,
        proposal_id: proposalId,
        kind: 'deal',
        label: 'Acquire 14 Oak Street',
        status: 'approved',
        decided_at: new Date().toISOString(),
        decision_note: null,
        record: { type: 'deal', id: 40 },
      },
    };
  }

  function expired(tenant: string): PlatformEvent {
    return {
      type: 'compliance.status_changed',
      timestamp: new Date().toISOString(),
      data: {
        tenant_slug: tenant,
        property_id: 3,
        property_ref: 'MAN-003',
        address: '14 Oak Street, Manchester',
        item_id: 77,
        compliance_type: 'gas_safety',
        previous_status: 'expiring_soon',
        status: 'expired',
        expiry_date: '2026-11-19',
      },
    };
  }

  async function send(
    body: string,
    opts: { id?: string; at?: Date; signWith?: Webhook; headers?: Record<string, string> } = {},
    target: TestGateway = g,
  ) {
    const id = opts.id ?? `msg_${randomBytes(8).toString('hex')}`;
    const at = opts.at ?? new Date();
    const signature = (opts.signWith ?? signer).sign(id, at, body);
    return fetch(`${target.baseUrl}/api/platform/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
        ...opts.headers,
      },
      body,
    });
  }

  /** A worker bound to `tenant` (the binding row as binding writes it; the key is never used here). */
  async function boundWorker(tenant: string) {
    const worker = await channelWorker(g);
    await g.db.platformBinding.create({
      data: {
        workerId: worker.workerId,
        tenantSlug: tenant,
        keyCiphertext: Buffer.from('unused'),
        keyPreview: 'plat_xxxx',
        propertiesTotal: 24,
        boundAt: new Date(),
      },
    });
    return worker;
  }

  async function feed(worker: Awaited<ReturnType<typeof boundWorker>>, query = '') {
    const res = await worker.call('GET', `/events${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return expectContract(WorkerEventsResponse, await res.json());
  }

  describe('POST /api/platform/events', () => {
    it('stores a verified event for every worker bound to the tenant, in words, newest first', async () => {
      const tenant = slug();
      const [w1, w2] = [await boundWorker(tenant), await boundWorker(tenant)];
      const other = await boundWorker(slug());
      const res = await send(JSON.stringify(approved(tenant)), { id: 'msg_approved_1' });
      expect(res.status).toBe(200);
      expect(expectContract(PlatformEventReceipt, await res.json())).toEqual({
        received: true,
        duplicate: false,
        workers: 2,
      });
      await send(JSON.stringify(expired(tenant)));
      for (const w of [w1, w2]) {
        const { events } = await feed(w);
        expect(events.map((e) => e.message)).toEqual([
          'Gas safety certificate (CP12) at **MAN-003**, 14 Oak Street, Manchester has **expired** (expiry 19 Nov 2026).',
          'Deal proposal #12 “Acquire 14 Oak Street” was **approved**.',
        ]);
        expect(events[1]).toMatchObject({
          webhookId: 'msg_approved_1',
          type: 'proposal.approved',
          tenantSlug: tenant,
        });
        expect(events[1]!.data).toMatchObject({ proposal_id: 12, record: { type: 'deal', id: 40 } });
      }
      expect((await feed(other)).events).toEqual([]);
    });

    it('takes a repeated webhook-id in once (200, duplicate, no second event)', async () => {
      const tenant = slug();
      const w = await boundWorker(tenant);
      const body = JSON.stringify(approved(tenant, 31));
      const first = await send(body, { id: 'msg_repeat_1' });
      expect(expectContract(PlatformEventReceipt, await first.json()).duplicate).toBe(false);
      const again = await send(body, { id: 'msg_repeat_1' });
      expect(again.status).toBe(200);
      expect(expectContract(PlatformEventReceipt, await again.json())).toEqual({
        received: true,
        duplicate: true,
        workers: 0,
      });
      expect((await feed(w)).events).toHaveLength(1);
    });

    it('answers 200 with workers: 0 for a tenant no worker is bound to', async () => {
      const res = await send(JSON.stringify(approved(slug())));
      expect(expectContract(PlatformEventReceipt, await res.json())).toMatchObject({ workers: 0 });
    });

    it('refuses a bad signature, another secret, missing headers, an old or a future timestamp (401)', async () => {
      const tenant = slug();
      const w = await boundWorker(tenant);
      const body = JSON.stringify(approved(tenant));
      const otherSecret = new Webhook(`whsec_${randomBytes(32).toString('base64')}`);
      const cases = [
        await send(body, { signWith: otherSecret }),
        await send(body, { headers: { 'webhook-signature': 'v1,AAAA' } }),
        await send(body, { headers: { 'webhook-signature': '' } }),
        await send(body, { headers: { 'webhook-id': '' } }),
        await send(body, { at: new Date(Date.now() - 6 * 60_000) }),
        await send(body, { at: new Date(Date.now() + 6 * 60_000) }),
        // the body changed after signing
        await fetch(`${g.baseUrl}/api/platform/events`, {
          method: 'POST',
          headers: (() => {
            const at = new Date();
            return {
              'content-type': 'application/json',
              'webhook-id': 'msg_tampered',
              'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
              'webhook-signature': signer.sign('msg_tampered', at, body),
            };
          })(),
          body: body.replace('Acquire', 'Sell'),
        }),
      ];
      for (const res of cases) await expectProblem(res, 401, 'webhook-signature-invalid');
      expect((await feed(w)).events).toEqual([]);
    });

    it('refuses signed bodies that are not JSON or not an event (400)', async () => {
      await expectProblem(await send('{not json'), 400, 'malformed-json');
      const bad = await send(JSON.stringify({ type: 'proposal.approved', timestamp: 'yesterday', data: {} }));
      await expectProblem(bad, 400, 'validation-failed');
      await expectProblem(await send(JSON.stringify({ type: 'tenant.deleted' })), 400, 'validation-failed');
    });

    it('tells the paired Telegram chat of every bound worker, in words', async () => {
      const tenant = slug();
      const w = await boundWorker(tenant);
      const bot = fake.addBot();
      const created = await connectTelegram(w, bot);
      await pairChat(fake, bot, 880_001, created.pairingCode);
      const before = fake.messagesTo(880_001).length;
      await send(JSON.stringify(approved(tenant, 55)));
      const sent = await fake.waitForMessages(880_001, before + 1);
      // sent as Telegram HTML: the bold is a tag
      expect(sent[before]!.text.replace(/<[^>]+>/g, '')).toBe(
        'Deal proposal #55 “Acquire 14 Oak Street” was approved.',
      );
    });

    it('pages the feed with a cursor, and keeps it to the worker’s workspace', async () => {
      const tenant = slug();
      const w = await boundWorker(tenant);
      for (let i = 1; i <= 5; i++) await send(JSON.stringify(approved(tenant, 100 + i)));
      const first = await feed(w, '?limit=2');
      expect(first.events.map((e) => e.data.proposal_id)).toEqual([105, 104]);
      const second = await feed(w, `?limit=2&cursor=${first.nextCursor}`);
      expect(second.events.map((e) => e.data.proposal_id)).toEqual([103, 102]);
      const last = await feed(w, `?limit=2&cursor=${second.nextCursor}`);
      expect(last.events.map((e) => e.data.proposal_id)).toEqual([101]);
      expect(last.nextCursor).toBeNull();
      await expectProblem(await w.call('GET', '/events?cursor=abc'), 400, 'validation-failed');
      // another workspace does not see the worker
      const stranger = await channelWorker(g);
      const res = await fetch(`${g.baseUrl}/api/assistant/workers/${w.workerId}/events`, {
        headers: { 'X-Workspace-Id': stranger.workspaceId },
      });
      await expectProblem(res, 404, 'worker-not-found');
    });
  });

  describe('with PLATFORM_EVENT_WEBHOOKS off', () => {
    it('the ingress is not there (404)', async () => {
      const off = await startTestGateway({ redis: 'none' });
      try {
        await expectProblem(await send(JSON.stringify(approved(slug())), {}, off), 404, 'not-found');
      } finally {
        await off.close();
      }
    });
  });
});
