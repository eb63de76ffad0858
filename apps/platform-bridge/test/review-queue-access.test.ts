import { AuditResponse, ReviewQueueResponse } from '@pa/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem } from './support/contract.ts';
import { bearer, makeProperty } from './support/factories.ts';
import { makeProposal, makeReviewTenant, type ReviewTenant } from './support/proposal-factory.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';

// Who may use the admin API (docs/bridge-api.md, "Keys"): admin (padm_) keys only, by scope, for their own tenant's
// proposals, while the tenant's review-queue flag is on, within the per-key budget. A budget of 6 a minute per
// key: each test but the rate-limit one makes at most that many requests with one key.

const BUDGET = 6;
let t: TestBridge;
beforeAll(async () => {
  t = await startTestBridge({ rateLimitPerMin: BUDGET });
});
afterAll(async () => t?.close());

const QUEUE = '/api/admin/review-queue';
const as = (key: string) => ({
  get: (path: string) =>
    request(t.app)
      .get(path)
      .set(...bearer(key)),
  post: (path: string, body: object) =>
    request(t.app)
      .post(path)
      .set(...bearer(key))
      .send(body),
});

async function pendingDeal(tenant: ReviewTenant, title = 'A deal') {
  const property = await makeProperty(t, tenant.id);
  return makeProposal(t, tenant.id, 'deal', { title, property_id: property.id });
}

function expectInvalidKey(res: request.Response) {
  expectProblem(res, 401, 'invalid-api-key');
  expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="review-queue"/);
}

describe('admin authentication', () => {
  it('GET /api/admin/review-queue without Authorization → 401 invalid-api-key with WWW-Authenticate: Bearer', async () => {
    expectInvalidKey(await request(t.app).get(QUEUE));
  });

  it('a remote (plat_) key on the admin API → 401; an admin (padm_) key on the bridge → 401', async () => {
    const tenant = await makeReviewTenant(t);
    expectInvalidKey(await as(tenant.key).get(QUEUE));
    const onBridge = await as(tenant.adminKey).get('/api/assistant-bridge/portfolio');
    expectProblem(onBridge, 401, 'invalid-api-key');
    expect(onBridge.headers['www-authenticate']).toMatch(/^Bearer realm="assistant-bridge"/);
  });

  it('a revoked admin key → 401 at once', async () => {
    const tenant = await makeReviewTenant(t);
    expect((await as(tenant.adminKey).get(QUEUE)).status).toBe(200);
    await t.admin.revokeKey(tenant.adminKeyId, 'admin');
    expectInvalidKey(await as(tenant.adminKey).get(QUEUE));
  });

  it('an admin key in the query string → 401, even with a good header', async () => {
    const tenant = await makeReviewTenant(t);
    expectInvalidKey(await as(tenant.adminKey).get(`${QUEUE}?key=${tenant.adminKey}`));
  });
});

describe('scopes', () => {
  it('review:read lists and reads the audit but cannot approve or reject (403 insufficient-scope)', async () => {
    const tenant = await makeReviewTenant(t, { adminScopes: ['review:read'] });
    const proposal = await pendingDeal(tenant);
    const admin = as(tenant.adminKey);
    const queue = expectContract(ReviewQueueResponse, (await admin.get(QUEUE)).body);
    // the page shows such a key the queue without the buttons
    expect(queue.can_decide).toBe(false);
    expect(queue.items.map((i) => i.proposal_id)).toEqual([proposal.id]);
    expectContract(AuditResponse, (await admin.get(`/api/admin/proposals/${proposal.id}/audit`)).body);
    const approve = await admin.post(`/api/admin/proposals/${proposal.id}/approve`, {});
    expectProblem(approve, 403, 'insufficient-scope');
    expect(approve.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
    expectProblem(
      await admin.post(`/api/admin/proposals/${proposal.id}/reject`, { reason: 'x' }),
      403,
      'insufficient-scope',
    );
    expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe(
      'pending_review',
    );
  });

  it('review:read with review:write: the queue says the key may decide', async () => {
    const tenant = await makeReviewTenant(t);
    await pendingDeal(tenant);
    const queue = expectContract(ReviewQueueResponse, (await as(tenant.adminKey).get(QUEUE)).body);
    expect(queue.can_decide).toBe(true);
  });

  it('review:write alone approves but cannot read the queue', async () => {
    const tenant = await makeReviewTenant(t, { adminScopes: ['review:write'] });
    const proposal = await pendingDeal(tenant);
    expectProblem(await as(tenant.adminKey).get(QUEUE), 403, 'insufficient-scope');
    expect((await as(tenant.adminKey).post(`/api/admin/proposals/${proposal.id}/approve`, {})).status).toBe(
      200,
    );
  });
});

describe('the review-queue flag', () => {
  it('off → every admin path answers 404 review-queue-not-enabled', async () => {
    const tenant = await makeReviewTenant(t, { flags: ['assistant_external_bridge'] });
    const proposal = await pendingDeal(tenant);
    const admin = as(tenant.adminKey);
    expectProblem(await admin.get(QUEUE), 404, 'review-queue-not-enabled');
    expectProblem(
      await admin.get(`/api/admin/proposals/${proposal.id}/audit`),
      404,
      'review-queue-not-enabled',
    );
    expectProblem(
      await admin.post(`/api/admin/proposals/${proposal.id}/approve`, {}),
      404,
      'review-queue-not-enabled',
    );
    expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe(
      'pending_review',
    );
  });

  it('switched off later takes effect on the next request', async () => {
    const tenant = await makeReviewTenant(t);
    expect((await as(tenant.adminKey).get(QUEUE)).status).toBe(200);
    await t.admin.setFlag(tenant.slug, 'assistant_bridge_review_queue', false);
    expectProblem(await as(tenant.adminKey).get(QUEUE), 404, 'review-queue-not-enabled');
  });
});

describe('tenant isolation', () => {
  it('an admin of tenant A sees none of B’s proposals, and every call on one answers 404 proposal-not-found', async () => {
    const a = await makeReviewTenant(t);
    const b = await makeReviewTenant(t);
    const mine = await pendingDeal(a, 'Mine');
    const theirs = await pendingDeal(b, 'Theirs');
    const admin = as(a.adminKey);

    const queue = expectContract(ReviewQueueResponse, (await admin.get(`${QUEUE}?status=all`)).body);
    expect(queue.items.map((i) => i.proposal_id)).toEqual([mine.id]);
    expectProblem(
      await admin.post(`/api/admin/proposals/${theirs.id}/approve`, {}),
      404,
      'proposal-not-found',
    );
    expectProblem(
      await admin.post(`/api/admin/proposals/${theirs.id}/reject`, { reason: 'x' }),
      404,
      'proposal-not-found',
    );
    expectProblem(await admin.get(`/api/admin/proposals/${theirs.id}/audit`), 404, 'proposal-not-found');

    expect((await t.db.proposal.findUniqueOrThrow({ where: { id: theirs.id } })).status).toBe(
      'pending_review',
    );
    expect(await t.db.deal.count({ where: { tenantId: { in: [a.id, b.id] } } })).toBe(0);
  });

  it('admin keys belong to their tenant: admins list shows only its own', async () => {
    const a = await makeReviewTenant(t);
    const b = await makeReviewTenant(t);
    expect((await t.admin.listAdmins(a.slug)).map((k) => k.id)).toEqual([a.adminKeyId]);
    expect((await t.admin.listAdmins(b.slug)).map((k) => k.email)).toEqual([b.adminEmail]);
  });
});

describe('per-key rate limit', () => {
  it(`answers 429 rate-limited with Retry-After after ${BUDGET} requests a minute, with draft-8 RateLimit headers`, async () => {
    const tenant = await makeReviewTenant(t);
    for (let i = 0; i < BUDGET; i++) {
      const res = await as(tenant.adminKey).get(QUEUE);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toMatch(/^"per-key"; q=6; w=60/);
    }
    const limited = await as(tenant.adminKey).get(QUEUE);
    expectProblem(limited, 429, 'rate-limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // another admin of the same tenant has its own budget
    const other = await t.admin.createAdmin(tenant.slug, `second@${tenant.slug}.example`);
    expect((await as(other.key).get(QUEUE)).status).toBe(200);
  });
});

describe('bodies', () => {
  it('POST approve without a body approves (no note, no edits); a body that is not JSON → 415', async () => {
    const tenant = await makeReviewTenant(t);
    const first = await pendingDeal(tenant);
    const second = await pendingDeal(tenant);
    const bare = await request(t.app)
      .post(`/api/admin/proposals/${first.id}/approve`)
      .set(...bearer(tenant.adminKey));
    expect(bare.status).toBe(200);
    const text = await request(t.app)
      .post(`/api/admin/proposals/${second.id}/approve`)
      .set(...bearer(tenant.adminKey))
      .set('Content-Type', 'text/plain')
      .send('note=hi');
    expectProblem(text, 415, 'unsupported-media-type');
  });
});
