import type { ComplianceUpdateProposalBody, DealProposalBody, FinancialLogProposalBody } from '@pa/contracts';
import type { ComplianceItem } from '../../generated/prisma/client.ts';
import { toDateString } from '../../lib/clock.ts';
import { renewalExpiry } from '../compliance/compliance-rules.ts';

// What approving a proposal writes, as flat fields named like the API's records (nested ones as `contractor/name`,
// `eicr_codes/c2`): record-writer.ts writes these values and the review queue's diff shows them, so the two
// cannot disagree.

export type FieldValue = string | number | boolean | null;
export type Fields = Record<string, FieldValue>;

/** The stage a proposed deal starts in when the proposal names none: the first step of that kind of deal. */
export const DEFAULT_DEAL_STAGE: Record<DealProposalBody['deal_type'], string> = {
  acquisition: 'appraisal',
  disposal: 'valuation',
  letting: 'marketing',
  management_instruction: 'proposal_sent',
  refinance: 'application',
};

export function dealFields(b: DealProposalBody): Fields {
  return {
    title: b.title,
    deal_type: b.deal_type,
    stage: b.stage ?? DEFAULT_DEAL_STAGE[b.deal_type],
    status: 'open',
    value_pence: b.value_pence ?? null,
    property_id: b.property_id,
    counterparty: b.counterparty ?? null,
    expected_close_date: b.expected_close_date ?? null,
    source: 'proposal',
  };
}

export function financialLogFields(b: FinancialLogProposalBody): Fields {
  return {
    property_id: b.property_id,
    date: b.date,
    direction: b.direction,
    category: b.category,
    net_pence: b.net_pence,
    vat_pence: b.vat_pence,
    gross_pence: b.net_pence + b.vat_pence,
    payee_or_payer: b.payee_or_payer ?? null,
    reference: b.reference ?? null,
  };
}

/**
 * The certificate fields of a property's item of one type. A new certificate replaces all of them: what the
 * proposal does not give (a reference, a contractor, a remedial date, when it was served) is cleared rather than
 * kept from the old certificate. The item's exemption and notes are not the certificate's and stay. Submission
 * fills the expiry (proposals-service.ts); a body without one takes it from `current`, the item it replaces, as
 * submission would have (a gas check done early keeps the old anniversary).
 */
export function complianceFieldsAfter(
  b: ComplianceUpdateProposalBody,
  current: Pick<ComplianceItem, 'expiryDate'> | null = null,
): Fields {
  return {
    issue_date: b.issue_date,
    expiry_date:
      b.expiry_date ??
      renewalExpiry(b.compliance_type, b.issue_date, toDateString(current?.expiryDate ?? null)),
    next_due_date: null,
    reference_number: b.reference_number ?? null,
    outcome: b.outcome ?? null,
    rating: b.rating ?? null,
    'eicr_codes/c1': b.eicr_codes?.c1 ?? null,
    'eicr_codes/c2': b.eicr_codes?.c2 ?? null,
    'eicr_codes/c3': b.eicr_codes?.c3 ?? null,
    'eicr_codes/fi': b.eicr_codes?.fi ?? null,
    remedial_due_date: null,
    'contractor/name': b.contractor?.name ?? null,
    'contractor/company': b.contractor?.company ?? null,
    'contractor/scheme': b.contractor?.scheme ?? null,
    'contractor/registration_number': b.contractor?.registration_number ?? null,
    served_to_tenant_at: null,
  };
}

/** The same fields of an existing item, to compare with complianceFieldsAfter. */
export function complianceFieldsOf(row: ComplianceItem): Fields {
  return {
    issue_date: toDateString(row.issueDate),
    expiry_date: toDateString(row.expiryDate),
    next_due_date: toDateString(row.nextDueDate),
    reference_number: row.referenceNumber,
    outcome: row.outcome,
    rating: row.rating,
    'eicr_codes/c1': row.eicrC1,
    'eicr_codes/c2': row.eicrC2,
    'eicr_codes/c3': row.eicrC3,
    'eicr_codes/fi': row.eicrFi,
    remedial_due_date: toDateString(row.remedialDueDate),
    'contractor/name': row.contractorName,
    'contractor/company': row.contractorCompany,
    'contractor/scheme': row.contractorScheme,
    'contractor/registration_number': row.contractorRegNo,
    served_to_tenant_at: toDateString(row.servedToTenantAt),
  };
}

/**
 * The diff a reviewer sees: each field whose value would change, against the current record (`from`), or, when
 * there is none yet, each field the new record would have (`from: null`).
 */
export function diffFields(
  before: Fields | null,
  after: Fields,
): Array<{ path: string; from: FieldValue; to: FieldValue }> {
  return Object.entries(after)
    .map(([path, to]) => ({ path, from: before?.[path] ?? null, to }))
    .filter((e) => (before ? e.from !== e.to : e.to !== null));
}
