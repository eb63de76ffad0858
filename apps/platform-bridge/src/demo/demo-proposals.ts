import {
  adminActor,
  expiredNote,
  PROPOSAL_TTL_DAYS,
  type ProposalKind,
  type ProposalStatus,
  type RECORD_TYPE_OF_KIND,
  SYSTEM_ACTOR,
} from '../features/proposals/proposal-rules.ts';
import { toDateString } from '../lib/clock.ts';
import type { Prisma } from '../lib/db.ts';
import type { DemoCalendar } from './demo-calendar.ts';
import type { DealKey } from './demo-deals.ts';
import type { Portfolio } from './demo-portfolio.ts';

// The demo's proposals: one of each kind waiting for review, and others in every decided state, as the
// assistant and the review queue would have left them. The rules they follow are the proposals feature's.

export interface ProposalPlan {
  kind: ProposalKind;
  status: ProposalStatus;
  /** the property the payload's `property_id` refers to */
  ref: string;
  /** the proposal request body without `property_id` (the seeder puts the id first) */
  body: Record<string, Prisma.InputJsonValue | null>;
  reviewNotes: string | null;
  createdAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
  decisionNote: string | null;
  /** what an approval created, resolved to an id by the seeder */
  record?:
    | { type: typeof RECORD_TYPE_OF_KIND.deal; deal: DealKey }
    | { type: typeof RECORD_TYPE_OF_KIND.compliance_update; complianceType: string }
    | { type: typeof RECORD_TYPE_OF_KIND.financial_log };
}

// The demo's cast: the gateway's remote key (its label, as scripts/provision-demo.ts names it) submits, its
// named admin decides; the expiry sweep is the system.
export const ASSISTANT_ACTOR = 'demo agent gateway';
export const REVIEWER_ACTOR = adminActor('sarah.cole@demo-lettings.co.uk');

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
      ...decided(19 - PROPOSAL_TTL_DAYS, SYSTEM_ACTOR, expiredNote(PROPOSAL_TTL_DAYS)),
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
