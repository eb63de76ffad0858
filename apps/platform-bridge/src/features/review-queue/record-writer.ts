import type { ComplianceUpdateProposalBody, DealProposalBody, FinancialLogProposalBody } from '@pa/contracts';
import { fromDateString } from '../../lib/clock.ts';
import type { Tx } from '../../lib/db.ts';
import type { ComplianceRollup } from '../compliance/compliance-rollup.ts';
import type { KindedBody } from '../proposals/proposal-body.ts';
import { RECORD_TYPE_OF_KIND, type ProposalRecordType } from '../proposals/proposal-rules.ts';
import { complianceFieldsAfter, dealFields, financialLogFields } from './proposal-effects.ts';

const date = (v: unknown) => (typeof v === 'string' ? fromDateString(v) : null);
const str = (v: unknown) => (typeof v === 'string' ? v : null);
const int = (v: unknown) => (typeof v === 'number' ? v : null);

// Writes the record an approved proposal stands for, inside the approval's transaction, with the tenant in every
// write. The values come from proposal-effects.ts, as the reviewer's diff showed them. A compliance update also
// re-evaluates the property's rollup in the same transaction, whose trigger keeps portfolio_summaries true (the
// deals trigger does the same for a new deal).
export function createRecordWriter(deps: { rollup: ComplianceRollup }) {
  async function deal(tenantId: number, b: DealProposalBody, tx: Tx) {
    const f = dealFields(b);
    const row = await tx.deal.create({
      data: {
        tenantId,
        title: b.title,
        dealType: b.deal_type,
        stage: str(f.stage)!,
        status: 'open',
        valuePence: int(f.value_pence),
        propertyId: b.property_id,
        counterparty: str(f.counterparty),
        expectedCloseDate: date(f.expected_close_date),
        source: 'proposal',
      },
      select: { id: true },
    });
    return row.id;
  }

  async function complianceItem(tenantId: number, b: ComplianceUpdateProposalBody, tx: Tx) {
    // One item per property and type (unique): a renewal replaces the certificate of the item that exists.
    const existing = await tx.complianceItem.findFirst({
      where: { tenantId, propertyId: b.property_id, type: b.compliance_type },
      select: { id: true, expiryDate: true },
    });
    const f = complianceFieldsAfter(b, existing);
    const certificate = {
      issueDate: date(f.issue_date),
      expiryDate: date(f.expiry_date),
      nextDueDate: date(f.next_due_date),
      referenceNumber: str(f.reference_number),
      outcome: str(f.outcome),
      rating: str(f.rating),
      eicrC1: int(f['eicr_codes/c1']),
      eicrC2: int(f['eicr_codes/c2']),
      eicrC3: int(f['eicr_codes/c3']),
      eicrFi: int(f['eicr_codes/fi']),
      remedialDueDate: date(f.remedial_due_date),
      contractorName: str(f['contractor/name']),
      contractorCompany: str(f['contractor/company']),
      contractorScheme: str(f['contractor/scheme']),
      contractorRegNo: str(f['contractor/registration_number']),
      servedToTenantAt: date(f.served_to_tenant_at),
    };
    const id = existing
      ? (
          await tx.complianceItem.update({
            where: { id: existing.id, tenantId },
            data: certificate,
            select: { id: true },
          })
        ).id
      : (
          await tx.complianceItem.create({
            data: { tenantId, propertyId: b.property_id, type: b.compliance_type, ...certificate },
            select: { id: true },
          })
        ).id;
    await deps.rollup.refreshProperties(tenantId, [b.property_id], tx);
    return id;
  }

  async function financialLog(tenantId: number, b: FinancialLogProposalBody, proposalId: number, tx: Tx) {
    const f = financialLogFields(b);
    const row = await tx.financialLog.create({
      data: {
        tenantId,
        propertyId: b.property_id,
        date: fromDateString(b.date),
        direction: b.direction,
        category: b.category,
        netPence: b.net_pence,
        vatPence: b.vat_pence,
        grossPence: int(f.gross_pence)!,
        payeeOrPayer: str(f.payee_or_payer),
        reference: str(f.reference),
        sourceProposalId: proposalId,
      },
      select: { id: true },
    });
    return row.id;
  }

  return {
    /** Creates (or, for a compliance update, updates) the proposal's record; the body is already validated. */
    async write(
      tenantId: number,
      proposalId: number,
      p: KindedBody,
      tx: Tx,
    ): Promise<{ type: ProposalRecordType; id: number }> {
      const type = RECORD_TYPE_OF_KIND[p.kind];
      switch (p.kind) {
        case 'deal':
          return { type, id: await deal(tenantId, p.body, tx) };
        case 'compliance_update':
          return { type, id: await complianceItem(tenantId, p.body, tx) };
        case 'financial_log':
          return { type, id: await financialLog(tenantId, p.body, proposalId, tx) };
      }
    },
  };
}
export type RecordWriter = ReturnType<typeof createRecordWriter>;
