import { randomBytes } from 'node:crypto';
import type { PlatformEvent } from '@pa/contracts';
import { createLogger } from '@pa/http-kit';
import type { AddressPolicy } from '../../src/features/webhooks/endpoint-address.ts';
import { createWebhookAdminService } from '../../src/features/webhooks/webhook-admin-service.ts';
import { startWebhookSender, type WebhookSenderOptions } from '../../src/features/webhooks/webhook-sender.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { makeTenant } from './factories.ts';
import type { TestBridge } from './test-app.ts';

/** The key endpoint secrets are encrypted with in these tests. */
export const TEST_SECRET_KEY = randomBytes(32);
export const LOOPBACK_POLICY: AddressPolicy = { allowHttpLoopback: true };

export function webhookAdmin(t: TestBridge, policy: AddressPolicy = LOOPBACK_POLICY, clock?: Clock) {
  return createWebhookAdminService({ db: t.db, secretKey: TEST_SECRET_KEY, policy, clock: clock ?? t.clock });
}

let proposalId = 1000;

export function approvedEvent(tenantSlug: string, overrides: { label?: string } = {}): PlatformEvent {
  return {
    type: 'proposal.approved',
    timestamp: '2026-06-15T09:00:00.000Z',
    data: {
      tenant_slug: tenantSlug,
      proposal_id: ++proposalId,
      kind: 'deal',
      label: overrides.label ?? `Acquire ${proposalId} Oak Street`,
      status: 'approved',
      decided_at: '2026-06-15T09:00:00.000Z',
      decision_note: null,
      record: { type: 'deal', id: proposalId },
    },
  };
}

/** A tenant with the events flag on (unless `flag: false`) and one endpoint at `url`. */
export async function webhookTenant(t: TestBridge, url: string, opts: { flag?: boolean } = {}) {
  const tenant = await makeTenant(t, { flags: opts.flag === false ? [] : ['platform_event_webhooks'] });
  const endpoint = await webhookAdmin(t).addEndpoint(tenant.slug, url);
  return { tenant, endpoint };
}

export function testSender(t: TestBridge, opts: Partial<WebhookSenderOptions> = {}) {
  return startWebhookSender({
    statements: t.statements,
    secretKey: TEST_SECRET_KEY,
    policy: LOOPBACK_POLICY,
    logger: createLogger('platform-bridge', 'silent'),
    clock: t.clock,
    random: () => 0.5,
    ...opts,
  });
}
