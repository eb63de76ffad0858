import { Conflict, NotFound, ValidationFailed } from '@pa/http-kit';
import type { Clock } from '../../lib/clock.ts';
import { systemClock } from '../../lib/clock.ts';
import type { Db } from '../../lib/db.ts';
import { createTenantAdminService } from '../tenants/tenant-admin-service.ts';
import { type AddressPolicy, checkEndpointUrl, EndpointRefused } from './endpoint-address.ts';
import { createWebhookAdminRepository } from './webhook-admin-repository.ts';
import { encryptSecret, generateWebhookSecret } from './webhook-secret.ts';

export const MAX_ENDPOINTS_PER_TENANT = 10;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const iso = (d: Date | null) => d?.toISOString() ?? null;

// The operator's side of signed events (docs/operations.md): endpoints per tenant, the deliveries, and sending a
// delivery again. The secret is returned by `addEndpoint` only; it is stored encrypted and never listed.
export function createWebhookAdminService(deps: {
  db: Db;
  secretKey: Buffer;
  policy: AddressPolicy;
  clock?: Clock;
}) {
  const { db } = deps;
  const clock = deps.clock ?? systemClock;
  const tenants = createTenantAdminService({ db });
  const webhooks = createWebhookAdminRepository(db);

  return {
    async addEndpoint(tenantSlug: string, rawUrl: string) {
      const tenant = await tenants.tenantBySlug(tenantSlug);
      let url: string;
      try {
        url = await checkEndpointUrl(rawUrl, deps.policy);
      } catch (err) {
        if (err instanceof EndpointRefused) throw new ValidationFailed([], err.message);
        throw err;
      }
      const same = await webhooks.findEndpointByUrl(tenant.id, url);
      if (same) {
        throw new Conflict(
          'endpoint-exists',
          `Tenant ${tenant.slug} already sends to ${url} (endpoint ${same.id}).`,
        );
      }
      const count = await webhooks.countEndpoints(tenant.id);
      if (count >= MAX_ENDPOINTS_PER_TENANT) {
        throw new Conflict(
          'too-many-endpoints',
          `Tenant ${tenant.slug} already has ${count} webhook endpoints (at most ${MAX_ENDPOINTS_PER_TENANT}).`,
        );
      }
      const secret = generateWebhookSecret();
      const row = await webhooks.createEndpoint(tenant.id, url, encryptSecret(deps.secretKey, secret));
      return {
        id: row.id,
        tenant: tenant.slug,
        url: row.url,
        secret,
        created_at: row.createdAt.toISOString(),
      };
    },

    async listEndpoints(tenantSlug: string) {
      const tenant = await tenants.tenantBySlug(tenantSlug);
      const rows = await webhooks.listEndpoints(tenant.id);
      const counts = await webhooks.deliveryCounts(tenant.id);
      const count = (endpointId: number, status: DeliveryStatus) =>
        counts.find((c) => c.endpointId === endpointId && c.status === status)?._count._all ?? 0;
      return rows.map((w) => ({
        id: w.id,
        url: w.url,
        enabled: w.enabled,
        disabled_at: iso(w.disabledAt),
        disabled_reason: w.disabledReason,
        created_at: w.createdAt.toISOString(),
        deliveries: {
          pending: count(w.id, 'pending'),
          succeeded: count(w.id, 'succeeded'),
          failed: count(w.id, 'failed'),
        },
      }));
    },

    async removeEndpoint(id: number) {
      const row = await webhooks.findEndpoint(id);
      if (!row) throw new NotFound('webhook-not-found', `No webhook endpoint with id ${id}.`);
      // its deliveries go with it (cascade): nothing is sent to a removed endpoint
      await webhooks.deleteEndpoint(id);
      return { id, tenant: row.tenant.slug, url: row.url, removed: true as const };
    },

    async listDeliveries(tenantSlug: string, status?: string, limit = 50) {
      if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
        throw new ValidationFailed(
          [],
          `--status must be one of ${DELIVERY_STATUSES.join(', ')}, not "${status}".`,
        );
      }
      const tenant = await tenants.tenantBySlug(tenantSlug);
      const rows = await webhooks.listDeliveries(tenant.id, status, limit);
      return rows.map((d) => ({
        id: d.id,
        webhook_id: d.webhookId,
        event_id: d.eventId,
        event_type: d.event.type,
        endpoint_id: d.endpointId,
        url: d.endpoint.url,
        status: d.status,
        attempts: d.attempts,
        next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
        last_attempt_at: iso(d.lastAttemptAt),
        last_status_code: d.lastStatusCode,
        last_error: d.lastError,
        delivered_at: iso(d.deliveredAt),
        created_at: d.createdAt.toISOString(),
      }));
    },

    /** Sends a finished delivery again, now, with the same webhook-id and a fresh retry schedule. */
    async redeliver(id: number) {
      const row = await webhooks.findDelivery(id);
      if (!row) throw new NotFound('delivery-not-found', `No webhook delivery with id ${id}.`);
      if (row.status === 'pending') {
        throw new Conflict(
          'delivery-pending',
          `Delivery ${id} is still pending; it will be sent without help.`,
        );
      }
      if (!row.endpoint.enabled) {
        throw new Conflict(
          'endpoint-disabled',
          `Endpoint ${row.endpointId} is disabled (${row.endpoint.disabledReason ?? 'no reason recorded'}); add the receiver again with "webhooks add".`,
        );
      }
      const now = clock.now();
      if (!(await webhooks.requeueDelivery(id, now)))
        throw new Conflict('delivery-pending', `Delivery ${id} is already pending again.`);
      return {
        id,
        webhook_id: row.webhookId,
        status: 'pending' as const,
        next_attempt_at: now.toISOString(),
      };
    },
  };
}

export type WebhookAdminService = ReturnType<typeof createWebhookAdminService>;
