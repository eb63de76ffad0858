import type { Db } from '../../lib/db.ts';
import { WEBHOOK_CHANNEL } from './record-events.ts';

// The operator's reads and writes of webhook endpoints and deliveries. Every query names the tenant first, except
// the three the CLI makes with an id alone (`webhooks remove --id`, `webhooks redeliver --id`): the operator runs
// them across tenants, and the row names its tenant.
export function createWebhookAdminRepository(db: Db) {
  return {
    findEndpointByUrl: (tenantId: number, url: string) =>
      db.webhookEndpoint.findFirst({ where: { tenantId, url } }),

    countEndpoints: (tenantId: number) => db.webhookEndpoint.count({ where: { tenantId } }),

    createEndpoint: (tenantId: number, url: string, secretEncrypted: Uint8Array<ArrayBuffer>) =>
      db.webhookEndpoint.create({ data: { tenantId, url, secretEncrypted } }),

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

    /** By id alone (the operator's); its deliveries go with it (cascade). */
    deleteEndpoint: async (id: number) => {
      await db.webhookEndpoint.delete({ where: { id } });
    },

    /** By id alone (the operator's): the delivery with its endpoint. */
    findDelivery: (id: number) =>
      db.webhookDelivery.findUnique({ where: { id }, include: { endpoint: true } }),

    /**
     * Makes a finished delivery pending again, due `now`, with a fresh retry schedule, and wakes the senders at
     * commit; false when it is pending already (another redeliver, or it was never finished).
     */
    requeueDelivery: (id: number, now: Date) =>
      db.$transaction(async (tx) => {
        const updated = await tx.webhookDelivery.updateMany({
          where: { id, status: { not: 'pending' } },
          data: { status: 'pending', attempts: 0, nextAttemptAt: now, lockedUntil: null, lockToken: null },
        });
        if (updated.count === 0) return false;
        await tx.$queryRawUnsafe(`SELECT 1 AS notified FROM pg_notify('${WEBHOOK_CHANNEL}', '')`);
        return true;
      }),
  };
}
