import type { Db, Tx } from '../../lib/db.ts';
import { WEBHOOK_CHANNEL } from './record-events.ts';

// The reads and writes of webhook endpoints and deliveries by the operator and the tenant's admins. Every query
// names the tenant first, except the two lookups the CLI makes with an id alone (`webhooks remove --id`,
// `webhooks redeliver --id`): the operator runs them across tenants, and the row names its tenant, which the
// change itself is then scoped by.
export function createWebhookAdminRepository(db: Db) {
  return {
    findEndpointByUrl: (tenantId: number, url: string, tx: Tx | Db = db) =>
      tx.webhookEndpoint.findFirst({ where: { tenantId, url } }),

    countEndpoints: (tenantId: number, tx: Tx | Db = db) => tx.webhookEndpoint.count({ where: { tenantId } }),

    createEndpoint: (
      tenantId: number,
      url: string,
      secretEncrypted: Uint8Array<ArrayBuffer>,
      tx: Tx | Db = db,
    ) => tx.webhookEndpoint.create({ data: { tenantId, url, secretEncrypted } }),

    /** One of the tenant's endpoints, or null (another tenant's too). */
    findEndpointOf: (tenantId: number, id: number) =>
      db.webhookEndpoint.findFirst({ where: { tenantId, id } }),

    /** One of the tenant's deliveries with its endpoint and event type, or null (another tenant's too). */
    findDeliveryOf: (tenantId: number, id: number) =>
      db.webhookDelivery.findFirst({
        where: { tenantId, id },
        include: { endpoint: true, event: { select: { type: true } } },
      }),

    /** An endpoint's latest deliveries, newest first. */
    listEndpointDeliveries: (tenantId: number, endpointId: number, limit: number) =>
      db.webhookDelivery.findMany({
        where: { tenantId, endpointId },
        include: { event: { select: { type: true } } },
        orderBy: { id: 'desc' },
        take: limit,
      }),

    listEndpoints: (tenantId: number) =>
      db.webhookEndpoint.findMany({ where: { tenantId }, orderBy: { id: 'asc' } }),

    /** How many deliveries each of the tenant's endpoints has in each status. */
    deliveryCounts: (tenantId: number) =>
      db.webhookDelivery.groupBy({
        by: ['endpointId', 'status'],
        where: { tenantId },
        _count: { _all: true },
      }),

    listDeliveries: (tenantId: number, status: string | undefined, limit: number) =>
      db.webhookDelivery.findMany({
        where: { tenantId, ...(status ? { status } : {}) },
        include: { event: { select: { type: true } }, endpoint: { select: { url: true } } },
        orderBy: { id: 'desc' },
        take: limit,
      }),

    /** By id alone (the operator's): the endpoint with its tenant. */
    findEndpoint: (id: number) => db.webhookEndpoint.findUnique({ where: { id }, include: { tenant: true } }),

    /** The tenant's endpoint; its deliveries go with it (cascade). False when there was none to delete. */
    deleteEndpoint: async (tenantId: number, id: number, tx: Tx | Db = db): Promise<boolean> =>
      (await tx.webhookEndpoint.deleteMany({ where: { tenantId, id } })).count > 0,

    /** By id alone (the operator's): the delivery with its endpoint. */
    findDelivery: (id: number) =>
      db.webhookDelivery.findUnique({ where: { id }, include: { endpoint: true } }),

    /**
     * Makes a finished delivery of the tenant pending again, due `now`, with a fresh retry schedule, runs `also` in
     * the same transaction (its audit entry), and wakes the senders at commit; false when it is pending already
     * (another redeliver, or it was never finished).
     */
    requeueDelivery: (tenantId: number, id: number, now: Date, also: (tx: Tx) => Promise<void>) =>
      db.$transaction(async (tx) => {
        const updated = await tx.webhookDelivery.updateMany({
          where: { tenantId, id, status: { not: 'pending' } },
          data: { status: 'pending', attempts: 0, nextAttemptAt: now, lockedUntil: null, lockToken: null },
        });
        if (updated.count === 0) return false;
        await also(tx);
        await tx.$queryRawUnsafe(`SELECT 1 AS notified FROM pg_notify('${WEBHOOK_CHANNEL}', '')`);
        return true;
      }),
  };
}
