import type { WebhookDelivery, WebhookEndpoint } from '@pa/contracts';
import { Conflict, NotFound, ValidationFailed } from '@pa/http-kit';
import type { Clock } from '../../lib/clock.ts';
import { systemClock } from '../../lib/clock.ts';
import type { Db, Tx } from '../../lib/db.ts';
import { createAccessAuditRepository } from '../tenants/access-audit-repository.ts';
import { CLI_ACTOR, createTenantAdminService } from '../tenants/tenant-admin-service.ts';
import { createTenantsRepository } from '../tenants/tenants-repository.ts';
import { type AddressPolicy, checkEndpointUrl, EndpointRefused } from './endpoint-address.ts';
import { createWebhookAdminRepository } from './webhook-admin-repository.ts';
import { encryptSecret, generateWebhookSecret } from './webhook-secret.ts';

export const MAX_ENDPOINTS_PER_TENANT = 10;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const iso = (d: Date | null) => d?.toISOString() ?? null;

type Repo = ReturnType<typeof createWebhookAdminRepository>;
type DeliveryRow = Awaited<ReturnType<Repo['listEndpointDeliveries']>>[number];
type EndpointRow = NonNullable<Awaited<ReturnType<Repo['findEndpointOf']>>>;

function deliveryView(d: DeliveryRow): WebhookDelivery {
  return {
    id: d.id,
    webhook_id: d.webhookId,
    event_type: d.event.type,
    status: d.status as WebhookDelivery['status'],
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    last_attempt_at: iso(d.lastAttemptAt),
    delivered_at: iso(d.deliveredAt),
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
  };
}

const endpointTarget = (e: { id: number; url: string }) => `endpoint #${e.id} ${e.url}`;

// Signed events' endpoints per tenant, their deliveries, and sending a delivery again (docs/operations.md). The
// tenant-scoped methods (`…Of`, `…For`) are the admin API's and stamp their access-audit entry with its actor; the
// slug- or id-named ones are the operator CLI's, resolve the tenant, and call the same code as `operator CLI`. The
// secret is returned by adding an endpoint only; it is stored encrypted and never listed.
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
  const audit = createAccessAuditRepository(db);
  const tenantRows = createTenantsRepository(db);

  async function addFor(tenant: { id: number; slug: string }, rawUrl: string, actor: string) {
    let url: string;
    try {
      url = await checkEndpointUrl(rawUrl, deps.policy);
    } catch (err) {
      // the CLI's answer (a bad argument) and the API's (400, pointing at the field)
      if (err instanceof EndpointRefused) {
        throw new ValidationFailed([{ pointer: '#/url', detail: err.message }], err.message);
      }
      throw err;
    }
    const secret = generateWebhookSecret();
    const row = await db.$transaction(async (tx) => {
      // the checks and the insert under the tenant's row lock: concurrent adds would each pass them otherwise
      await tenantRows.lock(tenant.id, tx);
      const same = await webhooks.findEndpointByUrl(tenant.id, url, tx);
      if (same) {
        throw new Conflict(
          'endpoint-exists',
          `Tenant ${tenant.slug} already sends to ${url} (endpoint ${same.id}).`,
        );
      }
      const count = await webhooks.countEndpoints(tenant.id, tx);
      if (count >= MAX_ENDPOINTS_PER_TENANT) {
        throw new Conflict(
          'too-many-endpoints',
          `Tenant ${tenant.slug} already has ${count} webhook endpoints (at most ${MAX_ENDPOINTS_PER_TENANT}).`,
        );
      }
      const created = await webhooks.createEndpoint(
        tenant.id,
        url,
        encryptSecret(deps.secretKey, secret),
        tx,
      );
      await audit.record(
        tenant.id,
        { actor, action: 'webhook-endpoint.added', target: endpointTarget(created) },
        tx,
      );
      return created;
    });
    return { row, secret };
  }

  async function endpointsOf(tenantId: number): Promise<WebhookEndpoint[]> {
    const rows = await webhooks.listEndpoints(tenantId);
    const counts = await webhooks.deliveryCounts(tenantId);
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
  }

  async function endpointOf(tenantId: number, id: number): Promise<EndpointRow> {
    const row = await webhooks.findEndpointOf(tenantId, id);
    if (!row) throw new NotFound('webhook-not-found', `No webhook endpoint with id ${id}.`);
    return row;
  }

  async function removeOf(tenantId: number, id: number, actor: string): Promise<EndpointRow> {
    const row = await endpointOf(tenantId, id);
    // its deliveries go with it (cascade): nothing is sent to a removed endpoint
    const removed = await db.$transaction(async (tx: Tx) => {
      if (!(await webhooks.deleteEndpoint(tenantId, id, tx))) return false;
      await audit.record(
        tenantId,
        { actor, action: 'webhook-endpoint.removed', target: endpointTarget(row) },
        tx,
      );
      return true;
    });
    if (!removed) throw new NotFound('webhook-not-found', `No webhook endpoint with id ${id}.`);
    return row;
  }

  /** Sends a finished delivery again, now, with the same webhook-id and a fresh retry schedule. */
  async function redeliverOf(tenantId: number, id: number, actor: string): Promise<WebhookDelivery> {
    const row = await webhooks.findDeliveryOf(tenantId, id);
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
        `Endpoint ${row.endpointId} is disabled (${row.endpoint.disabledReason ?? 'no reason recorded'}); add the receiver again.`,
      );
    }
    const now = clock.now();
    const target = `delivery #${id} (${row.event.type}, ${row.webhookId}) to ${endpointTarget(row.endpoint)}`;
    const requeued = await webhooks.requeueDelivery(tenantId, id, now, (tx) =>
      audit.record(tenantId, { actor, action: 'webhook-delivery.redelivered', target }, tx),
    );
    if (!requeued) throw new Conflict('delivery-pending', `Delivery ${id} is already pending again.`);
    return deliveryView({
      ...row,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
    });
  }

  return {
    endpointsOf,
    redeliverOf,

    async addEndpointFor(tenantId: number, tenantSlug: string, rawUrl: string, actor: string) {
      const { row, secret } = await addFor({ id: tenantId, slug: tenantSlug }, rawUrl, actor);
      const endpoint = (await endpointsOf(tenantId)).find((e) => e.id === row.id);
      if (!endpoint) throw new NotFound('webhook-not-found', `No webhook endpoint with id ${row.id}.`);
      return { endpoint, secret };
    },

    async removeEndpointOf(tenantId: number, id: number, actor: string): Promise<void> {
      await removeOf(tenantId, id, actor);
    },

    /** 404 `webhook-not-found` unless the endpoint is the tenant's. */
    async deliveriesOf(tenantId: number, endpointId: number, limit: number): Promise<WebhookDelivery[]> {
      await endpointOf(tenantId, endpointId);
      return (await webhooks.listEndpointDeliveries(tenantId, endpointId, limit)).map(deliveryView);
    },

    async addEndpoint(tenantSlug: string, rawUrl: string) {
      const tenant = await tenants.tenantBySlug(tenantSlug);
      const { row, secret } = await addFor(tenant, rawUrl, CLI_ACTOR);
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
      return endpointsOf(tenant.id);
    },

    async removeEndpoint(id: number) {
      // the operator names an endpoint by id alone: its row names the tenant
      const found = await webhooks.findEndpoint(id);
      if (!found) throw new NotFound('webhook-not-found', `No webhook endpoint with id ${id}.`);
      const row = await removeOf(found.tenantId, id, CLI_ACTOR);
      return { id, tenant: found.tenant.slug, url: row.url, removed: true as const };
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

    /** The operator's redeliver, by delivery id alone: its row names the tenant. */
    async redeliver(id: number) {
      const found = await webhooks.findDelivery(id);
      if (!found) throw new NotFound('delivery-not-found', `No webhook delivery with id ${id}.`);
      const d = await redeliverOf(found.tenantId, id, CLI_ACTOR);
      return {
        id,
        webhook_id: d.webhook_id,
        status: 'pending' as const,
        next_attempt_at: d.next_attempt_at!,
      };
    },
  };
}

export type WebhookAdminService = ReturnType<typeof createWebhookAdminService>;
