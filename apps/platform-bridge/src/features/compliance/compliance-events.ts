import type { ComplianceStatus, ComplianceType, PlatformEvent } from '@pa/contracts';
import type { Tx } from '../../lib/db.ts';
import { recordTenantEvents } from '../webhooks/record-events.ts';
import { eventProperties } from './compliance-events-repository.ts';

// `compliance.status_changed` (docs/bridge-api.md): an item the rollup refresh saw enter `expiring_soon` or `expired`
// (rollup-statement.ts notes each item's status, so a transition is sent once per item and status), written to
// the outbox in the refresh's transaction. Nothing is written for a tenant whose events are off.

export interface Transition {
  item_id: number;
  property_id: number;
  type: ComplianceType;
  previous_status: ComplianceStatus;
  status: 'expiring_soon' | 'expired';
  /** the next due date, else the expiry date (YYYY-MM-DD) */
  due: string | null;
}

export async function recordComplianceTransitions(
  tx: Tx,
  tenantId: number,
  transitions: readonly Transition[],
): Promise<void> {
  if (transitions.length === 0) return;
  const properties = await eventProperties(tx, tenantId, [...new Set(transitions.map((t) => t.property_id))]);
  if (properties.length === 0) return;
  const byId = new Map(properties.map((p) => [p.id, p]));
  const timestamp = new Date().toISOString();
  await recordTenantEvents(
    tx,
    transitions.flatMap((t) => {
      const p = byId.get(t.property_id);
      if (!p) return [];
      const event: PlatformEvent = {
        type: 'compliance.status_changed',
        timestamp,
        data: {
          tenant_slug: p.slug,
          property_id: p.id,
          property_ref: p.ref,
          address: p.address.slice(0, 300),
          item_id: t.item_id,
          compliance_type: t.type,
          previous_status: t.previous_status,
          status: t.status,
          expiry_date: t.due,
        },
      };
      return [{ tenantId, event }];
    }),
  );
}
