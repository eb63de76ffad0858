import type { ComplianceItem as ApiComplianceItem, ComplianceType } from '@pa/contracts';
import type { ComplianceItem } from '../../generated/prisma/client.ts';
import { toDateString } from '../../lib/clock.ts';
import {
  dueOf,
  type ItemStatus,
  type RulesItem,
  type RulesProperty,
  tenantCopy,
} from './compliance-rules.ts';

export interface PropertyFacts {
  lettingStatus: string;
  hasGas: boolean;
  isHmo: boolean;
  tenancies: Array<{ startDate: Date; depositPence: number | null }>;
}

export function toRulesProperty(p: PropertyFacts): RulesProperty {
  const t = p.tenancies[0];
  return {
    lettingStatus: p.lettingStatus,
    hasGas: p.hasGas,
    isHmo: p.isHmo,
    tenancy: t ? { startDate: toDateString(t.startDate), depositPence: t.depositPence } : null,
  };
}

export type RulesRow = RulesItem & { row: ComplianceItem };

export function toRulesItem(row: ComplianceItem): RulesRow {
  return {
    row,
    type: row.type as ComplianceType,
    issueDate: toDateString(row.issueDate),
    expiryDate: toDateString(row.expiryDate),
    nextDueDate: toDateString(row.nextDueDate),
    outcome: row.outcome,
    rating: row.rating,
    remedialDueDate: toDateString(row.remedialDueDate),
    exemptionValidUntil: toDateString(row.exemptionValidUntil),
  };
}

export function toApiComplianceItem(
  row: ComplianceItem,
  status: ItemStatus,
  daysUntilDue: number | null,
  property: RulesProperty,
  today: string,
): ApiComplianceItem {
  const rulesItem = toRulesItem(row);
  const due = dueOf(rulesItem);
  const servedToTenantAt = toDateString(row.servedToTenantAt);
  const copy = tenantCopy({ ...rulesItem, servedToTenantAt }, property, today);
  const hasCodes = [row.eicrC1, row.eicrC2, row.eicrC3, row.eicrFi].some((v) => v !== null);
  const hasContractor = [
    row.contractorName,
    row.contractorCompany,
    row.contractorScheme,
    row.contractorRegNo,
  ].some((v) => v !== null);
  return {
    id: row.id,
    property_id: row.propertyId,
    type: row.type as ComplianceType,
    is_statutory: row.isStatutory,
    reference_number: row.referenceNumber,
    issue_date: toDateString(row.issueDate),
    expiry_date: toDateString(row.expiryDate),
    next_due_date: toDateString(row.nextDueDate),
    outcome: row.outcome as ApiComplianceItem['outcome'],
    rating: row.rating as ApiComplianceItem['rating'],
    eicr_codes: hasCodes
      ? { c1: row.eicrC1 ?? 0, c2: row.eicrC2 ?? 0, c3: row.eicrC3 ?? 0, fi: row.eicrFi ?? 0 }
      : null,
    remedial_due_date: toDateString(row.remedialDueDate),
    exemption_valid_until: toDateString(row.exemptionValidUntil),
    contractor: hasContractor
      ? {
          name: row.contractorName,
          company: row.contractorCompany,
          scheme: row.contractorScheme,
          registration_number: row.contractorRegNo,
        }
      : null,
    served_to_tenant_at: servedToTenantAt,
    tenant_copy_due_date: copy.dueDate,
    tenant_copy_status: copy.status,
    notes: row.notes,
    status,
    due_date: due.date,
    due_kind: due.kind,
    days_until_due: daysUntilDue,
  };
}
