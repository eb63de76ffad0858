import { saveScreenshot } from '@pa/http-kit/testing';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeProperty } from '../support/factories.ts';
import { makeProposal, makeReviewTenant } from '../support/proposal-factory.ts';
import type { TestBridge } from '../support/test-app.ts';
import {
  card,
  type DemoReviewTenant,
  expectCards,
  PAGE_PATH,
  pendingProposal,
  seedReviewTenant,
} from './review-queue-support.ts';
import {
  expectServedUnderCsp,
  KEY_REFUSED,
  openPage,
  pasteKey,
  screenshots,
  type SettingsPages,
  storedKey,
  toast,
  useSettingsPages,
} from './settings-page-support.ts';

// The review-queue page in a real browser against the real bridge and a real database (settings-page-support.ts).
// Two demo tenants: one only looked at, one whose three pending proposals the decision tests decide (one each);
// tests of errors make small tenants of their own. The bridge's clock is the real time, as the browser's is.

let t: TestBridge;
let server: SettingsPages['server'];
let browser: SettingsPages['browser'];
let shown: DemoReviewTenant; // never decided on
let decided: DemoReviewTenant; // each decision test decides one of its pending proposals

useSettingsPages({ now: new Date().toISOString() }, async (pages) => {
  ({ t, server, browser } = pages);
  shown = await seedReviewTenant(t);
  decided = await seedReviewTenant(t);
});

async function openQueue(key: string, opts: { phone?: boolean } = {}): Promise<Page> {
  const page = await openPage(browser, `${server.baseUrl}${PAGE_PATH}`, opts);
  await pasteKey(page, key);
  await expect.poll(() => page.locator('#queue-panel').isVisible()).toBe(true);
  return page;
}

const dialog = (page: Page, name: 'approve' | 'reject') => page.locator(`#${name}-dialog`);

describe('GET /settings/review-queue', () => {
  it('serves the page and its assets under a CSP that allows only its own files', async () => {
    await expectServedUnderCsp(`${server.baseUrl}${PAGE_PATH}`, ['review-queue.js', 'review-queue.css']);
  });

  it('ignores query parameters a link may carry (the page reads none)', async () => {
    const res = await fetch(`${server.baseUrl}${PAGE_PATH}?utm_source=email&status=approved`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('asks for the admin key once, then lists the pending proposals with property, diff and warnings', async () => {
    const page = await browser.openPage(`${server.baseUrl}${PAGE_PATH}`);
    await expect
      .poll(() => page.getByRole('heading', { name: 'Paste your admin key' }).isVisible())
      .toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key-input');
    await saveScreenshot(page, 'review-queue-key.png');

    await pasteKey(page, shown.adminKey);
    await expectCards(page, 3);
    expect(await storedKey(page)).toBe(shown.adminKey);
    expect(await page.locator('#queue-count').textContent()).toBe('3 waiting for review');
    const pending = {
      deal: await pendingProposal(t, shown.id, 'deal'),
      compliance: await pendingProposal(t, shown.id, 'compliance_update'),
      financial: await pendingProposal(t, shown.id, 'financial_log'),
    };

    // The compliance update: the property, who proposed it, the diff against the current certificate, the warning.
    const gas = card(page, pending.compliance.id);
    expect(await gas.locator('.property').textContent()).toContain('BRS-002');
    expect(await gas.locator('.property-address').textContent()).toMatch(/, Bristol, BS\d/);
    expect(await gas.locator('.meta').textContent()).toMatch(/^Proposed by demo agent gateway /);
    expect(await gas.locator('[data-role="expiry"]').textContent()).toMatch(/^Expires in 1[34] days$/);
    expect(await gas.locator('caption').textContent()).toBe('What would change');
    const expiryRow = gas.locator('tr[data-path="expiry_date"]');
    expect(await expiryRow.locator('th').textContent()).toBe('Expiry date');
    expect(await expiryRow.locator('td.from').textContent()).toMatch(/^\d{1,2} [A-Z][a-z]{2,3} \d{4}$/);
    expect(await expiryRow.locator('td.to').textContent()).toMatch(/^\d{1,2} [A-Z][a-z]{2,3} \d{4}$/);
    const warning = gas.locator('.warning');
    expect(await warning.textContent()).toBe('Status would change from expired to valid.');
    expect(await warning.isVisible()).toBe(true);
    expect(await gas.locator('.summary').textContent()).toMatch(
      /^Gas safety certificate issued \d{1,2} [A-Z][a-z]{2,3} \d{4}, pass at BRS-002$/,
    );

    // The deal and the financial log: what approval would record, money in pounds, field names in words.
    const deal = card(page, pending.deal.id);
    expect(await deal.locator('.property-ref').textContent()).toBe('LON-007');
    expect(await deal.locator('caption').textContent()).toBe('What approval would record');
    expect(await deal.locator('tr[data-path="value_pence"] td').textContent()).toBe('£19,800');
    expect(await deal.locator('tr[data-path="expected_close_date"] th').textContent()).toBe(
      'Expected close date',
    );
    expect(await deal.locator('tr[data-path="property_id"]').count()).toBe(0);
    const log = card(page, pending.financial.id);
    expect(await log.locator('tr[data-path="net_pence"] td').textContent()).toBe('£185.00');
    expect(await log.locator('tr[data-path="gross_pence"] td').textContent()).toBe('£222.00');
    expect(await log.locator('.notes-text').textContent()).toContain('INV-20931');
    expect(await log.locator('.summary').textContent()).toMatch(
      /^Expense, repair £185\.00 \+ VAT £37\.00 to Kershaw/,
    );
    await saveScreenshot(page, 'review-queue.png', { fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await saveScreenshot(page, 'review-queue-dark.png');
    await page.emulateMedia({ colorScheme: 'light' });

    // The key stays for the tab: a reload shows the queue at once; "Forget key" removes it.
    await page.reload();
    await expectCards(page, 3);
    expect(await page.locator('#key-panel').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Forget key' }).click();
    expect(await page.locator('#key-panel').isVisible()).toBe(true);
    expect(await page.locator('li.card').count()).toBe(0);
    expect(await storedKey(page)).toBeNull();
    await expect.poll(() => toast(page).textContent()).toBe('The admin key is forgotten in this tab.');
  });

  it('filters by status and kind, and says when nothing matches', async () => {
    const page = await openQueue(shown.adminKey);
    await expectCards(page, 3);

    await page.getByLabel('Status').selectOption('approved');
    await expectCards(page, 3);
    const approved = page.locator('li.card[data-status="approved"]');
    expect(await approved.count()).toBe(3);
    expect(await approved.first().locator('.decision-line').textContent()).toMatch(
      /^Approved by sarah\.cole@demo-lettings\.co\.uk /,
    );
    expect(await approved.locator('[data-action]').count()).toBe(0);

    // A decided proposal's history, oldest first: who proposed it, who approved it, with their notes.
    const history = approved.first().locator('details.history');
    await history.locator('summary').click();
    await expect.poll(() => history.locator('.audit li').count()).toBe(2);
    expect(await history.locator('.audit li').first().textContent()).toMatch(
      / Proposed by demo agent gateway/,
    );
    expect(await history.locator('.audit li').last().textContent()).toMatch(
      / Approved by sarah\.cole@demo-lettings\.co\.uk/,
    );

    await page.getByLabel('Kind').selectOption('deal');
    await expectCards(page, 1);
    expect(await page.locator('li.card .kind').textContent()).toBe('Deal');

    // The filters are in the address: a reload (or the link, sent to a colleague) opens the same view.
    expect(new URL(page.url()).search).toBe('?status=approved&kind=deal');
    await page.reload();
    await expectCards(page, 1);
    expect(await page.getByLabel('Status').inputValue()).toBe('approved');
    expect(await page.getByLabel('Kind').inputValue()).toBe('deal');
    expect(await page.locator('li.card[data-status="approved"] .kind').textContent()).toBe('Deal');
    await saveScreenshot(page, 'review-queue-filtered.png');

    await page.getByLabel('Status').selectOption('all');
    await expectCards(page, 3); // the demo's deals: pending, approved, rejected
    await page.getByLabel('Kind').selectOption('all');
    await expectCards(page, 9);
    // the kind's default is left out of the address; the key is never in it
    expect(new URL(page.url()).search).toBe('?status=all');
    expect(page.url()).not.toContain(shown.adminKey.slice(0, 12));

    await page.getByLabel('Status').selectOption('withdrawn');
    await page.getByLabel('Kind').selectOption('financial_log');
    await expect.poll(() => page.locator('#empty').isVisible()).toBe(true);
    expect(await page.locator('#empty-title').textContent()).toBe('No withdrawn proposals');
  });

  it('opens a link’s filters, ignoring a value it does not offer; back at the defaults they leave the address', async () => {
    const page = await openQueue(shown.adminKey);
    await expectCards(page, 3);
    await page.goto(`${server.baseUrl}${PAGE_PATH}?status=rejected&kind=spaceships&utm_source=mail`);
    await expect.poll(() => page.locator('li.card').count()).toBeGreaterThan(0);
    expect(await page.getByLabel('Status').inputValue()).toBe('rejected');
    expect(await page.getByLabel('Kind').inputValue()).toBe('all');
    expect(await page.locator('li.card:not([data-status="rejected"])').count()).toBe(0);
    await page.getByLabel('Status').selectOption('pending_review');
    await expectCards(page, 3);
    // the filters at their defaults leave the address; the link's other parameters stay
    expect(new URL(page.url()).search).toBe('?utm_source=mail');
  });

  it('shows the next page of a long queue on request', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    for (let i = 1; i <= 52; i++) {
      await makeProposal(t, tenant.id, 'financial_log', {
        property_id: property.id,
        date: '2026-11-20',
        direction: 'income',
        category: 'rent_received',
        net_pence: 95_000 + i,
      });
    }
    const page = await openQueue(tenant.adminKey);
    await expectCards(page, 50);
    expect(await page.locator('#queue-count').textContent()).toBe('50+ waiting for review');
    await page.getByRole('button', { name: 'Show more' }).click();
    await expectCards(page, 52);
    expect(await page.getByRole('button', { name: 'Show more' }).isVisible()).toBe(false);
    expect(await page.locator('#queue-count').textContent()).toBe('52 waiting for review');
    const ids = await page
      .locator('li.card')
      .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-proposal-id')));
    expect(new Set(ids).size).toBe(52);
  });
});

describe('a proposal’s history', () => {
  it('says which entries an assistant made over MCP, and nothing more of those over REST', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    const deal = { property_id: property.id, deal_type: 'acquisition' };
    const overMcp = await makeProposal(
      t,
      tenant.id,
      'deal',
      { ...deal, title: 'Acquire 14 Elm Road', review_notes: 'Seen in the broker’s email.' },
      { submittedBy: 'Claude for the lettings team', channel: 'mcp' },
    );
    const overRest = await makeProposal(t, tenant.id, 'deal', { ...deal, title: 'Acquire 16 Elm Road' });
    const page = await openQueue(tenant.adminKey);
    await expectCards(page, 2);

    const history = async (proposalId: number) => {
      const details = card(page, proposalId).locator('details.history');
      await details.locator('summary').click();
      await expect.poll(() => details.locator('.audit li').count()).toBe(1);
      return details.locator('.audit li').textContent();
    };
    expect(await history(overMcp.id)).toMatch(
      / Proposed by Claude for the lettings team via MCP“Seen in the broker’s email\.”$/,
    );
    expect(await history(overRest.id)).toMatch(/ Proposed by test assistant$/);
    await screenshots(page, 'review-queue-history', { fullPage: true });
  });
});

describe('deciding on the page', () => {
  it('approves a deal with a note and an edited value: the card turns approved and the deal exists', async () => {
    const proposal = await pendingProposal(t, decided.id, 'deal');
    const page = await openQueue(decided.adminKey);
    await card(page, proposal.id).getByRole('button', { name: 'Approve…' }).click();
    await expect.poll(() => dialog(page, 'approve').isVisible()).toBe(true);
    expect(await page.getByLabel('Deal title').inputValue()).toBe(
      'Re-let – Flat 2, 45 Hoe Street, Walthamstow',
    );
    expect(await page.getByLabel('Value (optional)').inputValue()).toBe('19,800.00');
    await page.getByLabel('Value (optional)').fill('21,000');
    await page.getByLabel('Note for the record (optional)').fill('Agreed with the landlord on the phone.');
    await saveScreenshot(page, 'review-queue-approve.png');
    await dialog(page, 'approve').getByRole('button', { name: 'Approve', exact: true }).click();

    await expect.poll(() => card(page, proposal.id).getAttribute('data-status')).toBe('approved');
    expect(await dialog(page, 'approve').isVisible()).toBe(false);
    const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } });
    expect(stored).toMatchObject({
      status: 'approved',
      decidedBy: decided.adminEmail,
      decisionNote: 'Agreed with the landlord on the phone.',
      recordType: 'deal',
    });
    const deal = await t.db.deal.findUniqueOrThrow({ where: { id: stored.recordId! } });
    expect(deal).toMatchObject({
      tenantId: decided.id,
      title: 'Re-let – Flat 2, 45 Hoe Street, Walthamstow',
      valuePence: 2_100_000,
      source: 'proposal',
    });

    const decision = card(page, proposal.id).locator('.decision');
    expect(await decision.textContent()).toBe(
      `Approved by you just now. Saved as deal #${deal.id}.Note: Agreed with the landlord on the phone.`,
    );
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-role'))).toBe('decision');
    expect(await card(page, proposal.id).locator('[data-action]').count()).toBe(0);
    expect(await toast(page).textContent()).toBe(`Approved (LON-007): saved as deal #${deal.id}.`);
    // The card shows what was recorded: the corrected value, marked as the reviewer's.
    expect(await card(page, proposal.id).locator('caption').textContent()).toBe('What was recorded');
    expect(await card(page, proposal.id).locator('tr[data-path="value_pence"] td').textContent()).toBe(
      '£21,000edited by you',
    );
    expect(await page.locator('#queue-count').textContent()).toBe('2 waiting for review');
    await saveScreenshot(page, 'review-queue-approved.png', { fullPage: true });
  });

  it('rejects a financial log only with a reason, and writes no record', async () => {
    const proposal = await pendingProposal(t, decided.id, 'financial_log');
    const page = await openQueue(decided.adminKey);
    await card(page, proposal.id).getByRole('button', { name: 'Reject…' }).click();
    const reason = page.getByLabel('Reason');
    await expect.poll(() => reason.evaluate((el) => el === document.activeElement)).toBe(true);
    await reason.press('Enter');
    await expect
      .poll(() => page.locator('#reject-reason-error').textContent())
      .toBe('Say why, so the assistant can learn from it.');
    expect(await reason.getAttribute('aria-invalid')).toBe('true');
    expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe(
      'pending_review',
    );

    await reason.fill('Already paid: this invoice came twice.');
    await reason.press('Enter');
    await expect.poll(() => card(page, proposal.id).getAttribute('data-status')).toBe('rejected');
    expect(await card(page, proposal.id).locator('.decision-note').textContent()).toBe(
      'Reason: Already paid: this invoice came twice.',
    );
    expect(await toast(page).textContent()).toBe('Rejected (MAN-004): nothing was recorded.');
    expect(await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).toMatchObject({
      status: 'rejected',
      decidedBy: decided.adminEmail,
      decisionNote: 'Already paid: this invoice came twice.',
      recordId: null,
    });
    expect(await t.db.financialLog.count({ where: { sourceProposalId: proposal.id } })).toBe(0);
  });

  it('approves with the keyboard alone: Tab to the button, Enter, Escape closes, Enter submits', async () => {
    const proposal = await pendingProposal(t, decided.id, 'compliance_update');
    const page = await browser.openPage(`${server.baseUrl}${PAGE_PATH}`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('key-input');
    await page.keyboard.type(decided.adminKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => card(page, proposal.id).isVisible()).toBe(true);

    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return {
          id: el?.id ?? '',
          action: el?.dataset.action ?? '',
          proposal: el?.closest('li')?.dataset.proposalId ?? '',
          outline: el ? getComputedStyle(el).outlineStyle : 'none',
        };
      });
    const tabTo = async (match: (f: Awaited<ReturnType<typeof focused>>) => boolean) => {
      for (let i = 0; i < 80; i++) {
        if (match(await focused())) return;
        await page.keyboard.press('Tab');
      }
      throw new Error('Tab never reached the element');
    };
    const onApprove = (f: Awaited<ReturnType<typeof focused>>) =>
      f.action === 'approve' && f.proposal === String(proposal.id);

    await tabTo(onApprove);
    expect((await focused()).outline).not.toBe('none'); // the focus is visible
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused()).id).toBe('edit-issue-date');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog(page, 'approve').isVisible()).toBe(false);
    expect(onApprove(await focused())).toBe(true);

    await page.keyboard.press('Enter');
    await tabTo((f) => f.id === 'approve-note');
    await page.keyboard.type('Checked against the CP12.');
    await page.keyboard.press('Enter');
    await expect.poll(() => card(page, proposal.id).getAttribute('data-status')).toBe('approved');

    const stored = await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } });
    expect(stored).toMatchObject({
      status: 'approved',
      decisionNote: 'Checked against the CP12.',
      recordType: 'compliance_item',
    });
    const item = await t.db.complianceItem.findUniqueOrThrow({ where: { id: stored.recordId! } });
    expect(item).toMatchObject({
      tenantId: decided.id,
      type: 'gas_safety',
      referenceNumber: 'CP12-611094-04571',
    });
  });

  it('answers a second approval of the same proposal from another tab in words (409)', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    const proposal = await makeProposal(t, tenant.id, 'deal', {
      title: 'Let-only instruction – 3 Mill Lane',
      property_id: property.id,
      deal_type: 'letting',
      value_pence: 125_000,
    });
    browser.allowConsoleErrors(/status of 409/);
    const first = await openQueue(tenant.adminKey);
    const second = await browser.openTab(`${server.baseUrl}${PAGE_PATH}`);
    await pasteKey(second, tenant.adminKey); // sessionStorage is per tab
    await expectCards(second, 1);

    await card(first, proposal.id).getByRole('button', { name: 'Approve…' }).click();
    await dialog(first, 'approve').getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(() => card(first, proposal.id).getAttribute('data-status')).toBe('approved');

    await card(second, proposal.id).getByRole('button', { name: 'Approve…' }).click();
    await dialog(second, 'approve').getByRole('button', { name: 'Approve', exact: true }).click();
    const message = 'This proposal was already approved, so nothing was changed.';
    await expect.poll(() => toast(second).textContent()).toBe(message);
    expect(await card(second, proposal.id).getAttribute('data-status')).toBe('approved');
    expect(await card(second, proposal.id).locator('.decision-line').textContent()).toBe(message);
    expect(await dialog(second, 'approve').isVisible()).toBe(false);
    expect(await t.db.deal.count({ where: { tenantId: tenant.id, source: 'proposal' } })).toBe(1);
  });
});

describe('errors in words', () => {
  it('refuses a bad key in words and keeps it out of sessionStorage', async () => {
    browser.allowConsoleErrors(/status of 401/);
    const tenant = await makeReviewTenant(t);
    const page = await browser.openPage(`${server.baseUrl}${PAGE_PATH}`);
    const error = page.locator('#key-input-error');

    await pasteKey(page, tenant.key); // the assistant's remote key, not an admin key
    await expect.poll(() => error.textContent()).toMatch(/needs an admin key, which starts with padm_/);

    const wrong = tenant.adminKey.slice(0, -6) + (tenant.adminKey.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA');
    await pasteKey(page, wrong);
    await expect.poll(() => error.textContent()).toBe(KEY_REFUSED);
    expect(await page.getByRole('textbox', { name: 'Admin key' }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#queue-panel').isVisible()).toBe(false);
    expect(await storedKey(page)).toBeNull();
  });

  it('asks for the key again when it is revoked while the page is open', async () => {
    browser.allowConsoleErrors(/status of 401/);
    const tenant = await makeReviewTenant(t);
    const page = await openQueue(tenant.adminKey);
    await expect.poll(() => page.locator('#empty').isVisible()).toBe(true);
    expect(await page.locator('#empty-title').textContent()).toBe('Nothing waiting for review');

    await t.admin.revokeKey(tenant.adminKeyId);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => page.locator('#key-input-error').textContent()).toBe(KEY_REFUSED);
    expect(await storedKey(page)).toBeNull();
  });

  it('says the review queue is not switched on when the tenant flag is off', async () => {
    browser.allowConsoleErrors(/status of 404/);
    const tenant = await makeReviewTenant(t, { flags: ['assistant_external_bridge'] });
    const page = await openQueue(tenant.adminKey);
    await expect
      .poll(() => page.locator('#notice-text').textContent())
      .toBe('The review queue is not switched on for this workspace.');
    expect(await page.locator('li.card').count()).toBe(0);
    expect(await storedKey(page)).toBe(tenant.adminKey); // the key is fine; the flag is not

    await t.admin.setFlag(tenant.slug, 'assistant_bridge_review_queue', true);
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => page.locator('#notice').isVisible()).toBe(false);
    expect(await page.locator('#empty-title').textContent()).toBe('Nothing waiting for review');
  });

  it('shows a read-only admin key the queue without the buttons, and says why', async () => {
    const tenant = await makeReviewTenant(t, { adminScopes: ['review:read'] });
    const property = await makeProperty(t, tenant.id);
    const proposal = await makeProposal(t, tenant.id, 'deal', {
      title: 'Sale – 2 Orchard Close',
      property_id: property.id,
      deal_type: 'disposal',
    });
    const page = await openQueue(tenant.adminKey);
    await expect.poll(() => card(page, proposal.id).isVisible()).toBe(true);
    expect(await page.locator('#read-only').isVisible()).toBe(true);
    expect(await page.locator('#read-only').innerText()).toMatch(
      /can read the queue but not decide: approving and rejecting need an admin key with the review:write scope/,
    );
    // the card, its changes and its history, but nothing to press that the platform would refuse
    expect(await card(page, proposal.id).getByRole('button', { name: 'Approve…' }).count()).toBe(0);
    expect(await card(page, proposal.id).getByRole('button', { name: 'Reject…' }).count()).toBe(0);
    expect(await card(page, proposal.id).locator('details.history').count()).toBe(1);
    await saveScreenshot(page, 'review-queue-read-only.png');
    expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe(
      'pending_review',
    );

    // a key that may decide sees no such note
    const decider = await makeReviewTenant(t);
    const other = await openQueue(decider.adminKey);
    await expect.poll(() => other.locator('#empty').isVisible()).toBe(true);
    expect(await other.locator('#read-only').isVisible()).toBe(false);
  });

  it('shows a wrong amount next to its field and sends nothing until it is fixed', async () => {
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    const proposal = await makeProposal(t, tenant.id, 'financial_log', {
      property_id: property.id,
      date: '2026-11-20',
      direction: 'expense',
      category: 'repair',
      net_pence: 18_500,
      vat_pence: 3_700,
      payee_or_payer: 'Kershaw Heating Ltd',
    });
    const page = await openQueue(tenant.adminKey);
    await card(page, proposal.id).getByRole('button', { name: 'Approve…' }).click();
    expect(await page.getByLabel('Date', { exact: true }).inputValue()).toBe('20/11/2026');
    const net = page.getByLabel('Net amount');
    await net.fill('12.345');
    await page.getByLabel('Date', { exact: true }).fill('31/02/2026');
    await net.press('Enter');

    await expect
      .poll(() => page.locator('#edit-net-pence-error').textContent())
      .toBe('Enter an amount in pounds, like 1,395.00.');
    expect(await page.locator('#edit-date-error').textContent()).toBe(
      'Enter a real date as day/month/year, like 17/01/2027.',
    );
    expect(await net.getAttribute('aria-invalid')).toBe('true');
    expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe(
      'pending_review',
    );

    // What only the platform checks (net and VAT together fit the ledger) comes back next to its field too.
    browser.allowConsoleErrors(/status of 400/);
    await net.fill('21,474,836.00');
    await page.getByLabel('Date', { exact: true }).fill('21/11/2026');
    await page.getByRole('textbox', { name: 'VAT', exact: true }).fill('100');
    await net.press('Enter');
    await expect
      .poll(() => page.locator('#edit-vat-pence-error').textContent())
      .toBe('Net and VAT together must be at most 2147483647 pence.');
    expect(await page.locator('#edit-net-pence-error').isVisible()).toBe(false);
    expect(await page.locator('#approve-error').isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('edit-vat-pence');
    expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe(
      'pending_review',
    );

    await net.fill('190.50');
    await page.getByRole('textbox', { name: 'VAT', exact: true }).fill('37.00');
    await net.press('Enter');
    await expect.poll(() => card(page, proposal.id).getAttribute('data-status')).toBe('approved');
    const log = await t.db.financialLog.findFirstOrThrow({ where: { sourceProposalId: proposal.id } });
    expect(log).toMatchObject({ tenantId: tenant.id, netPence: 19_050, vatPence: 3_700, grossPence: 22_750 });
    expect(log.date.toISOString().slice(0, 10)).toBe('2026-11-21');
  });

  it('says when the platform cannot be reached, and keeps the dialog for another try', async () => {
    browser.allowConsoleErrors(/ERR_INTERNET_DISCONNECTED/);
    const tenant = await makeReviewTenant(t);
    const property = await makeProperty(t, tenant.id);
    const proposal = await makeProposal(t, tenant.id, 'deal', {
      title: 'Management instruction – 9 Canal Street',
      property_id: property.id,
      deal_type: 'management_instruction',
    });
    const page = await openQueue(tenant.adminKey);
    await card(page, proposal.id).getByRole('button', { name: 'Reject…' }).click();
    await page.getByLabel('Reason').fill('Not ours.');
    await page.context().setOffline(true);
    await page.getByLabel('Reason').press('Enter');
    await expect
      .poll(() => page.locator('#reject-error').textContent())
      .toBe('Could not reach the platform. Check your connection and try again.');
    expect(await dialog(page, 'reject').isVisible()).toBe(true);
    expect((await t.db.proposal.findUniqueOrThrow({ where: { id: proposal.id } })).status).toBe(
      'pending_review',
    );

    await page.context().setOffline(false);
    await page.getByLabel('Reason').press('Enter');
    await expect.poll(() => card(page, proposal.id).getAttribute('data-status')).toBe('rejected');
  });
});

describe('on a phone', () => {
  it('fits 375 px without sideways scrolling, with thumb-sized buttons and a dialog that fits', async () => {
    const page = await openQueue(shown.adminKey, { phone: true });
    await expectCards(page, 3);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const approve = page.getByRole('button', { name: 'Approve…' }).first();
    const box = await approve.boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(44);
    await saveScreenshot(page, 'review-queue-phone.png', { fullPage: true });

    await approve.tap();
    await expect.poll(() => dialog(page, 'approve').isVisible()).toBe(true);
    const dialogBox = await dialog(page, 'approve').boundingBox();
    expect(dialogBox!.x).toBeGreaterThanOrEqual(0);
    expect(dialogBox!.x + dialogBox!.width).toBeLessThanOrEqual(375);
    await saveScreenshot(page, 'review-queue-phone-approve.png');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog(page, 'approve').isVisible()).toBe(false);

    // the status line spans the screen, 16 px from each side (not half of it, from the middle)
    await page.getByRole('button', { name: 'Forget key' }).tap();
    await expect.poll(() => toast(page).textContent()).toBe('The admin key is forgotten in this tab.');
    await expect.poll(async () => (await toast(page).boundingBox())?.width).toBe(375 - 32);
    await saveScreenshot(page, 'review-queue-phone-toast.png');
  });
});
