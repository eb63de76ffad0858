import { PlatformEvent } from '@pa/contracts';
import type { RawQueryClient } from '@pa/db-tools';
import { currentTraceContext } from '@pa/telemetry';
import type { Clock } from '../../lib/clock.ts';
import { systemClock } from '../../lib/clock.ts';

/** The channel the senders LISTEN on; a NOTIFY sent inside a transaction is delivered at its commit. */
export const WEBHOOK_CHANNEL = 'platform_webhook_deliveries';

// One statement, set-based: each event's tenant flag, the events, and one delivery per event and enabled endpoint
// of its tenant (each with its own `webhook-id`, kept for every retry). Nothing is written for a tenant whose flag
// is off, and nothing at all when an event's `data.tenant_slug` is not the slug of the tenant it is filed under
// (an event must never reach another tenant's endpoints).
const RECORD_EVENTS = `
WITH input AS (
  SELECT e.tenant_id, e.type, e.payload, e.traceparent, e.n,
         t.slug IS NOT DISTINCT FROM (e.payload -> 'data' ->> 'tenant_slug') AND t.id IS NOT NULL AS slug_ok,
         EXISTS (SELECT 1 FROM tenant_flags f
                 WHERE f.tenant_id = e.tenant_id AND f.flag = 'platform_event_webhooks' AND f.enabled) AS flag_on
  FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (tenant_id int, type text, payload jsonb, traceparent text))
       WITH ORDINALITY AS e(tenant_id, type, payload, traceparent, n)
  LEFT JOIN tenants t ON t.id = e.tenant_id
), events AS (
  INSERT INTO platform_events (tenant_id, type, payload, traceparent, created_at)
  SELECT tenant_id, type, payload, traceparent, $2::timestamptz FROM input
  WHERE flag_on AND NOT EXISTS (SELECT 1 FROM input WHERE NOT slug_ok)
  ORDER BY n
  RETURNING id, tenant_id
), deliveries AS (
  INSERT INTO webhook_deliveries (tenant_id, event_id, endpoint_id, webhook_id, next_attempt_at, created_at)
  SELECT ev.tenant_id, ev.id, w.id, 'msg_' || replace(gen_random_uuid()::text, '-', ''), $2::timestamptz, $2::timestamptz
  FROM events ev JOIN webhook_endpoints w ON w.tenant_id = ev.tenant_id AND w.enabled
  RETURNING id
)
SELECT (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM deliveries)::int AS deliveries,
       (SELECT count(*) FROM input WHERE NOT slug_ok)::int AS mismatched,
       CASE WHEN (SELECT count(*) FROM deliveries) > 0 THEN (SELECT 1 FROM pg_notify('${WEBHOOK_CHANNEL}', '')) END AS notified`;

export interface RecordedEvents {
  /** events written to the outbox (none for tenants whose `platform_event_webhooks` flag is off) */
  events: number;
  /** deliveries created: one per event and enabled endpoint of its tenant */
  deliveries: number;
}

export interface TenantEvent {
  tenantId: number;
  event: PlatformEvent;
}

/**
 * Writes events of any tenants to the outbox IN THE CALLER'S TRANSACTION (pass the Prisma transaction client),
 * with one delivery per enabled endpoint, for the tenants whose `platform_event_webhooks` flag is on; the others'
 * events are not written. The senders are woken when the transaction commits. Throws — so the caller's change
 * rolls back instead of sending something wrong — when an event does not match the contract or its
 * `data.tenant_slug` is not its tenant's slug.
 */
export async function recordTenantEvents(
  tx: RawQueryClient,
  items: readonly TenantEvent[],
  clock: Clock = systemClock,
): Promise<RecordedEvents> {
  if (items.length === 0) return { events: 0, deliveries: 0 };
  // with tracing on, the deliveries continue the trace of the change recording them (webhook-sender.ts)
  const traceparent = currentTraceContext()?.traceparent ?? null;
  const rows = items.map(({ tenantId, event }) => {
    const payload = PlatformEvent.parse(event);
    return { tenant_id: tenantId, type: payload.type, payload, traceparent };
  });
  const [result] = await tx.$queryRawUnsafe<{ events: number; deliveries: number; mismatched: number }[]>(
    RECORD_EVENTS,
    JSON.stringify(rows),
    clock.now(),
  );
  if (result && result.mismatched > 0) {
    throw new Error(
      `${result.mismatched} platform event(s) name a tenant_slug other than their tenant's; none written`,
    );
  }
  return { events: result?.events ?? 0, deliveries: result?.deliveries ?? 0 };
}

/** recordTenantEvents for events of one tenant. */
export function recordEvents(
  tx: RawQueryClient,
  tenantId: number,
  events: readonly PlatformEvent[],
  clock: Clock = systemClock,
): Promise<RecordedEvents> {
  return recordTenantEvents(
    tx,
    events.map((event) => ({ tenantId, event })),
    clock,
  );
}
