import type { ComplianceType, PlatformEvent } from '@pa/contracts';
import type { Clock } from '../../lib/clock.ts';
import type { Tx } from '../../lib/db.ts';
import { recordTenantEvents } from '../webhooks/record-events.ts';
import { COMPLIANCE_TYPE_NAME, formatPence } from './proposal-summary.ts';
import type { DecidedRow, ProposalsRepository, TenantProposal } from './proposals-repository.ts';

// The signed events of proposal decisions (docs/bridge-api.md): `proposal.approved`, `proposal.rejected` and
// `proposal.expired`, written to the outbox in the transaction that decides the proposals, so an event exists if
// and only if the decision committed. Each carries a label in words for the assistant to repeat.

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

/** The events of decisions, looked up through the proposals' repository and stamped with the clock's time. */
export function createProposalEvents(deps: { proposals: ProposalsRepository; clock: Clock }) {
  const { proposals, clock } = deps;
  return {
    /**
     * Writes the events of proposals just decided (each named with its tenant), in the caller's transaction
     * (after their status was written). Nothing is written for a tenant whose `platform_event_webhooks` flag is off.
     */
    async recordDecisions(tx: Tx, decided: readonly TenantProposal[]): Promise<void> {
      if (decided.length === 0) return;
      const rows = await proposals.decidedForEvents(decided, tx);
      if (rows.length === 0) return;
      const timestamp = clock.now().toISOString();
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
    },
  };
}
export type ProposalEvents = ReturnType<typeof createProposalEvents>;
