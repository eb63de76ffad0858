// The admin API's shapes as the page reads them (packages/contracts/src/review-queue.ts is the source of truth).
// Types only: nothing here runs.

/**
 * @typedef {'deal' | 'compliance_update' | 'financial_log'} ProposalKind
 * @typedef {'pending_review' | 'approved' | 'rejected' | 'expired' | 'withdrawn'} ProposalStatus
 * @typedef {string | number | boolean | null} DiffValue
 * @typedef {{ path: string, from: DiffValue, to: DiffValue }} DiffEntry
 * @typedef {{ code: string, message: string }} ReviewWarning
 * @typedef {{ line1: string, line2?: string | null, town: string, county?: string | null, postcode: string }} Address
 * @typedef {{ id: number, ref: string, address: Address }} ReviewProperty
 * @typedef {{ type: 'deal' | 'compliance_item' | 'financial_log', id: number }} RecordRef
 * @typedef {{
 *   proposal_id: number,
 *   kind: ProposalKind,
 *   status: ProposalStatus,
 *   summary: string,
 *   payload: Record<string, unknown>,
 *   review_notes: string | null,
 *   submitted_by: string,
 *   created_at: string,
 *   expires_at: string,
 *   decided_at: string | null,
 *   decided_by: string | null,
 *   decision_note: string | null,
 *   property: ReviewProperty | null,
 *   diff: DiffEntry[],
 *   warnings: ReviewWarning[],
 *   record: RecordRef | null,
 * }} ReviewItem
 * @typedef {{ can_decide: boolean, items: ReviewItem[], next_cursor: string | null }} ReviewQueueResponse
 * @typedef {{ proposal_id: number, status: 'approved', record: RecordRef }} ApproveResponse
 * @typedef {{ proposal_id: number, status: 'rejected' }} RejectResponse
 * @typedef {{
 *   at: string, actor: string, action: string,
 *   from_status: ProposalStatus | null, to_status: ProposalStatus, note: string | null, channel: 'rest' | 'mcp'
 * }} AuditEntry
 * @typedef {{ proposal_id: number, entries: AuditEntry[] }} AuditResponse
 */

export {};
