import { z } from 'zod';
import { ComplianceOutcome, ComplianceType, Cursor, DealType, EpcRating } from './bridge.ts';
import { IsoDate, IsoDateTime, PositiveId, PositiveIdValue } from './params.ts';
import { enumField, intField, optionalField, queryFields } from './query-fields.ts';
import { text } from './text.ts';

// Phase 2: what an assistant may propose and how it reads its proposals back (docs/bridge-api.md). Nothing here
// creates a platform record: a proposal waits for a workspace admin's decision in the review queue.

/** Money in integer pence; the platform keeps it in a PostgreSQL `integer`. */
export const Pence = z.number().int().min(0).max(2_147_483_647, 'must be at most 2147483647 pence');

const notes = (max: number) => text().max(max, `must be at most ${max} characters`);
const line = (max: number) =>
  text().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const PROPOSAL_KINDS = ['deal', 'compliance_update', 'financial_log'] as const;
export const ProposalKind = z.enum(PROPOSAL_KINDS);
export const PROPOSAL_STATUSES = ['pending_review', 'approved', 'rejected', 'expired', 'withdrawn'] as const;
export const ProposalStatus = z.enum(PROPOSAL_STATUSES);

/** Each kind's path segment under `/proposals/` (the kinds themselves are snake_case JSON values). */
export const PROPOSAL_PATH_OF_KIND = {
  deal: 'deal',
  compliance_update: 'compliance-update',
  financial_log: 'financial-log',
} as const satisfies Record<z.infer<typeof ProposalKind>, string>;

export const FinancialDirection = z.enum(['income', 'expense']);
export const FinancialCategory = z.enum([
  'rent_received',
  'deposit_in',
  'deposit_out',
  'management_fee',
  'letting_fee',
  'repair',
  'compliance_cert',
  'insurance',
  'service_charge',
  'ground_rent',
  'utilities',
  'council_tax',
  'licence_fee',
  'other',
]);

export const EicrCodes = z.strictObject({
  c1: z.number().int().min(0).max(999),
  c2: z.number().int().min(0).max(999),
  c3: z.number().int().min(0).max(999),
  fi: z.number().int().min(0).max(999),
});

export const Contractor = z.strictObject({
  name: line(200).optional(),
  company: line(200).optional(),
  scheme: line(100).optional().describe('e.g. Gas Safe, NICEIC, NAPIT'),
  registration_number: line(50).optional(),
});

// ---- the three bodies (docs/bridge-api.md, "Proposals") --------------------------------------------------------

export const DealProposalBody = z.strictObject({
  title: line(200),
  property_id: PositiveIdValue.nullable().describe(
    'the tenant’s property the deal concerns; required, and null only for an acquisition of a property not yet on the platform',
  ),
  review_notes: notes(2000).optional().describe('why the assistant proposes it, for the reviewer'),
  deal_type: DealType.default('acquisition'),
  stage: line(100).optional().describe('e.g. appraisal, offer, marketing'),
  value_pence: Pence.optional(),
  expected_close_date: IsoDate.optional(),
  counterparty: line(200).optional(),
});

export const ComplianceUpdateProposalBody = z.strictObject({
  property_id: PositiveIdValue,
  compliance_type: ComplianceType,
  issue_date: IsoDate,
  expiry_date: IsoDate.optional().describe(
    'default: the issue date plus the type’s cycle (gas safety 12 months…)',
  ),
  reference_number: line(100).optional(),
  outcome: ComplianceOutcome.optional(),
  rating: EpcRating.optional().describe('EPC band'),
  eicr_codes: EicrCodes.optional(),
  contractor: Contractor.optional(),
  review_notes: notes(2000).optional(),
});

export const FinancialLogProposalBody = z.strictObject({
  property_id: PositiveIdValue,
  date: IsoDate,
  direction: FinancialDirection,
  category: FinancialCategory,
  net_pence: Pence,
  vat_pence: Pence.default(0),
  payee_or_payer: line(200).optional(),
  reference: line(100).optional(),
  review_notes: notes(2000).optional(),
});

/** The body schema of each kind; approving with `edits` validates the edited body with the same schema. */
export const PROPOSAL_BODY_OF_KIND = {
  deal: DealProposalBody,
  compliance_update: ComplianceUpdateProposalBody,
  financial_log: FinancialLogProposalBody,
} as const;

/** A proposal's stored payload: the body as submitted, with the defaults filled in. */
export const ProposalPayload = z.union([
  DealProposalBody,
  ComplianceUpdateProposalBody,
  FinancialLogProposalBody,
]);

// ---- answers ------------------------------------------------------------------------------------------------

export const ProposalCreated = z.strictObject({
  proposal_id: z.number().int().positive(),
  status: z.literal('pending_review'),
  kind: ProposalKind,
  created_at: IsoDateTime,
  expires_at: IsoDateTime,
});

export const RecordType = z.enum(['deal', 'compliance_item', 'financial_log']);
export const RecordRef = z.strictObject({
  type: RecordType,
  id: z.number().int().positive(),
});

export const Proposal = z.strictObject({
  proposal_id: z.number().int().positive(),
  kind: ProposalKind,
  status: ProposalStatus,
  created_at: IsoDateTime,
  expires_at: IsoDateTime,
  decided_at: IsoDateTime.nullable(),
  decision_note: text().nullable(),
  payload: ProposalPayload,
  record: RecordRef.nullable().describe('what an approval created or updated; null until approved'),
});

export const PROPOSAL_STATUS_FILTERS = [...PROPOSAL_STATUSES, 'all'] as const;

const proposalsFields = queryFields({
  status: enumField({ values: PROPOSAL_STATUS_FILTERS, default: 'all', description: 'which proposals' }),
  limit: intField({ min: 1, max: 100, default: 50, description: 'proposals per page' }),
  cursor: optionalField(Cursor, '`next_cursor` from the previous page; omit for the first page'),
});
export const ProposalsQuery = proposalsFields.query;
export const ProposalsArgs = proposalsFields.args;

export const ProposalsResponse = z.strictObject({
  proposals: z.array(Proposal).describe('newest first'),
  next_cursor: text().nullable(),
});

export const ProposalIdParams = z.strictObject({ id: PositiveId });

/** `Idempotency-Key`: 1–255 visible ASCII characters, bare or as a quoted string (RFC 8941 sf-string). */
export const IDEMPOTENCY_KEY_MAX = 255;

export type ProposalKind = z.infer<typeof ProposalKind>;
export type ProposalStatus = z.infer<typeof ProposalStatus>;
export type DealProposalBody = z.infer<typeof DealProposalBody>;
export type ComplianceUpdateProposalBody = z.infer<typeof ComplianceUpdateProposalBody>;
export type FinancialLogProposalBody = z.infer<typeof FinancialLogProposalBody>;
export type ProposalPayload = z.infer<typeof ProposalPayload>;
export type ProposalCreated = z.infer<typeof ProposalCreated>;
export type Proposal = z.infer<typeof Proposal>;
export type ProposalsResponse = z.infer<typeof ProposalsResponse>;
export type ProposalsArgs = z.input<typeof ProposalsArgs>;
export type RecordRef = z.infer<typeof RecordRef>;
