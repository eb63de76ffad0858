import { z } from 'zod';
import { text } from './text.ts';
import { IsoDate, IsoDateTime, intNumber, PositiveId } from './params.ts';
import { enumField, intField, optionalField, queryFields } from './query-fields.ts';

// The read-only bridge, /api/assistant-bridge/*. JSON is snake_case; money is integer pence (GBP).

export const PropertyType = z.enum(['flat', 'house', 'maisonette', 'bungalow', 'studio', 'hmo', 'block']);
export const Tenure = z.enum(['freehold', 'leasehold', 'share_of_freehold', 'commonhold']);
export const Furnishing = z.enum(['furnished', 'part_furnished', 'unfurnished']);
export const HmoLicenceType = z.enum(['mandatory', 'additional', 'selective']);
export const EpcRating = z.enum(['A', 'B', 'C', 'D', 'E', 'F', 'G']);
export const LettingStatus = z.enum(['to_let', 'under_offer', 'let', 'notice_given', 'void', 'withdrawn']);
export const ManagementType = z.enum(['managed', 'rent_collection', 'let_only']);
export const RentFrequency = z.enum(['weekly', 'monthly', 'annually']);
export const DepositScheme = z.enum(['tds', 'dps', 'mydeposits']);
export const TenancyStatus = z.enum(['pending', 'active', 'notice_given', 'ended']);

export const ComplianceType = z.enum([
  'gas_safety',
  'eicr',
  'epc',
  'smoke_co_alarms',
  'hmo_licence',
  'legionella_risk_assessment',
  'fire_risk_assessment',
  'deposit_protection',
  'right_to_rent',
  'pat',
]);
export const ComplianceStatus = z.enum(['valid', 'expiring_soon', 'expired', 'missing']);
export const ComplianceOutcome = z.enum(['pass', 'fail', 'satisfactory', 'unsatisfactory']);
/** Whether the tenant was given their copy of a record that must be served (docs/rules-england-2026.md). */
export const TenantCopyStatus = z.enum(['served', 'due', 'overdue']);
/** What an item's due date is: a certificate's expiry, a check's next due date, or a deadline to act. */
export const DueKind = z.enum(['expiry', 'next_check', 'protect_by']);

export const DealType = z.enum(['acquisition', 'disposal', 'letting', 'management_instruction', 'refinance']);
export const DealStatus = z.enum(['open', 'won', 'lost']);
export const DealSource = z.enum(['manual', 'proposal']);

export const EmailCategory = z.enum([
  'maintenance',
  'arrears',
  'compliance',
  'viewing',
  'offer',
  'invoice',
  'council',
  'legal',
  'other',
]);

export const Address = z.strictObject({
  line1: text(),
  line2: text().nullable(),
  town: text(),
  county: text().nullable(),
  postcode: text(),
});

export const ComplianceCounts = z.strictObject({
  valid: z.number().int().min(0),
  expiring_soon: z.number().int().min(0),
  expired: z.number().int().min(0),
  missing: z.number().int().min(0),
});

// ---- portfolio ----------------------------------------------------------------------------------------------

export const Cursor = text().regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not a cursor returned by this API');

// Keyset pages: the same bounds for every list.
const pageFields = (items: string) => ({
  limit: intField({ min: 1, max: 500, default: 100, description: `${items} per page` }),
  cursor: optionalField(Cursor, '`next_cursor` from the previous page; omit for the first page'),
});

const portfolioFields = queryFields(pageFields('properties'));
export const PortfolioQuery = portfolioFields.query;
/** The portfolio query as typed arguments (tools, the gateway's client); the bridge's defaults apply. */
export const PortfolioArgs = portfolioFields.args;

export const PortfolioProperty = z.strictObject({
  id: z.number().int().positive(),
  ref: text(),
  address: Address,
  property_type: PropertyType,
  bedrooms: z.number().int().min(0),
  letting_status: LettingStatus,
  is_hmo: z.boolean(),
  compliance_status: ComplianceStatus,
  rent_pence: z.number().int().min(0).nullable().describe('rent of the current tenancy, null when none'),
  rent_frequency: RentFrequency.nullable(),
  arrears_pence: z.number().int().min(0).describe('rent arrears of the property, 0 when none'),
  arrears_30_days_ago_pence: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe(
      'the property’s arrears as they stood 30 days before today (the newest history row on or before that day); null when not known (the history began later)',
    ),
  units_total: z
    .number()
    .int()
    .min(0)
    .describe('lettable units (1 for a single let, more for an HMO or block)'),
  units_occupied: z.number().int().min(0),
  tenancy_status: TenancyStatus.nullable().describe('status of the current tenancy, null when none'),
  tenancy_end_date: IsoDate.nullable().describe(
    'end date of the current tenancy; null when there is none or it has no end date (periodic, open-ended)',
  ),
  tenancy_is_periodic: z
    .boolean()
    .nullable()
    .describe('whether the current tenancy is periodic, null when none'),
  tenancy_fixed_term_end_date: IsoDate.nullable().describe(
    'end of the current tenancy’s original fixed term, history only: it no longer ends the tenancy',
  ),
  tenancy_notice_given_on: IsoDate.nullable().describe(
    'when a notice to end the current tenancy was given, null when none',
  ),
  tenancy_possession_date: IsoDate.nullable().describe(
    'the date possession is due under an order or agreement, null when none',
  ),
  tenancy_last_rent_increase_on: IsoDate.nullable().describe(
    'when the current tenancy’s last rent increase took effect, null when never',
  ),
  tenancy_earliest_next_increase_on: IsoDate.nullable().describe(
    'earliest date a section 13 rent increase may take effect (52 weeks after the start or the last increase)',
  ),
});

export const PortfolioSummary = z.strictObject({
  properties_total: z.number().int().min(0),
  units_total: z.number().int().min(0),
  units_occupied: z.number().int().min(0),
  units_vacant: z.number().int().min(0),
  occupancy_rate: z
    .number()
    .min(0)
    .max(1)
    .describe('units_occupied / units_total, 4 decimals; 0 when no units'),
  rent_roll_monthly_pence: z
    .number()
    .int()
    .min(0)
    .describe('monthly equivalent of the current tenancies’ rent (weekly × 52 / 12, annual / 12)'),
  arrears_pence: z.number().int().min(0),
  compliance: ComplianceCounts.describe(
    'compliance items across the portfolio by status; `missing` counts required types with no item',
  ),
  open_deals: z.number().int().min(0),
  pipeline_value_pence: z.number().int().min(0).describe('sum of the open deals’ value'),
});

export const PortfolioResponse = z.strictObject({
  tenant: z.strictObject({ slug: text(), name: text() }),
  as_of: IsoDateTime,
  summary: PortfolioSummary,
  properties: z.array(PortfolioProperty),
  next_cursor: text().nullable(),
});

// ---- property -----------------------------------------------------------------------------------------------

export const PropertyIdParams = z.strictObject({ id: PositiveId });

export const Deposit = z.strictObject({
  amount_pence: z.number().int().min(0),
  scheme: DepositScheme.nullable(),
  received_at: IsoDate.nullable().describe('when the deposit was received'),
  protected_at: IsoDate.nullable(),
  protection_due_date: IsoDate.nullable().describe(
    'deadline to protect a deposit not yet protected (30 days from receipt); null once protected',
  ),
  prescribed_info_served_at: IsoDate.nullable(),
});

export const RentReview = z.strictObject({
  last_increase_on: IsoDate.nullable().describe('when the last rent increase took effect, null when never'),
  earliest_next_increase_on: IsoDate.describe(
    'earliest date the next increase may take effect under section 13: 52 weeks after the start, or after the last increase (before 1 May 2026, not within a fixed term)',
  ),
});

export const Tenancy = z.strictObject({
  status: TenancyStatus,
  start_date: IsoDate,
  end_date: IsoDate.nullable().describe(
    'when the tenancy ends or ended: the possession date, else the end a notice gives; null when nothing ends it (periodic)',
  ),
  is_periodic: z
    .boolean()
    .describe('true for every current tenancy from 1 May 2026 (Renters’ Rights Act 2025, England)'),
  fixed_term_end_date: IsoDate.nullable().describe(
    'end of the original fixed term, history only: from 1 May 2026 it does not end the tenancy',
  ),
  notice_given_on: IsoDate.nullable().describe('when a notice to end the tenancy was given, null when none'),
  possession_date: IsoDate.nullable().describe(
    'the date possession is due under an order or agreement, null when none',
  ),
  rent_pence: z.number().int().min(0),
  rent_frequency: RentFrequency,
  rent_review: RentReview,
  deposit: Deposit.nullable(),
});

export const ComplianceSummary = ComplianceCounts.extend({ status: ComplianceStatus });

export const Property = z.strictObject({
  id: z.number().int().positive(),
  ref: text(),
  address: Address,
  uprn: text().nullable(),
  property_type: PropertyType,
  bedrooms: z.number().int().min(0),
  bathrooms: z.number().int().min(0),
  tenure: Tenure,
  furnishing: Furnishing,
  council_tax_band: text().nullable(),
  local_authority: text(),
  is_hmo: z.boolean(),
  hmo_licence_type: HmoLicenceType.nullable(),
  max_occupants: z.number().int().min(0).nullable(),
  has_gas: z.boolean(),
  epc: z
    .strictObject({ rating: EpcRating, score: z.number().int().min(1).max(150), valid_until: IsoDate })
    .nullable(),
  letting_status: LettingStatus,
  management_type: ManagementType,
  units_total: z.number().int().min(0),
  units_occupied: z.number().int().min(0),
  current_tenancy: Tenancy.nullable(),
  arrears_pence: z.number().int().min(0),
  arrears_30_days_ago_pence: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe(
      'the property’s arrears as they stood 30 days before today (the newest history row on or before that day); null when not known (the history began later)',
    ),
  compliance_summary: ComplianceSummary,
  updated_at: IsoDateTime,
});

// ---- compliance ---------------------------------------------------------------------------------------------

export const ComplianceItem = z.strictObject({
  id: z.number().int().positive(),
  property_id: z.number().int().positive(),
  type: ComplianceType,
  is_statutory: z.boolean(),
  reference_number: text().nullable(),
  issue_date: IsoDate.nullable(),
  expiry_date: IsoDate.nullable(),
  next_due_date: IsoDate.nullable(),
  outcome: ComplianceOutcome.nullable(),
  rating: EpcRating.nullable(),
  eicr_codes: z
    .strictObject({
      c1: z.number().int().min(0),
      c2: z.number().int().min(0),
      c3: z.number().int().min(0),
      fi: z.number().int().min(0),
    })
    .nullable(),
  remedial_due_date: IsoDate.nullable(),
  exemption_valid_until: IsoDate.nullable().describe('registered PRS exemption for an EPC below E'),
  contractor: z
    .strictObject({
      name: text().nullable(),
      company: text().nullable(),
      scheme: text().nullable(),
      registration_number: text().nullable(),
    })
    .nullable(),
  served_to_tenant_at: IsoDate.nullable(),
  tenant_copy_due_date: IsoDate.nullable().describe(
    'by when the tenant must have a copy (gas safety record, EICR: 28 days after the check, or before a later move-in); null for other types or with no tenancy',
  ),
  tenant_copy_status: TenantCopyStatus.nullable().describe(
    'whether that copy was served: `due` until tenant_copy_due_date, then `overdue`; null when no copy is owed',
  ),
  notes: text().nullable(),
  status: ComplianceStatus.exclude(['missing']),
  due_date: IsoDate.nullable().describe('the date days_until_due counts to, null when nothing is due'),
  due_kind: DueKind.nullable().describe(
    'what due_date is: `expiry` of a certificate, `next_check` of a check, `protect_by` a deadline to act',
  ),
  days_until_due: z
    .number()
    .int()
    .nullable()
    .describe('calendar days from today (Europe/London) to the due date; negative when overdue'),
});

export const ComplianceResponse = z.strictObject({
  property_id: z.number().int().positive(),
  as_of: IsoDateTime,
  status: ComplianceStatus,
  items: z.array(ComplianceItem),
  missing: z.array(ComplianceType),
});

// ---- compliance across the portfolio ------------------------------------------------------------------------

/** The statuses the portfolio-wide compliance read can ask for: everything that is not valid. */
export const ATTENTION_STATUSES = ['expired', 'expiring_soon', 'missing'] as const;
export const AttentionStatus = z.enum(ATTENTION_STATUSES, {
  error: `must be a comma-separated list of ${ATTENTION_STATUSES.join(', ')}`,
});
const attentionList = z.array(AttentionStatus).min(1).max(ATTENTION_STATUSES.length);
const statusDescription = `which statuses to return: a comma-separated list of ${ATTENTION_STATUSES.join(', ')}`;

// A comma list in the query string, an array as an argument (the client sends the array joined with commas);
// both default to all three statuses, and duplicates collapse.
const attentionField = {
  query: text()
    .max(64)
    .transform((s) => s.split(','))
    .pipe(attentionList)
    .transform((list) => ATTENTION_STATUSES.filter((s) => list.includes(s)))
    .default([...ATTENTION_STATUSES])
    .describe(`${statusDescription} (default all three)`),
  arg: attentionList.optional().describe(`${statusDescription} (default all three)`),
};

const portfolioComplianceFields = queryFields({ status: attentionField, ...pageFields('properties') });
export const PortfolioComplianceQuery = portfolioComplianceFields.query;
export const PortfolioComplianceArgs = portfolioComplianceFields.args;

export const PropertyComplianceAttention = z.strictObject({
  property_id: z.number().int().positive(),
  ref: text(),
  status: ComplianceStatus.exclude(['valid']).describe(
    'the property’s own status, its worst item or missing type (as `GET /properties/{id}/compliance` says)',
  ),
  items: z
    .array(ComplianceItem)
    .describe(
      'the property’s items whose status is one of those asked for, by type (as the per-property read)',
    ),
  missing: z
    .array(ComplianceType)
    .describe('the required types with no item, when `missing` was asked for (else empty)'),
});

export const PortfolioComplianceResponse = z.strictObject({
  as_of: IsoDateTime,
  status: z.array(AttentionStatus).describe('the statuses this answer covers'),
  properties: z.array(PropertyComplianceAttention),
  next_cursor: text().nullable(),
});

// ---- tenant copies owed across the portfolio ---------------------------------------------------------------

/** The tenant-copy statuses the portfolio-wide read can ask for: copies not yet served. */
export const OWED_COPY_STATUSES = ['due', 'overdue'] as const;
export const OwedCopyStatus = z.enum(OWED_COPY_STATUSES, {
  error: `must be a comma-separated list of ${OWED_COPY_STATUSES.join(', ')}`,
});
const owedCopyList = z.array(OwedCopyStatus).min(1).max(OWED_COPY_STATUSES.length);
const owedCopyDescription = `which copies to return: a comma-separated list of ${OWED_COPY_STATUSES.join(', ')}`;

// As the compliance read's `status`: a comma list in the query string, an array as an argument; default overdue
// only (the copies already late), duplicates collapse.
const owedCopyField = {
  query: text()
    .max(32)
    .transform((s) => s.split(','))
    .pipe(owedCopyList)
    .transform((list) => OWED_COPY_STATUSES.filter((s) => list.includes(s)))
    .default(['overdue'])
    .describe(`${owedCopyDescription} (default overdue)`),
  arg: owedCopyList.optional().describe(`${owedCopyDescription} (default overdue)`),
};

const tenantCopiesFields = queryFields({ status: owedCopyField, ...pageFields('items') });
export const TenantCopiesQuery = tenantCopiesFields.query;
export const TenantCopiesArgs = tenantCopiesFields.args;

export const TenantCopyOwed = z.strictObject({
  property_id: z.number().int().positive(),
  ref: text(),
  item: ComplianceItem.describe(
    'the gas safety record or EICR, exactly as `GET /properties/{id}/compliance` shows it; its `tenant_copy_status` is one of those asked for',
  ),
});

export const TenantCopiesResponse = z.strictObject({
  as_of: IsoDateTime,
  status: z.array(OwedCopyStatus).describe('the tenant-copy statuses this answer covers'),
  items: z.array(TenantCopyOwed),
  next_cursor: text().nullable(),
});

// ---- deals --------------------------------------------------------------------------------------------------

export const DEAL_STATUS_FILTERS = ['open', 'won', 'lost', 'all'] as const;

const dealsFields = queryFields({
  ...pageFields('deals'),
  status: enumField({ values: DEAL_STATUS_FILTERS, default: 'open', description: 'which deals' }),
});
export const DealsQuery = dealsFields.query;
export const DealsArgs = dealsFields.args;

export const Deal = z.strictObject({
  id: z.number().int().positive(),
  title: text(),
  deal_type: DealType,
  stage: text(),
  status: DealStatus,
  value_pence: z.number().int().min(0).nullable(),
  property_id: z.number().int().positive().nullable(),
  counterparty: text().nullable(),
  expected_close_date: IsoDate.nullable(),
  next_action: text().nullable(),
  next_action_due: IsoDate.nullable(),
  source: DealSource,
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});

export const DealsResponse = z.strictObject({ deals: z.array(Deal), next_cursor: text().nullable() });

// ---- email activity -----------------------------------------------------------------------------------------

/** How far back `GET /email-activity` may look, in hours. */
export const EMAIL_ACTIVITY_HOURS = { min: 1, max: 720, default: 24 } as const;
const emailActivityFields = queryFields({
  hours: intField({ ...EMAIL_ACTIVITY_HOURS, description: 'how far back to look, in hours' }),
});
export const EmailActivityQuery = emailActivityFields.query;
export const EmailActivityArgs = emailActivityFields.args;

export const EmailActivity = z.strictObject({
  id: z.number().int().positive(),
  thread_id: text(),
  direction: z.enum(['inbound', 'outbound']),
  from: text(),
  to: z.array(text()),
  subject: text(),
  snippet: text().max(255),
  received_at: IsoDateTime,
  has_attachments: z.boolean(),
  category: EmailCategory,
  requires_response: z.boolean(),
  linked: z.strictObject({
    property_id: z.number().int().positive().nullable(),
    deal_id: z.number().int().positive().nullable(),
  }),
  mailbox: text(),
});

export const EmailActivityResponse = z.strictObject({
  hours: intNumber(EMAIL_ACTIVITY_HOURS.min, EMAIL_ACTIVITY_HOURS.max),
  since: IsoDateTime,
  items: z.array(EmailActivity),
});

export const MailboxesResponse = z.strictObject({
  mailboxes: z.array(z.strictObject({ address: text(), polled_by_platform: z.literal(true) })),
});

export type PortfolioResponse = z.infer<typeof PortfolioResponse>;
export type PortfolioProperty = z.infer<typeof PortfolioProperty>;
export type Property = z.infer<typeof Property>;
export type ComplianceItem = z.infer<typeof ComplianceItem>;
export type ComplianceResponse = z.infer<typeof ComplianceResponse>;
export type ComplianceType = z.infer<typeof ComplianceType>;
export type ComplianceStatus = z.infer<typeof ComplianceStatus>;
export type TenantCopyStatus = z.infer<typeof TenantCopyStatus>;
export type DueKind = z.infer<typeof DueKind>;
export type RentReview = z.infer<typeof RentReview>;
export type PortfolioComplianceResponse = z.infer<typeof PortfolioComplianceResponse>;
export type PropertyComplianceAttention = z.infer<typeof PropertyComplianceAttention>;
export type AttentionStatus = z.infer<typeof AttentionStatus>;
export type PortfolioComplianceArgs = z.input<typeof PortfolioComplianceArgs>;
export type OwedCopyStatus = z.infer<typeof OwedCopyStatus>;
export type TenantCopyOwed = z.infer<typeof TenantCopyOwed>;
export type TenantCopiesResponse = z.infer<typeof TenantCopiesResponse>;
export type TenantCopiesArgs = z.input<typeof TenantCopiesArgs>;
export type Deal = z.infer<typeof Deal>;
export type DealsResponse = z.infer<typeof DealsResponse>;
export type EmailActivity = z.infer<typeof EmailActivity>;
export type EmailActivityResponse = z.infer<typeof EmailActivityResponse>;
export type MailboxesResponse = z.infer<typeof MailboxesResponse>;
export type PortfolioArgs = z.input<typeof PortfolioArgs>;
export type DealsArgs = z.input<typeof DealsArgs>;
export type EmailActivityArgs = z.input<typeof EmailActivityArgs>;
