import type { Property as ApiProperty } from '@pa/contracts';
import type { Property, Tenancy } from '../../generated/prisma/client.ts';
import { toDateString } from '../../lib/clock.ts';
import type { PropertyEvaluation, RulesItem } from '../compliance/compliance-rules.ts';
import { depositProtectionDue, tenancyTerms } from '../tenancies/tenancy-rules.ts';

type Deposit = NonNullable<NonNullable<ApiProperty['current_tenancy']>['deposit']>;

export function toAddress(p: Property): ApiProperty['address'] {
  return { line1: p.line1, line2: p.line2, town: p.town, county: p.county, postcode: p.postcode };
}

/** A tenancy row as the rules read it (tenancy-rules.ts). */
export function toTenancyFacts(t: Tenancy) {
  return {
    status: t.status,
    startDate: toDateString(t.startDate),
    endDate: toDateString(t.endDate),
    fixedTermEndDate: toDateString(t.fixedTermEndDate),
    possessionDate: toDateString(t.possessionDate),
    isPeriodic: t.isPeriodic,
    lastRentIncreaseOn: toDateString(t.lastRentIncreaseOn),
  };
}

export function toApiTenancy(t: Tenancy | undefined, today: string): ApiProperty['current_tenancy'] {
  if (!t) return null;
  const facts = toTenancyFacts(t);
  const terms = tenancyTerms(facts, today);
  const receivedAt = toDateString(t.depositReceivedAt);
  const protectedAt = toDateString(t.depositProtectedAt);
  return {
    status: t.status as NonNullable<ApiProperty['current_tenancy']>['status'],
    start_date: facts.startDate,
    end_date: terms.endDate,
    is_periodic: terms.isPeriodic,
    fixed_term_end_date: facts.fixedTermEndDate,
    notice_given_on: toDateString(t.noticeGivenOn),
    possession_date: facts.possessionDate,
    rent_pence: t.rentPence,
    rent_frequency: t.rentFrequency as NonNullable<ApiProperty['current_tenancy']>['rent_frequency'],
    rent_review: {
      last_increase_on: facts.lastRentIncreaseOn,
      earliest_next_increase_on: terms.earliestNextIncreaseOn,
    },
    deposit:
      t.depositPence === null
        ? null
        : {
            amount_pence: t.depositPence,
            scheme: t.depositScheme as Deposit['scheme'],
            received_at: receivedAt,
            protected_at: protectedAt,
            protection_due_date: depositProtectionDue(receivedAt, protectedAt),
            prescribed_info_served_at: toDateString(t.prescribedInfoServedAt),
          },
  };
}

export function toApiProperty(
  p: Property & { tenancies: Tenancy[] },
  evaluation: PropertyEvaluation<RulesItem>,
  today: string,
  /** the arrears 30 days before today, from the history; null when not known */
  arrears30DaysAgo: number | null,
): ApiProperty {
  return {
    id: p.id,
    ref: p.ref,
    address: toAddress(p),
    uprn: p.uprn,
    property_type: p.propertyType as ApiProperty['property_type'],
    bedrooms: p.bedrooms,
    bathrooms: p.bathrooms,
    tenure: p.tenure as ApiProperty['tenure'],
    furnishing: p.furnishing as ApiProperty['furnishing'],
    council_tax_band: p.councilTaxBand,
    local_authority: p.localAuthority,
    is_hmo: p.isHmo,
    hmo_licence_type: p.hmoLicenceType as ApiProperty['hmo_licence_type'],
    max_occupants: p.maxOccupants,
    has_gas: p.hasGas,
    epc:
      p.epcRating && p.epcScore !== null && p.epcValidUntil
        ? {
            rating: p.epcRating as NonNullable<ApiProperty['epc']>['rating'],
            score: p.epcScore,
            valid_until: toDateString(p.epcValidUntil),
          }
        : null,
    letting_status: p.lettingStatus as ApiProperty['letting_status'],
    management_type: p.managementType as ApiProperty['management_type'],
    units_total: p.unitsTotal,
    units_occupied: p.unitsOccupied,
    current_tenancy: toApiTenancy(p.tenancies[0], today),
    arrears_pence: p.arrearsPence,
    arrears_30_days_ago_pence: arrears30DaysAgo,
    compliance_summary: { status: evaluation.status, ...evaluation.counts },
    updated_at: p.updatedAt.toISOString(),
  };
}
