import type { ProposalKind } from '@pa/contracts';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seedDemo } from '../../src/demo/demo-seed.ts';
import { uniqueSlug } from '../support/factories.ts';
import type { TestBridge } from '../support/test-app.ts';

// What the review-queue page's browser tests share: a demo tenant of their own (the demo seeds proposals in every
// state, three waiting for review, with the review-queue flag on) with an admin key, and the page's cards. What
// every settings page's tests share (the browser, the key form) is in settings-page-support.ts.

export const PAGE_PATH = '/settings/review-queue';

export interface DemoReviewTenant {
  id: number;
  slug: string;
  adminKey: string;
  adminEmail: string;
}

export async function seedReviewTenant(t: TestBridge): Promise<DemoReviewTenant> {
  const slug = uniqueSlug('demo');
  const { tenant } = await seedDemo({ db: t.db, clock: t.clock }, { tenantSlug: slug });
  const adminEmail = `reviewer@${slug}.example`;
  const admin = await t.admin.createAdmin(slug, adminEmail);
  return { id: tenant.id, slug, adminKey: admin.key, adminEmail };
}

/** The tenant's proposal of `kind` that waits for review (the demo has one of each), as the database has it. */
export async function pendingProposal(t: TestBridge, tenantId: number, kind: ProposalKind) {
  return t.db.proposal.findFirstOrThrow({ where: { tenantId, kind, status: 'pending_review' } });
}

/** The card of one proposal. */
export const card = (page: Page, proposalId: number) => page.locator(`li[data-proposal-id="${proposalId}"]`);

/** Waits until the page lists `n` cards. */
export async function expectCards(page: Page, n: number): Promise<void> {
  await expect.poll(() => page.locator('li.card').count()).toBe(n);
}
