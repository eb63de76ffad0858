import {
  ComplianceResponse,
  DealsResponse,
  EmailActivityResponse,
  MailboxesResponse,
  PortfolioResponse,
  Property,
} from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeItem, makeProperty, makeTenancy, makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge();
});
afterAll(async () => t?.close());

async function populated(label: string) {
  const tenant = await makeTenant(t);
  const p = await makeProperty(t, tenant.id, { line1: `${label} House` });
  await makeTenancy(t, tenant.id, p.id);
  await makeItem(t, tenant.id, p.id, 'gas_safety', { expiryDate: '2027-01-01' });
  const deal = await t.db.deal.create({
    data: {
      tenantId: tenant.id,
      title: `${label} deal`,
      dealType: 'acquisition',
      stage: 'lead',
      propertyId: p.id,
    },
  });
  await t.db.emailActivity.create({
    data: {
      tenantId: tenant.id,
      threadId: `${label}-thread`,
      direction: 'inbound',
      fromAddress: `${label}@example.com`,
      toAddresses: ['x@example.com'],
      subject: `${label} email`,
      snippet: 'hello',
      receivedAt: t.clock.now(),
      category: 'other',
      mailbox: `${label}@example.com`,
    },
  });
  await t.admin.addMailbox(tenant.slug, `${label}@example.com`);
  return { tenant, p, deal };
}

describe('tenant isolation', () => {
  it('a key of tenant A never sees tenant B’s records', async () => {
    const a = await populated('alpha');
    const b = await populated('beta');
    const asA = (path: string) =>
      request(t.app)
        .get(`/api/assistant-bridge${path}`)
        .set(...bearer(a.tenant.key));

    const portfolio = expectContract(PortfolioResponse, (await asA('/portfolio')).body);
    expect(portfolio.properties.map((p) => p.id)).toEqual([a.p.id]);
    expect(portfolio.summary.properties_total).toBe(1);
    expect(portfolio.summary.open_deals).toBe(1);

    expect(expectContract(Property, (await asA(`/properties/${a.p.id}`)).body).id).toBe(a.p.id);
    expect(
      expectContract(ComplianceResponse, (await asA(`/properties/${a.p.id}/compliance`)).body).items,
    ).toHaveLength(1);

    // B's ids answer exactly like ids that do not exist: 404, never 403.
    expectProblem(await asA(`/properties/${b.p.id}`), 404, 'property-not-found');
    expectProblem(await asA(`/properties/${b.p.id}/compliance`), 404, 'property-not-found');

    const deals = expectContract(DealsResponse, (await asA('/deals?status=all')).body);
    expect(deals.deals.map((d) => d.title)).toEqual(['alpha deal']);
    const email = expectContract(EmailActivityResponse, (await asA('/email-activity?hours=720')).body);
    expect(email.items.map((e) => e.subject)).toEqual(['alpha email']);
    const mailboxes = expectContract(MailboxesResponse, (await asA('/mailboxes')).body);
    expect(mailboxes.mailboxes.map((m) => m.address)).toEqual(['alpha@example.com']);
  });

  it('a cursor taken from tenant B’s pages cannot reveal B’s records to A', async () => {
    const a = await populated('gamma');
    const b = await populated('delta');
    const cursor = Buffer.from(`p:${b.p.id - 1}`).toString('base64url');
    const res = await request(t.app)
      .get(`/api/assistant-bridge/portfolio?cursor=${cursor}`)
      .set(...bearer(a.tenant.key));
    const body = expectContract(PortfolioResponse, res.body);
    expect(body.properties.every((p) => p.id !== b.p.id)).toBe(true);
  });
});
