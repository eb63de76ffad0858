import { toDateString } from '../../lib/clock.ts';
import type { Prisma } from '../../lib/db.ts';
import type { DemoCalendar } from './demo-calendar.ts';
import type { Portfolio } from './demo-portfolio.ts';

export type DealKey =
  | 'acq-ladybarn'
  | 'disposal-ash-road'
  | 'let-wellington'
  | 'relet-derbyshire'
  | 'mgmt-clarence-dock'
  | 'refi-chesterton'
  | 'acq-stokes-croft'
  | 'let-finzels';

export type DealRow = Omit<Prisma.DealCreateManyInput, 'tenantId' | 'propertyId'> & {
  key: DealKey;
  ref: string | null;
};

export function buildDeals(cal: DemoCalendar): DealRow[] {
  const d = (offset: number) => cal.date(offset);
  return [
    {
      key: 'acq-ladybarn',
      ref: null,
      title: 'Acquisition – 52 Ladybarn Lane, Fallowfield (3-bed terrace)',
      dealType: 'acquisition',
      stage: 'conveyancing',
      status: 'open',
      valuePence: 24_500_000,
      counterparty: 'Vendor via Bridgfords, Withington',
      expectedCloseDate: d(45),
      nextAction: "Chase the local authority search with the buyer's solicitor",
      nextActionDue: d(-3),
      createdAt: cal.daysAgo(40),
      updatedAt: cal.daysAgo(3),
    },
    {
      key: 'disposal-ash-road',
      ref: 'LDS-003',
      title: 'Disposal – 7 Ash Road, Headingley',
      dealType: 'disposal',
      stage: 'offer_received',
      status: 'open',
      valuePence: 37_500_000,
      counterparty: 'Landlord: Mr and Mrs Holroyd; selling agent Headingley Property Sales',
      expectedCloseDate: d(75),
      nextAction: 'Put the £362,500 offer to the landlord and agree a response',
      nextActionDue: d(1),
      source: 'proposal',
      createdAt: cal.daysAgo(21),
      updatedAt: cal.hoursAgo(3),
    },
    {
      key: 'let-wellington',
      ref: 'BRS-005',
      title: 'New let – 15 Wellington Hill West, Henleaze',
      dealType: 'letting',
      stage: 'referencing',
      status: 'open',
      valuePence: 2_760_000,
      counterparty: 'Applicants: Dr Anna Lewis and Mark Lewis',
      expectedCloseDate: d(18),
      nextAction: 'Chase Goodlord for the outstanding employer reference and book the EICR before move-in',
      nextActionDue: d(-1),
      createdAt: cal.daysAgo(12),
      updatedAt: cal.hoursAgo(20),
    },
    {
      key: 'relet-derbyshire',
      ref: 'MAN-007',
      title: 'Re-let – 71 Derbyshire Lane, Stretford',
      dealType: 'letting',
      stage: 'viewings',
      status: 'open',
      valuePence: 1_500_000,
      counterparty: 'Rightmove and Zoopla applicants',
      expectedCloseDate: d(30),
      nextAction: "Confirm Saturday's block viewings with the three applicants",
      nextActionDue: d(1),
      createdAt: cal.daysAgo(30),
      updatedAt: cal.hoursAgo(11),
    },
    {
      key: 'mgmt-clarence-dock',
      ref: null,
      title: 'Management instruction – 4 flats at Clarence Dock, Leeds',
      dealType: 'management_instruction',
      stage: 'proposal_sent',
      status: 'open',
      valuePence: 1_056_000,
      counterparty: 'Landlord: Harbour Lane Estates Ltd',
      expectedCloseDate: d(20),
      nextAction: "Answer Harbour Lane's questions on VAT and service charges and follow up the proposal",
      nextActionDue: d(-5),
      createdAt: cal.daysAgo(14),
      updatedAt: cal.daysAgo(7),
    },
    {
      key: 'refi-chesterton',
      ref: 'LON-003',
      title: 'Refinance – 18 Chesterton Road (5-year fix)',
      dealType: 'refinance',
      stage: 'valuation',
      status: 'open',
      valuePence: 62_000_000,
      counterparty: 'Landbay via Cobalt Mortgage Brokers',
      expectedCloseDate: d(35),
      nextAction: 'Send the lender a current gas safety certificate (the one on file has expired)',
      nextActionDue: d(2),
      createdAt: cal.daysAgo(26),
      updatedAt: cal.hoursAgo(31),
    },
    {
      key: 'acq-stokes-croft',
      ref: null,
      title: 'Acquisition – 2-bed flat, Jamaica Street, Stokes Croft',
      dealType: 'acquisition',
      stage: 'offer_rejected',
      status: 'lost',
      valuePence: 21_000_000,
      counterparty: 'Vendor via Hunters, Bristol',
      expectedCloseDate: null,
      nextAction: null,
      nextActionDue: null,
      createdAt: cal.daysAgo(50),
      updatedAt: cal.daysAgo(9),
    },
    {
      key: 'let-finzels',
      ref: 'BRS-003',
      title: 'New let – Apartment 9, Finzels Reach',
      dealType: 'letting',
      stage: 'moved_in',
      status: 'won',
      valuePence: 2_040_000,
      counterparty: 'Tenant: Oliver Grant',
      expectedCloseDate: d(-24),
      nextAction: 'Register the deposit with mydeposits and serve the prescribed information',
      nextActionDue: d(6),
      createdAt: cal.daysAgo(55),
      updatedAt: cal.daysAgo(24),
    },
  ];
}

// ---- proposals ----------------------------------------------------------------------------------------

export type ProposalKind = 'deal' | 'compliance_update' | 'financial_log';
export type ProposalStatus = 'pending_review' | 'approved' | 'rejected' | 'expired' | 'withdrawn';

export interface ProposalPlan {
  kind: ProposalKind;
  status: ProposalStatus;
  /** the property the payload's `property_id` refers to */
  ref: string;
  /** the §2.5 request body without `property_id` (the seeder puts the id first) */
  body: Record<string, Prisma.InputJsonValue | null>;
  reviewNotes: string | null;
  createdAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
  decisionNote: string | null;
  /** what an approval created, resolved to an id by the seeder */
  record?:
    | { type: 'deal'; deal: DealKey }
    | { type: 'compliance_item'; complianceType: string }
    | { type: 'financial_log' };
}

export const PROPOSAL_TTL_DAYS = 14;
// Who did what, as the review queue records it: the assistant submits, a named admin decides, and the
// expiry sweep is the system.
export const ASSISTANT_ACTOR = 'assistant:Property Manager';
export const REVIEWER_ACTOR = 'admin:sarah.cole@demo-lettings.co.uk';
export const SYSTEM_ACTOR = 'system';

/** The approved financial log an assistant proposed; it is written with `sourceProposalId`. */
export const APPROVED_REPAIR = {
  ref: 'LDS-002',
  daysAgo: 37,
  direction: 'expense',
  category: 'repair',
  netPence: 21_000,
  vatPence: 4_200,
  payeeOrPayer: 'Aire Valley Heating',
  reference: 'AVH-11842',
} as const;

export function buildProposals(cal: DemoCalendar, portfolio: Portfolio): ProposalPlan[] {
  const gas = portfolio.items.find((i) => i.ref === 'LDS-002' && i.type === 'gas_safety');
  if (!gas) throw new Error('demo: LDS-002 needs a gas safety item');
  const iso = (v: unknown) => (v instanceof Date ? toDateString(v) : null);
  const decided = (daysAgo: number, by: string, note: string | null) => ({
    decidedAt: cal.daysAgo(daysAgo),
    decidedBy: by,
    decisionNote: note,
  });
  const pending = { decidedAt: null, decidedBy: null, decisionNote: null };

  return [
    {
      kind: 'deal',
      status: 'pending_review',
      ref: 'LON-007',
      body: {
        title: 'Re-let – Flat 2, 45 Hoe Street, Walthamstow',
        deal_type: 'letting',
        stage: 'appraisal',
        value_pence: 1_980_000,
        expected_close_date: cal.iso(55),
      },
      reviewNotes: "The tenant's notice ends in 40 days; start marketing now to avoid a void.",
      createdAt: cal.hoursAgo(5),
      ...pending,
    },
    {
      kind: 'compliance_update',
      status: 'pending_review',
      ref: 'BRS-002',
      body: {
        compliance_type: 'gas_safety',
        issue_date: cal.iso(-1),
        reference_number: 'CP12-611094-04571',
        outcome: 'pass',
        contractor: {
          name: 'Tom Prideaux',
          company: 'Avon Gas Services',
          scheme: 'Gas Safe',
          registration_number: '611094',
        },
      },
      reviewNotes: 'From the CP12 that Avon Gas Services emailed yesterday (attachment on the thread).',
      createdAt: cal.hoursAgo(18),
      ...pending,
    },
    {
      kind: 'financial_log',
      status: 'pending_review',
      ref: 'MAN-004',
      body: {
        date: cal.iso(-1),
        direction: 'expense',
        category: 'repair',
        net_pence: 18_500,
        vat_pence: 3_700,
        payee_or_payer: 'Kershaw Heating Ltd',
        reference: 'INV-20931',
      },
      reviewNotes: 'Invoice INV-20931: diverter valve on the Worcester combi, £185.00 + VAT £37.00.',
      createdAt: cal.hoursAgo(6),
      ...pending,
    },
    {
      kind: 'deal',
      status: 'approved',
      ref: 'LDS-003',
      body: {
        title: 'Disposal – 7 Ash Road, Headingley',
        deal_type: 'disposal',
        stage: 'marketing',
        value_pence: 37_500_000,
        expected_close_date: cal.iso(75),
        counterparty: 'Landlord: Mr and Mrs Holroyd',
      },
      reviewNotes: 'The landlord asked to sell rather than bring the EPC up from band F.',
      createdAt: cal.daysAgo(22),
      ...decided(21, REVIEWER_ACTOR, 'Agreed with the landlord on the phone.'),
      record: { type: 'deal', deal: 'disposal-ash-road' },
    },
    {
      kind: 'compliance_update',
      status: 'approved',
      ref: 'LDS-002',
      body: {
        compliance_type: 'gas_safety',
        issue_date: iso(gas.issueDate),
        expiry_date: iso(gas.expiryDate),
        reference_number: gas.referenceNumber ?? null,
        outcome: 'pass',
        contractor: {
          name: gas.contractorName ?? null,
          company: gas.contractorCompany ?? null,
          scheme: gas.contractorScheme ?? null,
          registration_number: gas.contractorRegNo ?? null,
        },
      },
      reviewNotes: 'From the CP12 emailed by Aire Valley Heating.',
      createdAt: cal.daysAgo(39),
      ...decided(38, REVIEWER_ACTOR, null),
      record: { type: 'compliance_item', complianceType: 'gas_safety' },
    },
    {
      kind: 'financial_log',
      status: 'approved',
      ref: APPROVED_REPAIR.ref,
      body: {
        date: cal.iso(-APPROVED_REPAIR.daysAgo),
        direction: APPROVED_REPAIR.direction,
        category: APPROVED_REPAIR.category,
        net_pence: APPROVED_REPAIR.netPence,
        vat_pence: APPROVED_REPAIR.vatPence,
        payee_or_payer: APPROVED_REPAIR.payeeOrPayer,
        reference: APPROVED_REPAIR.reference,
      },
      reviewNotes: 'Boiler fan replaced during the gas safety visit.',
      createdAt: cal.daysAgo(36),
      ...decided(35, REVIEWER_ACTOR, 'Matches the invoice.'),
      record: { type: 'financial_log' },
    },
    {
      kind: 'deal',
      status: 'rejected',
      ref: 'LON-003',
      body: {
        title: 'Refinance – 18 Chesterton Road',
        deal_type: 'refinance',
        stage: 'application',
        value_pence: 62_000_000,
        counterparty: 'Landbay',
      },
      reviewNotes: 'The broker emailed about a remortgage.',
      createdAt: cal.daysAgo(10),
      ...decided(9, REVIEWER_ACTOR, 'Duplicate: this refinance is already open as a deal.'),
    },
    {
      kind: 'financial_log',
      status: 'expired',
      ref: 'LON-006',
      body: {
        date: cal.iso(-20),
        direction: 'expense',
        category: 'compliance_cert',
        net_pence: 14_000,
        vat_pence: 2_800,
        payee_or_payer: 'Firecheck London Ltd',
        reference: 'FCL-7702',
      },
      reviewNotes: 'Quarterly fire alarm service invoice.',
      createdAt: cal.daysAgo(19),
      ...decided(19 - PROPOSAL_TTL_DAYS, SYSTEM_ACTOR, `Not reviewed within ${PROPOSAL_TTL_DAYS} days.`),
    },
    {
      kind: 'compliance_update',
      status: 'withdrawn',
      ref: 'MAN-005',
      body: {
        compliance_type: 'eicr',
        issue_date: cal.iso(-7),
        outcome: 'satisfactory',
        eicr_codes: { c1: 0, c2: 0, c3: 2, fi: 0 },
        contractor: {
          name: 'Lee Whitworth',
          company: 'Sparks North West Ltd',
          scheme: 'NICEIC',
          registration_number: '604217',
        },
      },
      reviewNotes: 'EICR report from Sparks North West.',
      createdAt: cal.daysAgo(6),
      ...decided(
        6 - 1 / 24,
        ASSISTANT_ACTOR,
        'Submitted for the wrong property; the report is for a flat the agency does not manage.',
      ),
    },
  ];
}
