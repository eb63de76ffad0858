import type { Property as ApiProperty } from '@pa/contracts';
import type { Property, Tenancy } from '../../generated/prisma/client.ts';
import { toDateString } from '../../lib/clock.ts';
import type { PropertyEvaluation, RulesItem } from '../compliance/compliance-rules.ts';

type Deposit = NonNullable<NonNullable<ApiProperty['current_tenancy']>['deposit']>;

export function toAddress(p: Property): ApiProperty['address'] {
  return { line1: p.line1, line2: p.line2, town: p.town, county: p.county, postcode: p.postcode };
}

export function toApiTenancy(t: Tenancy | undefined): ApiProperty['current_tenancy'] {
  if (!t) return null;
  return {
    status: t.status as NonNullable<ApiProperty['current_tenancy']>['status'],
    start_date: toDateString(t.startDate),
    end_date: toDateString(t.endDate),
    is_periodic: t.isPeriodic,
    rent_pence: t.rentPence,
    rent_frequency: t.rentFrequency as NonNullable<ApiProperty['current_tenancy']>['rent_frequency'],
    deposit:
      t.depositPence === null
        ? null
        : {
            amount_pence: t.depositPence,
            scheme: t.depositScheme as Deposit['scheme'],
            protected_at: toDateString(t.depositProtectedAt),
            prescribed_info_served_at: toDateString(t.prescribedInfoServedAt),
          },
  };
}

export function toApiProperty(
  p: Property & { tenancies: Tenancy[] },
  evaluation: PropertyEvaluation<RulesItem>,
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
    current_tenancy: toApiTenancy(p.tenancies[0]),
    arrears_pence: p.arrearsPence,
    compliance_summary: { status: evaluation.status, ...evaluation.counts },
    updated_at: p.updatedAt.toISOString(),
  };
}
