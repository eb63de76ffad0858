import type { ComplianceType, PlatformEvent } from '@pa/contracts';
import type { RawQueryClient } from '@pa/db-tools';
import type { Clock } from '../../lib/clock.ts';
import { COMPLIANCE_TYPE_NAME, formatPence } from '../review-queue/proposal-summary.ts';
import { recordTenantEvents } from '../webhooks/record-events.ts';

// The signed events of proposal decisions (docs/bridge-api.md): `proposal.approved`, `proposal.rejected` and
// `proposal.expired`, written to the outbox in the transaction that decides the proposals, so an event exists if
// and only if the decision committed. Each carries a label in words for the assistant to repeat.

type DecidedRow = {
  tenant_id: number;
  tenant_slug: string;
  id: number;
  kind: 'deal' | 'compliance_update' | 'financial_log';
  status: 'approved' | 'rejected' | 'expired';
  payload: Record<string, unknown>;
  decided_at: Date | null;
  decision_note: string | null;
  record_type: 'deal' | 'compliance_item' | 'financial_log' | null;
  record_id: number | null;
  property_ref: string | null;
};

const sentenceStart = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What the proposal is about, in a few words: the deal's title, "Gas safety certificate at MAN-003"... */
export function proposalLabel(
  kind: DecidedRow['kind'],
  payload: Record<string, unknown>,
  ref: string | null,
): string {
  const at = ref ? ` at ${ref}` : '';
  switch (kind) {
    case 'deal':
      return String(payload.title ?? 'Deal').slice(0, 200);
    case 'compliance_update':
      return `${sentenceStart(COMPLIANCE_TYPE_NAME[payload.compliance_type as ComplianceType] ?? 'Compliance item')}${at}`;
    case 'financial_log': {
      const category = String(payload.category ?? 'entry').replaceAll('_', ' ');
      const gross = Number(payload.net_pence ?? 0) + Number(payload.vat_pence ?? 0);
      return `${sentenceStart(category)} ${formatPence(gross)}${at}`;
    }
  }
}

/**
 * Writes the events of proposals just decided, in the caller's transaction (after their status was written).
 * Nothing is written for a tenant whose `platform_event_webhooks` flag is off.
 */
export async function recordProposalDecisions(
  tx: RawQueryClient,
  proposalIds: readonly number[],
  clock?: Clock,
): Promise<void> {
  if (proposalIds.length === 0) return;
  const rows = await tx.$queryRawUnsafe<DecidedRow[]>(
    `SELECT p.tenant_id, t.slug AS tenant_slug, p.id, p.kind, p.status, p.payload, p.decided_at, p.decision_note,
            p.record_type, p.record_id, pr.ref AS property_ref
       FROM proposals p
       JOIN tenants t ON t.id = p.tenant_id
       JOIN tenant_flags f ON f.tenant_id = p.tenant_id AND f.flag = 'platform_event_webhooks' AND f.enabled
       LEFT JOIN properties pr ON pr.id = p.property_id AND pr.tenant_id = p.tenant_id
      WHERE p.id = ANY($1::int[]) AND p.status IN ('approved', 'rejected', 'expired')
      ORDER BY p.id`,
    proposalIds,
  );
  if (rows.length === 0) return;
  const timestamp = (clock?.now() ?? new Date()).toISOString();
  await recordTenantEvents(
    tx,
    rows.map((r) => ({
      tenantId: r.tenant_id,
      event: {
        type: `proposal.${r.status}`,
        timestamp,
        data: {
          tenant_slug: r.tenant_slug,
          proposal_id: r.id,
          kind: r.kind,
          label: proposalLabel(r.kind, r.payload, r.property_ref),
          status: r.status,
          decided_at: r.status === 'expired' || !r.decided_at ? null : r.decided_at.toISOString(),
          decision_note: r.decision_note,
          record: r.record_type && r.record_id ? { type: r.record_type, id: r.record_id } : null,
        },
      } as PlatformEvent,
    })),
    clock,
  );
}
