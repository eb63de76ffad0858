import type { WorkerEvent } from '@pa/contracts';
import type { Db } from '../../lib/db.ts';

type WorkerEventRow = NonNullable<Awaited<ReturnType<Db['workerEvent']['findFirst']>>>;

/** A platform event as a worker's feed answers it; its `seq` stays behind as the page cursor. */
export function toWorkerEvent(r: WorkerEventRow): WorkerEvent {
  return {
    id: r.id,
    webhookId: r.webhookId,
    type: r.type as WorkerEvent['type'],
    tenantSlug: r.tenantSlug,
    message: r.message,
    occurredAt: r.occurredAt.toISOString(),
    receivedAt: r.receivedAt.toISOString(),
    data: r.data as Record<string, unknown>,
  };
}
