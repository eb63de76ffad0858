import { DealsResponse, EmailActivityResponse, MailboxesResponse } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeProperty, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

let t: TestBridge;
const NOW = '2026-06-15T09:00:00Z';
beforeAll(async () => {
  t = await startTestBridge({ now: NOW });
});
afterAll(async () => t?.close());

describe('GET /deals', () => {
  async function tenantWithDeals() {
    const tenant = await makeTenant(t);
    const p = await makeProperty(t, tenant.id);
    const base = { tenantId: tenant.id, dealType: 'acquisition', stage: 'offer' };
    for (const [title, status] of [
      ['Open A', 'open'],
      ['Won B', 'won'],
      ['Open C', 'open'],
      ['Lost D', 'lost'],
    ] as const) {
      await t.db.deal.create({
        data: {
          ...base,
          title,
          status,
          propertyId: p.id,
          valuePence: 1_000_000,
          nextAction: 'Chase solicitor',
          nextActionDue: new Date('2026-06-20T00:00:00Z'),
        },
      });
    }
    return tenant;
  }

  it('lists open deals by default', async () => {
    const tenant = await tenantWithDeals();
    const body = expectContract(
      DealsResponse,
      (
        await request(t.app)
          .get('/api/assistant-bridge/deals')
          .set(...bearer(tenant.key))
      ).body,
    );
    expect(body.deals.map((d) => d.title)).toEqual(['Open A', 'Open C']);
    expect(body.deals[0]).toMatchObject({
      status: 'open',
      next_action: 'Chase solicitor',
      next_action_due: '2026-06-20',
      source: 'manual',
    });
  });

  it.each([
    ['won', ['Won B']],
    ['lost', ['Lost D']],
    ['all', ['Open A', 'Won B', 'Open C', 'Lost D']],
  ])('filters by status=%s', async (status, titles) => {
    const tenant = await tenantWithDeals();
    const res = await request(t.app)
      .get(`/api/assistant-bridge/deals?status=${status}`)
      .set(...bearer(tenant.key));
    expect(expectContract(DealsResponse, res.body).deals.map((d) => d.title)).toEqual(titles);
  });

  it('pages with a cursor', async () => {
    const tenant = await tenantWithDeals();
    const first = expectContract(
      DealsResponse,
      (
        await request(t.app)
          .get('/api/assistant-bridge/deals?status=all&limit=3')
          .set(...bearer(tenant.key))
      ).body,
    );
    expect(first.deals).toHaveLength(3);
    const second = expectContract(
      DealsResponse,
      (
        await request(t.app)
          .get(`/api/assistant-bridge/deals?status=all&limit=3&cursor=${first.next_cursor}`)
          .set(...bearer(tenant.key))
      ).body,
    );
    expect(second.deals.map((d) => d.title)).toEqual(['Lost D']);
    expect(second.next_cursor).toBeNull();
  });

  it.each(['status=closed', 'limit=0', 'limit=1000', `cursor=${Buffer.from('p:1').toString('base64url')}`])(
    'rejects %s with 400',
    async (q) => {
      const tenant = await makeTenant(t);
      expectProblem(
        await request(t.app)
          .get(`/api/assistant-bridge/deals?${q}`)
          .set(...bearer(tenant.key)),
        400,
        'validation-failed',
      );
    },
  );
});

describe('GET /email-activity', () => {
  async function tenantWithEmail() {
    const tenant = await makeTenant(t);
    const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000);
    for (const [subject, h] of [
      ['Boiler not working', 1],
      ['CP12 attached', 23.5],
      ['Rent late', 30],
      ['Old news', 800],
    ] as const) {
      await t.db.emailActivity.create({
        data: {
          tenantId: tenant.id,
          threadId: `th-${subject}`,
          direction: 'inbound',
          fromAddress: 'someone@example.com',
          toAddresses: ['lettings@example.co.uk'],
          subject,
          snippet: `${subject}…`,
          receivedAt: hoursAgo(h),
          category: 'maintenance',
          requiresResponse: true,
          mailbox: 'lettings@example.co.uk',
        },
      });
    }
    return tenant;
  }

  it('returns the last 24 hours by default, newest first', async () => {
    const tenant = await tenantWithEmail();
    const res = await request(t.app)
      .get('/api/assistant-bridge/email-activity')
      .set(...bearer(tenant.key));
    const body = expectContract(EmailActivityResponse, res.body);
    expect(body.hours).toBe(24);
    expect(body.since).toBe('2026-06-14T09:00:00.000Z');
    expect(body.items.map((i) => i.subject)).toEqual(['Boiler not working', 'CP12 attached']);
    expect(body.items[0]).toMatchObject({
      from: 'someone@example.com',
      to: ['lettings@example.co.uk'],
      linked: { property_id: null, deal_id: null },
    });
  });

  it('honours hours up to 720', async () => {
    const tenant = await tenantWithEmail();
    const b48 = expectContract(
      EmailActivityResponse,
      (
        await request(t.app)
          .get('/api/assistant-bridge/email-activity?hours=48')
          .set(...bearer(tenant.key))
      ).body,
    );
    expect(b48.items).toHaveLength(3);
    const b720 = expectContract(
      EmailActivityResponse,
      (
        await request(t.app)
          .get('/api/assistant-bridge/email-activity?hours=720')
          .set(...bearer(tenant.key))
      ).body,
    );
    expect(b720.items).toHaveLength(3);
    const b1 = expectContract(
      EmailActivityResponse,
      (
        await request(t.app)
          .get('/api/assistant-bridge/email-activity?hours=1')
          .set(...bearer(tenant.key))
      ).body,
    );
    expect(b1.items.map((i) => i.subject)).toEqual(['Boiler not working']);
  });

  it.each(['0', '-1', '721', 'abc', '1.5', '', '24&hours=48'])(
    'rejects hours=%s with 400 pointing at #/hours',
    async (hours) => {
      const tenant = await makeTenant(t);
      const res = await request(t.app)
        .get(`/api/assistant-bridge/email-activity?hours=${hours}`)
        .set(...bearer(tenant.key));
      const p = expectProblem(res, 400, 'validation-failed');
      expect(p.errors?.[0]?.pointer).toBe('#/hours');
      expect(p.errors?.[0]?.detail).toBeTruthy();
    },
  );
});

describe('GET /mailboxes', () => {
  it('lists the mailboxes the platform polls', async () => {
    const tenant = await makeTenant(t);
    await t.admin.addMailbox(tenant.slug, 'Lettings@Example.co.uk');
    await t.admin.addMailbox(tenant.slug, 'accounts@example.co.uk');
    const body = expectContract(
      MailboxesResponse,
      (
        await request(t.app)
          .get('/api/assistant-bridge/mailboxes')
          .set(...bearer(tenant.key))
      ).body,
    );
    expect(body.mailboxes).toEqual([
      { address: 'accounts@example.co.uk', polled_by_platform: true },
      { address: 'lettings@example.co.uk', polled_by_platform: true },
    ]);
  });
});
