import type { PlatformEvent, WorkerEvent } from '@pa/contracts';
import type { Db } from '../../lib/db.ts';
import { toWorkerEvent } from './platform-event-mapper.ts';

// The ingress's receipts (one per `webhook-id`, 7 days) and the workers' event feeds. A worker is always read
// through its workspace, like every worker route.

export interface TakenIn {
  duplicate: boolean;
  /** the workers bound to the event's tenant, each now holding the event */
  workerIds: string[];
}

export function createPlatformEventsRepository(db: Db) {
  return {
    /**
     * One transaction: the receipt, then the event stored for every worker bound to the tenant (for
     * `knowledge.changed`, a sync of their copies asked for instead). A `webhook-id` already taken in changes
     * nothing (a retry of a delivery whose answer was lost, or a redelivery).
     */
    takeIn: (webhookId: string, event: PlatformEvent, message: string): Promise<TakenIn> =>
      db.$transaction(async (tx) => {
        const receipt = await tx.$executeRaw`
          INSERT INTO platform_event_receipts (webhook_id) VALUES (${webhookId}) ON CONFLICT DO NOTHING`;
        if (receipt === 0) return { duplicate: true, workerIds: [] };
        if (event.type === 'knowledge.changed') {
          // not for the feed: it asks for a sync of every copy of the tenant's corpus (knowledge-syncer.ts), which
          // a process running the sync takes up even if this one stops before syncing itself
          const asked = await tx.$queryRaw<{ workerId: string }[]>`
            INSERT INTO knowledge_sync_states (worker_id, tenant_slug, requested_at)
            SELECT worker_id, tenant_slug, now() FROM platform_bindings WHERE tenant_slug = ${event.data.tenant_slug}
            ON CONFLICT (worker_id) DO UPDATE SET requested_at = now()
            RETURNING worker_id::text AS "workerId"`;
          return { duplicate: false, workerIds: asked.map((r) => r.workerId) };
        }
        const rows = await tx.$queryRaw<{ workerId: string }[]>`
          INSERT INTO worker_events (id, worker_id, webhook_id, type, tenant_slug, message, data, occurred_at)
          SELECT gen_random_uuid(), b.worker_id, ${webhookId}, ${event.type}, ${event.data.tenant_slug},
                 ${message}, ${JSON.stringify(event.data)}::jsonb, ${new Date(event.timestamp)}
          FROM platform_bindings b WHERE b.tenant_slug = ${event.data.tenant_slug}
          RETURNING worker_id::text AS "workerId"`;
        return { duplicate: false, workerIds: rows.map((r) => r.workerId) };
      }),

    /** The worker's events newest first, `limit` after the cursor (a `seq`), with the next cursor. */
    async page(
      workspaceId: string,
      workerId: string,
      limit: number,
      cursor: string | undefined,
    ): Promise<{ events: WorkerEvent[]; nextCursor: string | null }> {
      const rows = await db.workerEvent.findMany({
        where: {
          workerId,
          worker: { workspaceId },
          ...(cursor ? { seq: { lt: BigInt(cursor) } } : {}),
        },
        orderBy: { seq: 'desc' },
        take: limit + 1,
      });
      const page = rows.slice(0, limit);
      return {
        events: page.map(toWorkerEvent),
        nextCursor: rows.length > limit ? String(page[page.length - 1]!.seq) : null,
      };
    },

    /** Forgets receipts older than `before` (a delivery is never retried after 7 days). */
    async sweepReceipts(before: Date): Promise<number> {
      const { count } = await db.platformEventReceipt.deleteMany({ where: { receivedAt: { lt: before } } });
      return count;
    },
  };
}
export type PlatformEventsRepository = ReturnType<typeof createPlatformEventsRepository>;
