import { PlatformEvent } from '@pa/contracts';
import type { RawQueryClient } from '@pa/db-tools';
import type { Clock } from '../../lib/clock.ts';
import { systemClock } from '../../lib/clock.ts';

/** The channel the senders LISTEN on; a NOTIFY sent inside a transaction is delivered at its commit. */
export const WEBHOOK_CHANNEL = 'platform_webhook_deliveries';

// One statement, set-based: the flag check, the events, and one delivery per event and enabled endpoint (each with
// its own `webhook-id`, kept for every retry). Nothing is written while the tenant's flag is off.
const RECORD_EVENTS = `
WITH enabled AS (
  SELECT 1 FROM tenant_flags WHERE tenant_id = $1 AND flag = 'platform_event_webhooks' AND enabled
), events AS (
  INSERT INTO platform_events (tenant_id, type, payload, created_at)
  SELECT $1, e.type, e.payload, $3::timestamptz
  FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (type text, payload jsonb)) WITH ORDINALITY AS e(type, payload, n)
  WHERE EXISTS (SELECT 1 FROM enabled)
  ORDER BY e.n
  RETURNING id, tenant_id
), deliveries AS (
  INSERT INTO webhook_deliveries (tenant_id, event_id, endpoint_id, webhook_id, next_attempt_at, created_at)
  SELECT ev.tenant_id, ev.id, w.id, 'msg_' || replace(gen_random_uuid()::text, '-', ''), $3::timestamptz, $3::timestamptz
  FROM events ev JOIN webhook_endpoints w ON w.tenant_id = ev.tenant_id AND w.enabled
  RETURNING id
)
SELECT (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM deliveries)::int AS deliveries,
       CASE WHEN (SELECT count(*) FROM deliveries) > 0 THEN (SELECT 1 FROM pg_notify('${WEBHOOK_CHANNEL}', '')) END AS notified`;

export interface RecordedEvents {
  /** events written to the outbox (0 when the tenant's `platform_event_webhooks` flag is off) */
  events: number;
  /** deliveries created: one per event and enabled endpoint */
  deliveries: number;
}

/**
 * Writes `events` to the outbox IN THE CALLER'S TRANSACTION (pass the Prisma transaction client), with one
 * delivery per enabled endpoint of the tenant, when its `platform_event_webhooks` flag is on; otherwise writes
 * nothing. The senders are woken when the transaction commits. Throws when an event does not match the contract,
 * so a producer's mistake rolls its change back instead of sending a malformed event.
 */
export async function recordEvents(
  tx: RawQueryClient,
  tenantId: number,
  events: readonly PlatformEvent[],
  clock: Clock = systemClock,
): Promise<RecordedEvents> {
  if (events.length === 0) return { events: 0, deliveries: 0 };
  const rows = events.map((event) => {
    const payload = PlatformEvent.parse(event);
    return { type: payload.type, payload };
  });
  const [result] = await tx.$queryRawUnsafe<{ events: number; deliveries: number }[]>(
    RECORD_EVENTS,
    tenantId,
    JSON.stringify(rows),
    clock.now(),
  );
  return { events: result?.events ?? 0, deliveries: result?.deliveries ?? 0 };
}
