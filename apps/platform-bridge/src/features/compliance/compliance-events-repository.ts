import type { Tx } from '../../lib/db.ts';

// What the compliance events (compliance-events.ts) read, in the rollup refresh's transaction. Apart from the
// portfolio-wide read's repository, which builds on the rollup statement that writes these events.

/** A property as `compliance.status_changed` names it, with its tenant's slug. */
export interface EventProperty {
  id: number;
  ref: string;
  /** its address lines joined with commas */
  address: string;
  slug: string;
}

/**
 * The tenant's properties among `propertyIds`, when the tenant's `platform_event_webhooks` flag is on; none
 * when it is off (so no event is written).
 */
export function eventProperties(
  tx: Tx,
  tenantId: number,
  propertyIds: readonly number[],
): Promise<EventProperty[]> {
  return tx.$queryRaw<EventProperty[]>`
    SELECT p.id, p.ref, concat_ws(', ', p.line1, p.line2, p.town, p.postcode) AS address, t.slug
      FROM properties p JOIN tenants t ON t.id = p.tenant_id
      JOIN tenant_flags f ON f.tenant_id = t.id AND f.flag = 'platform_event_webhooks' AND f.enabled
     WHERE p.tenant_id = ${tenantId} AND p.id = ANY(${propertyIds}::int[])`;
}
