import {
  ComplianceUpdateProposalBody,
  DealProposalBody,
  FinancialLogProposalBody,
  type ProposalCreated,
  ProposalsArgs,
} from '@pa/contracts';
import { spec, type ToolContext } from './tool-spec.ts';

// The proposal tools: three that submit a proposal through the bridge (with PLATFORM_BRIDGE_WRITES
// only) and one that reads the tenant's proposals back (with the read tools). Their argument schemas are the
// bridge's own request bodies, so a model is shown exactly what the bridge accepts. A proposal creates nothing on
// the platform: it waits in the review queue until a workspace admin approves it, and every description and
// result says so, so that a model never tells the user a record was created.

export const PROPOSAL_TOOL_NAMES = {
  proposeDeal: 'platform-propose-deal',
  proposeComplianceUpdate: 'platform-propose-compliance-update',
  proposeFinancialLog: 'platform-propose-financial-log',
  proposals: 'platform-get-proposals',
} as const;

const AWAITS_REVIEW =
  'This creates NOTHING on the platform: it submits a proposal that waits in the platform’s review queue until ' +
  'a workspace admin approves it (only then is the record made) or rejects it. Returns the proposal id: tell the ' +
  'user the proposal awaits review, with its id; never say a record was created.';

/** A proposal's answer as the model sees it: the bridge's answer, where to review it, and what it means. */
function submitted(created: ProposalCreated, context: ToolContext) {
  return {
    ...created,
    review_queue_url: context.reviewQueueUrl,
    note:
      `Proposal ${created.proposal_id} is pending review; nothing has been changed on the platform yet. ` +
      'A workspace admin approves or rejects it in the review queue.',
  };
}

export const PROPOSAL_WRITE_SPECS = [
  spec({
    name: PROPOSAL_TOOL_NAMES.proposeDeal,
    description:
      'Propose a new deal for the bound tenant: an acquisition, disposal, letting, management instruction or ' +
      'refinance, with a short title ("Acquire 14 Oak Street"), its value in pence (£250,000 = 25000000), ' +
      'counterparty and expected close date. property_id is the numeric id from platform-get-portfolio; null ' +
      `only for an acquisition of a property not yet on the platform. ${AWAITS_REVIEW}`,
    schema: DealProposalBody,
    run: async (client, args, context) =>
      submitted(await client.proposeDeal(args, { signal: context.signal }), context),
  }),
  spec({
    name: PROPOSAL_TOOL_NAMES.proposeComplianceUpdate,
    description:
      'Propose a compliance update for one property: a new certificate or check (gas safety, EICR, EPC, smoke ' +
      'and CO alarms, HMO licence, legionella, fire risk, deposit protection, right to rent, PAT) with its issue ' +
      'date (YYYY-MM-DD), reference number, outcome, EPC rating, EICR codes and contractor. The expiry date ' +
      `defaults to the issue date plus the type’s cycle. ${AWAITS_REVIEW}`,
    schema: ComplianceUpdateProposalBody,
    run: async (client, args, context) =>
      submitted(await client.proposeComplianceUpdate(args, { signal: context.signal }), context),
  }),
  spec({
    name: PROPOSAL_TOOL_NAMES.proposeFinancialLog,
    description:
      'Propose a financial log entry for one property: income or expense, its category (repair, rent_received, ' +
      'compliance_cert…), the date, the net amount and the VAT in pence (£120 + 20 % VAT = net_pence 12000, ' +
      `vat_pence 2400), the payee or payer and a reference. ${AWAITS_REVIEW}`,
    schema: FinancialLogProposalBody,
    run: async (client, args, context) =>
      submitted(await client.proposeFinancialLog(args, { signal: context.signal }), context),
  }),
];

export const PROPOSAL_READ_SPECS = [
  spec({
    name: PROPOSAL_TOOL_NAMES.proposals,
    description:
      'Read the tenant’s proposals, newest first: id, kind (deal, compliance_update, financial_log), status ' +
      '(pending_review, approved, rejected, expired, withdrawn), what was proposed (payload), when, the ' +
      'reviewer’s note and, once approved, the record it made. status filters (default all; pending_review for ' +
      'what still awaits review).',
    schema: ProposalsArgs,
    run: async (client, args, context) => ({
      ...(await client.listProposals(args, { signal: context.signal })),
      review_queue_url: context.reviewQueueUrl,
    }),
  }),
];
