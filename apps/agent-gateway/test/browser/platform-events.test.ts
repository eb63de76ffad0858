import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BrowserHarness,
  expectNoPageProblems,
  PHONE_VIEWPORT,
  saveScreenshot,
  scaled,
} from '@pa/http-kit/testing';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';

// "Updates from your platform" in real Chromium: a signed event sent to the real gateway appears in the chat's
// conversations panel without a reload, in words.

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let browser: BrowserHarness;
let g: TestGateway;

beforeAll(async () => {
  [browser, g] = await Promise.all([
    BrowserHarness.launch(),
    startTestGateway({
      env: { AI_WORKERS_ENABLED: 'true', PLATFORM_EVENT_WEBHOOKS: 'true', PLATFORM_WEBHOOK_SECRET: SECRET },
      redis: 'none',
    }),
  ]);
  const workspace = await g.db.workspace.create({ data: { name: 'Demo' } });
  const worker = await g.db.worker.create({
    data: { workspaceId: workspace.id, name: 'Property Manager', skillPacks: ['property-uk'] },
  });
  await g.db.platformBinding.create({
    data: {
      workerId: worker.id,
      tenantSlug: 'demo-lettings',
      keyCiphertext: Buffer.from('unused'),
      keyPreview: 'plat_xxxx',
      propertiesTotal: 24,
      boundAt: new Date(),
    },
  });
});
afterAll(async () => {
  await browser?.close();
  await g?.close();
});
afterEach(async () => {
  expectNoPageProblems(await browser.endTest());
});

async function sendApproval(proposalId: number, label: string) {
  const body = JSON.stringify({
    type: 'proposal.approved',
    timestamp: new Date().toISOString(),
    data: {
      tenant_slug: 'demo-lettings',
      proposal_id: proposalId,
      kind: 'deal',
      label,
      status: 'approved',
      decided_at: new Date().toISOString(),
      decision_note: null,
      record: { type: 'deal', id: 9 },
    },
  });
  const id = `msg_${randomBytes(8).toString('hex')}`;
  const at = new Date();
  const res = await fetch(`${g.baseUrl}/api/platform/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign(id, at, body),
    },
    body,
  });
  expect(res.status).toBe(200);
}

describe('updates from the platform', () => {
  it(
    'appear in the conversations panel as they arrive, in words',
    async () => {
      const page = await browser.openPage(`${g.baseUrl}/`);
      const feed = page.getByRole('region', { name: 'Updates from your platform' });
      await expect.poll(() => page.locator('#active-provider').textContent()).not.toBe('…');
      expect(await feed.isVisible()).toBe(false);

      await sendApproval(12, 'Acquire 14 Oak Street');
      await expect
        .poll(() => feed.locator('.event').first().textContent(), { timeout: scaled(12_000) })
        .toContain('Deal proposal #12 “Acquire 14 Oak Street” was approved.');
      // the bold is rendered, not shown as asterisks
      expect(await feed.locator('.event strong').first().textContent()).toBe('approved');
      await sendApproval(13, 'Re-let – Flat 2, 45 Hoe Street');
      await expect
        .poll(() => feed.locator('.event').first().textContent(), { timeout: scaled(12_000) })
        .toContain('#13');
      expect(await feed.locator('.event').count()).toBe(2);
      await saveScreenshot(page, 'platform-updates.png');
    },
    scaled(60_000),
  );

  it(
    'reads well in the phone’s drawer, in dark mode',
    async () => {
      const page = await browser.openPage(`${g.baseUrl}/`, PHONE_VIEWPORT, {
        isMobile: true,
        hasTouch: true,
      });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.getByRole('button', { name: 'Conversations' }).click();
      const feed = page.getByRole('region', { name: 'Updates from your platform' });
      await expect.poll(() => feed.isVisible(), { timeout: scaled(12_000) }).toBe(true);
      await saveScreenshot(page, 'platform-updates-phone-dark.png');
    },
    scaled(60_000),
  );
});
