import { z } from 'zod';
import { Address, Cursor } from './bridge.ts';
import { IsoDateTime, PositiveId } from './params.ts';
import {
  PROPOSAL_KINDS,
  PROPOSAL_STATUSES,
  ProposalKind,
  ProposalPayload,
  ProposalStatus,
  RecordRef,
} from './proposals.ts';
import { enumField, intField, optionalField, queryFields } from './query-fields.ts';
import { text } from './text.ts';

// The review queue: a workspace admin (`padm_` key) reads the proposals with what they would change,
// and approves or rejects them. Approval creates the record in the same transaction as the status change.

const reviewFields = queryFields({
  status: enumField({
    values: [...PROPOSAL_STATUSES, 'all'] as const,
    default: 'pending_review',
    description: 'which proposals',
  }),
  kind: enumField({ values: [...PROPOSAL_KINDS, 'all'] as const, default: 'all', description: 'which kind' }),
  limit: intField({ min: 1, max: 100, default: 50, description: 'proposals per page' }),
  cursor: optionalField(Cursor, '`next_cursor` from the previous page; omit for the first page'),
});
export const ReviewQueueQuery = reviewFields.query;

/** A scalar as a diff shows it; nested fields (contractor, EICR codes) appear as their own paths. */
export const DiffValue = z.union([text(), z.number(), z.boolean(), z.null()]);

export const DiffEntry = z.strictObject({
  path: text().describe('the field, e.g. `expiry_date` or `contractor/company`'),
  from: DiffValue.describe('the current record’s value; null when the record does not exist yet'),
  to: DiffValue.describe('the value approval would write'),
});

export const REVIEW_WARNING_CODES = [
  'duplicate-open-deal',
  'compliance-status-change',
  'future-date',
  'unusual-amount',
  'property-not-found',
] as const;

export const ReviewWarning = z.strictObject({
  code: z.enum(REVIEW_WARNING_CODES),
  message: text().describe(
    'one sentence for the reviewer, e.g. "Status would change from expired to valid."',
  ),
});

export const ReviewProperty = z.strictObject({
  id: z.number().int().positive(),
  ref: text(),
  address: Address,
});

export const ReviewItem = z.strictObject({
  proposal_id: z.number().int().positive(),
  kind: ProposalKind,
  status: ProposalStatus,
  summary: text().describe('one line: what the proposal would do'),
  payload: ProposalPayload,
  review_notes: text().nullable(),
  submitted_by: text().describe('the remote API key’s label'),
  created_at: IsoDateTime,
  expires_at: IsoDateTime,
  decided_at: IsoDateTime.nullable(),
  decided_by: text().nullable(),
  decision_note: text().nullable(),
  property: ReviewProperty.nullable(),
  diff: z
    .array(DiffEntry)
    .describe('against the current record where one exists (a compliance item of that type)'),
  warnings: z.array(ReviewWarning),
  record: RecordRef.nullable(),
});

export const ReviewQueueResponse = z.strictObject({
  can_decide: z
    .boolean()
    .describe(
      'whether this key may approve and reject (it has `review:write`); the page shows a read-only key the queue without the buttons',
    ),
  items: z
    .array(ReviewItem)
    .describe('oldest first while pending, so the next to expire is on top; else newest first'),
  next_cursor: text().nullable(),
});

export const ApproveRequest = z.strictObject({
  note: text().max(2000, 'must be at most 2000 characters').optional(),
  edits: z
    .record(text(), z.unknown())
    .refine((e) => Object.keys(e).length <= 30, 'must change at most 30 fields')
    .optional()
    .describe(
      'fields of the proposal’s body to change before it is applied; the edited body is validated like the original',
    ),
});

export const ApproveResponse = z.strictObject({
  proposal_id: z.number().int().positive(),
  status: z.literal('approved'),
  record: RecordRef,
});

export const RejectRequest = z.strictObject({
  reason: text().trim().min(1, 'must say why').max(2000, 'must be at most 2000 characters'),
});

export const RejectResponse = z.strictObject({
  proposal_id: z.number().int().positive(),
  status: z.literal('rejected'),
});

export const AUDIT_ACTIONS = ['submitted', 'approved', 'rejected', 'expired', 'withdrawn'] as const;

/** How the actor reached the platform: the REST API (and the review queue, the system's sweeps) or MCP. */
export const AUDIT_CHANNELS = ['rest', 'mcp'] as const;
export const AuditChannel = z.enum(AUDIT_CHANNELS);

export const AuditEntry = z.strictObject({
  at: IsoDateTime,
  actor: text().describe('the remote key’s label, the admin’s email, or `system` (expiry)'),
  action: z.enum(AUDIT_ACTIONS),
  from_status: ProposalStatus.nullable(),
  to_status: ProposalStatus,
  note: text().nullable(),
  channel: AuditChannel.describe(
    '`mcp`: submitted or withdrawn through the MCP endpoint (a general assistant); `rest`: everything else',
  ),
});

export const AuditResponse = z.strictObject({
  proposal_id: z.number().int().positive(),
  entries: z.array(AuditEntry).describe('oldest first'),
});

export const AdminProposalParams = z.strictObject({ id: PositiveId });

export type ReviewItem = z.infer<typeof ReviewItem>;
export type ReviewQueueResponse = z.infer<typeof ReviewQueueResponse>;
export type DiffEntry = z.infer<typeof DiffEntry>;
export type ReviewWarning = z.infer<typeof ReviewWarning>;
export type ApproveRequest = z.infer<typeof ApproveRequest>;
export type ApproveResponse = z.infer<typeof ApproveResponse>;
export type RejectResponse = z.infer<typeof RejectResponse>;
export type AuditEntry = z.infer<typeof AuditEntry>;
export type AuditChannel = z.infer<typeof AuditChannel>;
export type AuditResponse = z.infer<typeof AuditResponse>;
