import type { NamedStatement, StatementRunner } from '../../lib/db.ts';

// The sender's statements on webhook_deliveries. A claim takes due deliveries with FOR UPDATE SKIP LOCKED (so
// concurrent senders never take the same row), counts the attempt and sets a lease with a fresh token; each
// outcome is written only while that token still holds, so a sender whose lease ran out (it hung or the process
// died) cannot overwrite what the sender that took over wrote. Timestamps cross as ISO strings and epoch ms.

export interface ClaimedDelivery {
  id: number;
  webhook_id: string;
  tenant_id: number;
  attempts: number;
  body: string;
  endpoint_id: number;
  url: string;
  secret: string; // base64 of the encrypted secret
  /** the W3C traceparent of the change that recorded the event (tracing on), else null */
  traceparent: string | null;
}

const CLAIM: NamedStatement = {
  name: 'webhooks_claim',
  text: `
WITH due AS (
  SELECT d.id FROM webhook_deliveries d
  WHERE d.status = 'pending' AND d.next_attempt_at <= $1::timestamptz
    AND (d.locked_until IS NULL OR d.locked_until <= $1::timestamptz)
  ORDER BY d.next_attempt_at, d.id
  LIMIT $2
  FOR UPDATE OF d SKIP LOCKED
)
UPDATE webhook_deliveries d
SET locked_until = $1::timestamptz + make_interval(secs => $3::float8 / 1000), lock_token = $4,
    attempts = d.attempts + 1, last_attempt_at = $1::timestamptz
FROM due, platform_events e, webhook_endpoints w
WHERE d.id = due.id AND e.id = d.event_id AND w.id = d.endpoint_id
RETURNING d.id, d.webhook_id, d.tenant_id, d.attempts, e.payload::text AS body, w.id AS endpoint_id, w.url,
          encode(w.secret_encrypted, 'base64') AS secret, e.traceparent`,
};

const SUCCEEDED: NamedStatement = {
  name: 'webhooks_succeeded',
  text: `
UPDATE webhook_deliveries
SET status = 'succeeded', delivered_at = $3::timestamptz, last_status_code = $4, last_error = NULL,
    locked_until = NULL, lock_token = NULL
WHERE id = $1 AND lock_token = $2
RETURNING id`,
};

// $5: when to try again, or null for a delivery out of attempts (failed)
const FAILED_ATTEMPT: NamedStatement = {
  name: 'webhooks_failed_attempt',
  text: `
UPDATE webhook_deliveries
SET status = CASE WHEN $5::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
    next_attempt_at = COALESCE($5::timestamptz, next_attempt_at),
    last_status_code = $3, last_error = $4, locked_until = NULL, lock_token = NULL
WHERE id = $1 AND lock_token = $2
RETURNING id`,
};

// 410 Gone: the receiver asks not to be sent anything more. The endpoint is disabled and its deliveries still
// waiting fail with it (a redelivery after the endpoint is enabled again sends them).
const GONE: NamedStatement = {
  name: 'webhooks_gone',
  text: `
WITH mine AS (
  SELECT endpoint_id FROM webhook_deliveries WHERE id = $1 AND lock_token = $2
), endpoint AS (
  UPDATE webhook_endpoints w
  SET enabled = false, disabled_at = $3::timestamptz, disabled_reason = 'the receiver answered 410 Gone'
  FROM mine WHERE w.id = mine.endpoint_id
  RETURNING w.id
)
UPDATE webhook_deliveries d
SET status = 'failed', locked_until = NULL, lock_token = NULL,
    last_status_code = CASE WHEN d.id = $1 THEN 410 ELSE d.last_status_code END,
    last_error = CASE WHEN d.id = $1 THEN 'HTTP 410 Gone: endpoint disabled' ELSE 'endpoint disabled (410 Gone)' END
FROM endpoint
WHERE d.endpoint_id = endpoint.id AND d.status = 'pending'
RETURNING d.id`,
};

// When the sender should look again: the earliest moment a pending delivery becomes claimable.
const NEXT_DUE: NamedStatement = {
  name: 'webhooks_next_due',
  text: `
SELECT (extract(epoch FROM min(greatest(next_attempt_at, COALESCE(locked_until, next_attempt_at)))) * 1000)::float8
       AS at_ms
FROM webhook_deliveries WHERE status = 'pending'`,
};

export function createDeliveryStatements(run: StatementRunner) {
  return {
    claim: (now: Date, limit: number, leaseMs: number, token: string) =>
      run<ClaimedDelivery>(CLAIM, [now.toISOString(), limit, leaseMs, token]),
    async succeeded(id: number, token: string, at: Date, status: number): Promise<boolean> {
      return (await run(SUCCEEDED, [id, token, at.toISOString(), status])).length > 0;
    },
    async failedAttempt(
      id: number,
      token: string,
      status: number | null,
      error: string,
      retryAt: Date | null,
    ): Promise<boolean> {
      return (
        (await run(FAILED_ATTEMPT, [id, token, status, error.slice(0, 500), retryAt?.toISOString() ?? null]))
          .length > 0
      );
    },
    async gone(id: number, token: string, at: Date): Promise<number> {
      return (await run(GONE, [id, token, at.toISOString()])).length;
    },
    async nextDueMs(): Promise<number | null> {
      const [row] = await run<{ at_ms: number | null }>(NEXT_DUE, []);
      return row?.at_ms ?? null;
    },
  };
}

export type DeliveryStatements = ReturnType<typeof createDeliveryStatements>;
