import type {
  ComplianceItem,
  ComplianceResponse,
  Deal,
  EmailActivity,
  PortfolioProperty,
} from '@pa/contracts';

// Hand-built bridge records for the briefing's pure functions: only what a test sets differs from a plain,
// fully let, compliant property.

let nextId = 1;

export function property(ref: string, over: Partial<PortfolioProperty> = {}): PortfolioProperty {
  return {
    id: nextId++,
    ref,
    address: { line1: `${nextId} Test Road`, line2: null, town: 'Leeds', county: null, postcode: 'LS6 3EL' },
    property_type: 'house',
    bedrooms: 3,
    letting_status: 'let',
    is_hmo: false,
    compliance_status: 'valid',
    rent_pence: 120_000,
    rent_frequency: 'monthly',
    arrears_pence: 0,
    arrears_30_days_ago_pence: null,
    units_total: 1,
    units_occupied: 1,
    tenancy_status: 'active',
    tenancy_end_date: null,
    tenancy_is_periodic: false,
    tenancy_fixed_term_end_date: null,
    tenancy_notice_given_on: null,
    tenancy_possession_date: null,
    tenancy_last_rent_increase_on: null,
    tenancy_earliest_next_increase_on: null,
    ...over,
  };
}

export function item(type: ComplianceItem['type'], over: Partial<ComplianceItem> = {}): ComplianceItem {
  // the due date as the bridge gives it: a check's next due date, else the certificate's expiry
  const due = over.next_due_date ?? over.expiry_date ?? null;
  const kind =
    due === null
      ? null
      : type === 'deposit_protection'
        ? 'protect_by'
        : over.next_due_date
          ? 'next_check'
          : 'expiry';
  return {
    id: nextId++,
    property_id: 1,
    type,
    is_statutory: true,
    reference_number: null,
    issue_date: null,
    expiry_date: null,
    next_due_date: null,
    outcome: null,
    rating: null,
    eicr_codes: null,
    remedial_due_date: null,
    exemption_valid_until: null,
    contractor: null,
    served_to_tenant_at: null,
    tenant_copy_due_date: null,
    tenant_copy_status: null,
    notes: null,
    status: 'valid',
    due_date: due,
    due_kind: kind,
    days_until_due: null,
    ...over,
  };
}

export function compliance(
  p: PortfolioProperty,
  items: ComplianceItem[],
  missing: ComplianceResponse['missing'] = [],
): { property: PortfolioProperty; compliance: ComplianceResponse } {
  return {
    property: p,
    compliance: {
      property_id: p.id,
      as_of: '2026-01-31T09:00:00.000Z',
      status: 'valid',
      items: items.map((i) => ({ ...i, property_id: p.id })),
      missing,
    },
  };
}

export function deal(title: string, over: Partial<Deal> = {}): Deal {
  return {
    id: nextId++,
    title,
    deal_type: 'acquisition',
    stage: 'offer',
    status: 'open',
    value_pence: 25_000_000,
    property_id: null,
    counterparty: null,
    expected_close_date: null,
    next_action: 'Chase the solicitor',
    next_action_due: null,
    source: 'manual',
    created_at: '2026-01-01T09:00:00.000Z',
    updated_at: '2026-01-01T09:00:00.000Z',
    ...over,
  };
}

export function email(subject: string, over: Partial<EmailActivity> = {}): EmailActivity {
  return {
    id: nextId++,
    thread_id: `t-${subject}`,
    direction: 'inbound',
    from: 'tenant@example.com',
    to: ['lettings@example.com'],
    subject,
    snippet: '',
    received_at: '2026-01-31T08:00:00.000Z',
    has_attachments: false,
    category: 'maintenance',
    requires_response: true,
    linked: { property_id: null, deal_id: null },
    mailbox: 'lettings@example.com',
    ...over,
  };
}
